import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { CliError, CliUsageError } from './cli-error.ts';
import type { CommandContext } from './context.ts';

/** Opens a file argument (`-` is stdin) as a UTF-8 stream, with clear errors for what is missing. */
export async function openTextInput(context: CommandContext, file: string): Promise<AsyncIterable<string>> {
  if (file === '-') {
    if (context.stdin.isTTY === true) {
      throw new CliUsageError('No input: stdin is a terminal.', { hint: 'pipe text in (`… | toolwire extract -`) or name a file' });
    }
    context.stdin.setEncoding('utf8');
    return context.stdin as AsyncIterable<string>;
  }
  const path = resolve(context.cwd, file);
  let info;
  try {
    info = await stat(path);
  } catch {
    throw new CliError(`No such file: ${file}`, { hint: 'check the path, or use - to read stdin' });
  }
  if (!info.isFile()) throw new CliError(`Not a file: ${file}`, { hint: 'name a text file, or use - to read stdin' });
  const stream: Readable = createReadStream(path, { encoding: 'utf8' });
  return stream as AsyncIterable<string>;
}

/** Reads a whole text input. */
export async function readTextInput(context: CommandContext, file: string): Promise<string> {
  let text = '';
  for await (const chunk of await openTextInput(context, file)) text += chunk;
  return text;
}
