// The `toolwire …` and `toolwire-server …` commands in the READMEs' shell blocks, and the
// subcommands and flags the real programs' `--help` lists.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Fence } from './readme-blocks.ts';

/** The programs a README command may name, and their entry points run from source. */
export const programs: Record<string, string> = {
  toolwire: 'apps/cli/src/bin.ts',
  'toolwire-server': 'apps/server/src/bin.ts',
};

/** One invocation in a README: `toolwire login chatgpt --device` at `apps/cli/README.md:11`. */
export interface ReadmeCommand {
  where: string;
  line: string;
  program: string;
  /** The words after the program, quotes removed. */
  args: string[];
}

/** Splits a shell line into words (quotes group, `#` starts a comment outside quotes). */
function words(text: string): string[] {
  const out: string[] = [];
  let word = '';
  let quote = '';
  let inWord = false;
  for (const ch of text) {
    if (quote !== '') {
      if (ch === quote) quote = '';
      else word += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (ch === '#' && !inWord) {
      break;
    } else if (ch === ' ' || ch === '\t') {
      if (inWord) out.push(word);
      word = '';
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (inWord) out.push(word);
  return out;
}

/** Every command of a shell block whose program is one of `programs` (lines split at `&&`, `||`, `|`, `;`). */
export function readmeCommands(fence: Fence): ReadmeCommand[] {
  const commands: ReadmeCommand[] = [];
  fence.code.split('\n').forEach((line, index) => {
    // Separators stand between spaces in the READMEs; no quoted argument there holds one.
    const segments = line.split(/\s(?:&&|\|\||\||;)\s/);
    for (const segment of segments) {
      const [program, ...args] = words(segment.trim());
      if (program !== undefined && programs[program] !== undefined) {
        commands.push({ where: `${fence.readme}:${fence.firstLine + index}`, line: line.trim(), program, args });
      }
    }
  });
  return commands;
}

/** The `--help` text of `program` (`args` being its subcommand path), run from source. */
export function helpOf(root: string, program: string, args: string[]): Promise<string> {
  const entry = programs[program];
  if (entry === undefined) throw new Error(`unknown program ${program}`);
  const child = spawn(process.execPath, ['--conditions=@toolwire/source', join(root, entry), ...args, '--help'], {
    cwd: root,
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', () => resolve(out));
  });
}

/** The names in a help text's `Options:` or `Commands:` section (`-m`, `--model`; `chat`, `login`). */
export function helpSection(help: string, section: 'Options' | 'Commands'): string[] {
  const names: string[] = [];
  let inside = false;
  for (const line of help.split('\n')) {
    if (/^\S/.test(line)) {
      inside = line.startsWith(`${section}:`);
      continue;
    }
    // An entry starts two spaces in; a wrapped description is indented further.
    const entry = /^ {2}(\S.*?)(?: {2,}|$)/.exec(line);
    if (!inside || entry === null) continue;
    const head = entry[1] ?? '';
    if (section === 'Commands') names.push(head.split(' ')[0] ?? '');
    else for (const flag of head.matchAll(/(?:^|[\s,])(--?[\w-]+)/g)) names.push(flag[1] ?? '');
  }
  return names;
}
