// Runs a README block as its own Node process (the way a user runs a copied file), after
// marking each value the README shows in a comment so the run can be compared with it.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import type { BlockModule } from './check-blocks.ts';

/** A value shown in a README comment (`// [{ id: 'search_0', … }]`) and what the run produced there. */
export interface ShownResult {
  /** `packages/extract/README.md:211` */
  where: string;
  comment: string;
  /** Each value the statement produced, formatted as `console.log` would (strings quoted). */
  produced: string[];
}

export interface BlockRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  shown: ShownResult[];
  /** The directory the example ran in (its working directory, for files it writes). */
  cwd: string;
}

// A comment reads as a shown value when it starts like one: `[`, `{`, a quote, a number, a literal.
const valueStart = /^(?:[[{'"]|-?\d|true\b|false\b|null\b|undefined\b)/;

interface Mark {
  line: number;
  comment: string;
  /** Text range to wrap, and whether it is a `console.log` callee to swap. */
  start: number;
  end: number;
  kind: 'value' | 'log';
}

/** The comment on the statement's own line, else a whole-line comment on the next line. */
function shownComment(text: string, statementEnd: number): string | undefined {
  const trailing = ts.getTrailingCommentRanges(text, statementEnd)?.[0];
  if (trailing?.kind === ts.SyntaxKind.SingleLineCommentTrivia) {
    const comment = text.slice(trailing.pos + 2, trailing.end).trim();
    return valueStart.test(comment) ? comment : undefined;
  }
  const lineEnd = text.indexOf('\n', statementEnd);
  if (lineEnd < 0 || text.slice(statementEnd, lineEnd).trim() !== '') return undefined;
  const nextEnd = text.indexOf('\n', lineEnd + 1);
  const nextLine = text.slice(lineEnd + 1, nextEnd < 0 ? undefined : nextEnd).trim();
  if (!nextLine.startsWith('//')) return undefined;
  const comment = nextLine.slice(2).trim();
  return valueStart.test(comment) ? comment : undefined;
}

function findMarks(source: ts.SourceFile): Mark[] {
  const marks: Mark[] = [];
  const text = source.text;
  const visit = (node: ts.Node): void => {
    if (ts.isExpressionStatement(node) || (ts.isVariableStatement(node) && node.declarationList.declarations.length === 1)) {
      const comment = shownComment(text, node.end);
      if (comment !== undefined) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
        if (ts.isExpressionStatement(node)) {
          const expression = node.expression;
          const isLog =
            ts.isCallExpression(expression) && ts.isPropertyAccessExpression(expression.expression) && expression.expression.getText(source) === 'console.log';
          const target = isLog ? expression.expression : expression;
          marks.push({ line, comment, start: target.getStart(source), end: target.end, kind: isLog ? 'log' : 'value' });
        } else {
          const initializer = node.declarationList.declarations[0]?.initializer;
          if (initializer !== undefined) marks.push({ line, comment, start: initializer.getStart(source), end: initializer.end, kind: 'value' });
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return marks;
}

// Runs before the example: records each marked value, writes them all out when the process ends.
const recorder = `
import { writeFileSync as __writeShown } from 'node:fs';
import { inspect as __inspect } from 'node:util';
const __shown = [];
const __format = (values) => values.map((v) => __inspect(v, { depth: Infinity, breakLength: Infinity })).join(' ');
globalThis.__readmeValue = (id) => (value) => {
  if (value instanceof Promise) return value.then((v) => (__shown.push([id, __format([v])]), v));
  __shown.push([id, __format([value])]);
  return value;
};
globalThis.__readmeLog = (id) => (...values) => {
  __shown.push([id, __format(values)]);
  console.log(...values);
};
process.on('exit', () => __writeShown(process.env.README_SHOWN_FILE, JSON.stringify(__shown)));
`;

/** The block as JavaScript with every shown value marked, and the marks' README places. */
export function instrument(module: BlockModule, replace: [string, string][]): { js: string; marks: Mark[] } {
  let text = module.text;
  for (const [from, to] of replace) text = text.split(from).join(to);
  const source = ts.createSourceFile(module.fileName, text, ts.ScriptTarget.ES2023, true);
  const marks = findMarks(source);
  let marked = text;
  for (const [id, mark] of [...marks.entries()].sort(([, a], [, b]) => b.start - a.start)) {
    const replacement = mark.kind === 'log' ? `__readmeLog(${id})` : `__readmeValue(${id})(${text.slice(mark.start, mark.end)})`;
    marked = marked.slice(0, mark.start) + replacement + marked.slice(mark.end);
  }
  const js = ts.transpileModule(marked, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2023, verbatimModuleSyntax: false },
  }).outputText;
  return { js: `${recorder}\n${js}`, marks };
}

/**
 * Runs the block with `node --conditions=@toolwire/source` from a file under the workspace's
 * `node_modules/.cache` (so `@toolwire/*` resolve as in a user's project), in a fresh
 * working directory (which the block's `working directory` path is replaced by), with `env`
 * added; killed after `timeoutMs`.
 */
export async function runBlock(root: string, module: BlockModule, options: { env: Record<string, string>; replace: [string, string][]; timeoutMs: number }): Promise<BlockRun> {
  const dir = join(root, 'node_modules/.cache/toolwire-readme-examples');
  mkdirSync(dir, { recursive: true });
  const cwd = mkdtempSync(join(tmpdir(), 'toolwire-readme-'));
  for (const input of module.block.files ?? []) writeFileSync(join(cwd, input.name), input.text);
  const { workingDirectory } = module.block;
  const { js, marks } = instrument(module, [...options.replace, ...(workingDirectory === undefined ? [] : [[workingDirectory, cwd] as [string, string]])]);
  const file = join(dir, `${module.block.label.replace(/[^\w]+/g, '-')}.mjs`);
  writeFileSync(file, js);
  const shownFile = join(cwd, '.shown.json');
  const child = spawn(process.execPath, ['--conditions=@toolwire/source', '--no-warnings', file], {
    cwd,
    env: { ...process.env, ...options.env, README_SHOWN_FILE: shownFile, NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => {
    stderr += `\n(killed: still running after ${options.timeoutMs} ms)`;
    child.kill('SIGKILL');
  }, options.timeoutMs);
  const exitCode = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  clearTimeout(timer);
  let recorded: [number, string][] = [];
  try {
    recorded = JSON.parse(readFileSync(shownFile, 'utf8')) as [number, string][];
  } catch {
    // The process died before its exit handler ran; the missing values say so below.
  }
  rmSync(shownFile, { force: true });
  const shown = marks.map((mark, id) => ({
    where: `${module.block.readme}:${module.block.firstLine + mark.line - module.blockLine}`,
    comment: mark.comment,
    produced: recorded.filter(([markId]) => markId === id).map(([, value]) => value),
  }));
  return { exitCode, stdout, stderr, shown, cwd };
}

/**
 * Whether a produced value matches the README's comment: compared without whitespace, with
 * `"` and `'` alike, `…` standing for anything, and a bare key in braces (`{ cpuMs, wallMs }`)
 * for that key with any value.
 */
export function matchesComment(comment: string, produced: string): boolean {
  const normalize = (s: string) => s.replace(/\s+/g, '').replace(/"/g, "'");
  const pattern = normalize(comment)
    .replace(/([{,])([A-Za-z_$][\w$]*)(?=[,}])/g, '$1$2:…')
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*?');
  return new RegExp(`^${pattern}$`).test(normalize(produced));
}
