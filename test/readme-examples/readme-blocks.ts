// Finds every ```ts block in the repository's READMEs, read straight from the files, with
// the `<!-- example: … -->` comment that may stand before it (the convention is described
// in the root README, "README examples").
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** A stand-in a runnable example talks to (see stand-ins.ts). */
export type StandIn = 'none' | 'ollama' | 'openai' | 'chatgpt' | 'gateway';

export interface ReadmeBlock {
  /** `packages/core/README.md:18`: the README and the line of the opening fence. */
  label: string;
  readme: string;
  /** README line (1-based) of the block's first code line. */
  firstLine: number;
  code: string;
  /** Lines put before the block when it is checked (`import …`, `declare …`). */
  prelude: string[];
  /** Name of the wrapper a fragment is checked in. */
  fragment?: string;
  /** Set when the block runs against a stand-in. */
  run?: StandIn;
  /** Set when the block is deliberately not checked. */
  notChecked?: string;
  /** A path in the block that stands for the run's (empty, temporary) working directory. */
  workingDirectory?: string;
  /** Files the run must leave in its working directory. */
  writes: string[];
  /** Blocks of the same README marked `<!-- example: file NAME -->`, put in the run's working directory first. */
  files?: { name: string; text: string }[];
}

const skippedDirs = new Set(['node_modules', 'dist', 'coverage', 'bench', '__fixtures__']);

/** The READMEs users read: the root one and each package's and app's, not test fixtures' notes. */
export function findReadmes(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string, depth: number): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.') || skippedDirs.has(entry.name)) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        // READMEs under src/ and test/ describe fixtures for contributors, not an API to copy.
        if (depth < 2 && entry.name !== 'src' && entry.name !== 'test') walk(path, depth + 1);
      } else if (entry.name === 'README.md') {
        found.push(relative(root, path));
      }
    }
  };
  walk(root, 0);
  return found.sort();
}

type Clauses = Pick<ReadmeBlock, 'prelude' | 'fragment' | 'run' | 'notChecked' | 'workingDirectory' | 'writes'>;

const standIns: readonly StandIn[] = ['none', 'ollama', 'openai', 'chatgpt', 'gateway'];

function parseDirectives(comment: string, label: string): Clauses {
  const result: Clauses = { prelude: [], writes: [] };
  for (const raw of comment.split('\n')) {
    const clause = raw.trim();
    if (clause === '') continue;
    if (clause.startsWith('import ') || clause.startsWith('declare ')) {
      result.prelude.push(clause.endsWith(';') ? clause : `${clause};`);
    } else if (clause === 'run') {
      result.run = 'none';
    } else if (clause.startsWith('run with ')) {
      const standIn = clause.slice('run with '.length).trim();
      if (!standIns.includes(standIn as StandIn)) {
        throw new Error(`${label}: unknown stand-in "${standIn}" (known: ${standIns.join(', ')})`);
      }
      result.run = standIn as StandIn;
    } else if (clause.startsWith('fragment ')) {
      result.fragment = clause.slice('fragment '.length).trim();
    } else if (clause.startsWith('working directory ')) {
      result.workingDirectory = clause.slice('working directory '.length).trim();
    } else if (clause.startsWith('writes ')) {
      result.writes.push(clause.slice('writes '.length).trim());
    } else if (clause.startsWith('not checked:')) {
      const reason = clause.slice('not checked:'.length).trim();
      if (reason === '') throw new Error(`${label}: "not checked:" needs a reason`);
      result.notChecked = reason;
    } else {
      throw new Error(
        `${label}: unknown clause "${clause}" in its example comment (expected import …, declare …, run, run with <stand-in>, working directory <path>, writes <file>, fragment <name>, not checked: <reason>)`,
      );
    }
  }
  return result;
}

/** A fenced block of a README: where it is, its language, its text and the comment before it. */
export interface Fence {
  label: string;
  readme: string;
  firstLine: number;
  language: string;
  code: string;
  /** The body of an `<!-- example: … -->` comment right before the fence. */
  comment: string | undefined;
}

/** Every fenced block of one README. */
export function readFences(root: string, readme: string): Fence[] {
  const lines = readFileSync(join(root, readme), 'utf8').split('\n');
  const fences: Fence[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(lines[i] ?? '');
    if (fence === null) continue;
    const [, indent = '', marker = '', language = ''] = fence;
    let end = i + 1;
    while (end < lines.length && !(lines[end] ?? '').trimStart().startsWith(marker)) end++;
    fences.push({
      label: `${readme}:${i + 1}`,
      readme,
      firstLine: i + 2,
      language,
      code: lines
        .slice(i + 1, end)
        .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
        .join('\n'),
      comment: exampleComment(lines, i),
    });
    i = end;
  }
  return fences;
}

/** Every ```ts / ```typescript block of one README, with its example comment parsed. */
export function readBlocks(root: string, readme: string): ReadmeBlock[] {
  const fences = readFences(root, readme);
  // Any other block may be a file the examples read (`<!-- example: file weather.json -->`).
  const files = fences
    .filter((fence) => fence.language !== 'ts' && fence.language !== 'typescript' && fence.comment?.trim().startsWith('file '))
    .map((fence) => ({ name: (fence.comment ?? '').trim().slice('file '.length).trim(), text: fence.code }));
  return fences
    .filter((fence) => fence.language === 'ts' || fence.language === 'typescript')
    .map(({ label, readme: file, firstLine, code, comment }) => {
      const clauses = parseDirectives(comment ?? '', label);
      return { label, readme: file, firstLine, code, ...clauses, ...(clauses.run !== undefined && files.length > 0 ? { files } : {}) };
    });
}

/** The text of an `<!-- example: … -->` comment ending on the last non-blank line before `fence`. */
function exampleComment(lines: string[], fence: number): string | undefined {
  let last = fence - 1;
  while (last >= 0 && (lines[last] ?? '').trim() === '') last--;
  if (last < 0 || !(lines[last] ?? '').trimEnd().endsWith('-->')) return undefined;
  let first = last;
  while (first >= 0 && !(lines[first] ?? '').includes('<!--')) first--;
  if (first < 0) return undefined;
  const text = lines.slice(first, last + 1).join('\n');
  const start = text.indexOf('<!--') + '<!--'.length;
  const body = text.slice(start, text.lastIndexOf('-->')).trim();
  if (!body.startsWith('example:')) return undefined;
  return body.slice('example:'.length);
}
