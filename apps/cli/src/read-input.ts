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

/** The most text a command reads whole (64 Mi characters); `extract --stream` reads any amount. */
export const MAX_TEXT_INPUT_CHARS = 64 * 1024 * 1024;

/**
 * Reads a whole text input, up to `maxChars`: stdin that never ends (`yes | toolwire extract`)
 * or a 1 GB file is a clear error, not a process that grows until it is killed.
 */
export async function readTextInput(context: CommandContext, file: string, options: { maxChars?: number; hint?: string } = {}): Promise<string> {
  const maxChars = options.maxChars ?? MAX_TEXT_INPUT_CHARS;
  const input = await openTextInput(context, file);
  return readAllText(input, { maxChars, what: file === '-' ? 'stdin' : file, hint: options.hint ?? 'pass a smaller input' });
}

/** Collects a text stream up to `maxChars`, then stops reading it. */
export async function readAllText(input: AsyncIterable<string>, options: { maxChars: number; what: string; hint: string }): Promise<string> {
  const chunks: string[] = [];
  let length = 0;
  for await (const chunk of input) {
    length += chunk.length;
    // Leaving the loop early destroys the stream: nothing more is read.
    if (length > options.maxChars) {
      throw new CliError(`The input (${options.what}) is longer than ${Math.floor(options.maxChars / (1024 * 1024))} Mi characters.`, { hint: options.hint });
    }
    chunks.push(chunk);
  }
  return chunks.join('');
}
