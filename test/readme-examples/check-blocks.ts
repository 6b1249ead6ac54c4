// Type-checks README blocks as modules a user would write: one TypeScript program over all
// of them, strict, resolving `@toolwire/*` through the packages' `exports` (the
// `@toolwire/source` condition, so no build is needed; the subpaths are the published ones).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import type { ReadmeBlock } from './readme-blocks.ts';

/**
 * Wrappers a `fragment <name>` block is checked inside. `@block` is where the block goes;
 * the block's own leading `import` lines stay at the top of the module.
 */
const fragmentWrappers: Record<string, string> = {
  // Properties of a Chat Completions request body, as the official SDK types it.
  'chat-completions-request': [
    "import type OpenAI from 'openai';",
    'export const request: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming = {',
    "  model: 'openai/gpt-4.1-mini',",
    '  messages: [],',
    '@block',
    '};',
  ].join('\n'),
  // Statements of an async generator's body (`yield` is allowed).
  'async-generator-body': ['export async function* example() {', '@block', '}'].join('\n'),
};

export interface BlockModule {
  block: ReadmeBlock;
  /** Virtual file name the module is checked as. */
  fileName: string;
  text: string;
  /** Module line (0-based) of the block's first line after its leading imports. */
  blockLine: number;
  /** Leading import lines of a fragment, kept at the module's top (lines 0…importLines-1). */
  importLines: number;
}

/** The lines of the block's leading import declarations, and the rest. */
function splitLeadingImports(code: string): { imports: string[]; body: string[] } {
  const source = ts.createSourceFile('fragment.ts', code, ts.ScriptTarget.Latest);
  let end = 0;
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement)) break;
    end = statement.end;
  }
  const count = end === 0 ? 0 : source.getLineAndCharacterOfPosition(end).line + 1;
  const lines = code.split('\n');
  return { imports: lines.slice(0, count), body: lines.slice(count) };
}

/** The module text a block is checked as (and, for runnable blocks, run as). */
export function toModule(block: ReadmeBlock, dir: string, index: number): BlockModule {
  const slug = block.label.replace(/[^\w]+/g, '-');
  const fileName = join(dir, `${String(index).padStart(2, '0')}-${slug}.ts`);
  if (block.fragment === undefined) {
    const head = [...block.prelude, 'export {};'];
    return { block, fileName, text: [...head, block.code].join('\n'), blockLine: head.length, importLines: 0 };
  }
  const wrapper = fragmentWrappers[block.fragment];
  if (wrapper === undefined) {
    throw new Error(`${block.label}: unknown fragment wrapper "${block.fragment}" (known: ${Object.keys(fragmentWrappers).join(', ')})`);
  }
  const [before = '', after = ''] = wrapper.split('@block');
  const { imports, body } = splitLeadingImports(block.code);
  // Imports first, so the block's lines keep their order and a line-for-line mapping.
  const head = [...imports, ...block.prelude, ...before.split('\n').slice(0, -1)];
  return {
    block,
    fileName,
    text: [...head, ...body, ...after.split('\n').slice(1)].join('\n'),
    blockLine: head.length - imports.length,
    importLines: imports.length,
  };
}

/** Compiler options of a strict user project: the workspace's base config, with no emit. */
function compilerOptions(root: string): ts.CompilerOptions {
  const configPath = join(root, 'tsconfig.base.json');
  const config = ts.readConfigFile(configPath, (path) => readFileSync(path, 'utf8'));
  if (config.error) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  return {
    ...parsed.options,
    noEmit: true,
    declaration: false,
    declarationMap: false,
    sourceMap: false,
    moduleDetection: ts.ModuleDetectionKind.Force,
    customConditions: ['@toolwire/source'],
  };
}

/** One message per type error, located at its README line: `packages/x/README.md:31: …`. */
export function checkModules(root: string, modules: BlockModule[]): Map<string, string[]> {
  const options = compilerOptions(root);
  const virtual = new Map(modules.map((m) => [m.fileName, m]));
  const base = ts.createCompilerHost(options, true);
  const host: ts.CompilerHost = {
    ...base,
    fileExists: (fileName) => virtual.has(fileName) || base.fileExists(fileName),
    readFile: (fileName) => virtual.get(fileName)?.text ?? base.readFile(fileName),
    getSourceFile: (fileName, languageVersion, onError, shouldCreate) => {
      const module = virtual.get(fileName);
      if (module !== undefined) return ts.createSourceFile(fileName, module.text, languageVersion, true);
      return base.getSourceFile(fileName, languageVersion, onError, shouldCreate);
    },
  };
  const program = ts.createProgram({ rootNames: [...virtual.keys()], options, host });
  const errors = new Map<string, string[]>();
  for (const module of modules) {
    const sourceFile = program.getSourceFile(module.fileName);
    if (sourceFile === undefined) throw new Error(`${module.block.label}: not in the program`);
    const diagnostics = [...program.getSyntacticDiagnostics(sourceFile), ...program.getSemanticDiagnostics(sourceFile)];
    errors.set(
      module.block.label,
      diagnostics.map((diagnostic) => {
        const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n  ');
        if (diagnostic.start === undefined) return `${module.block.label}: ${message}`;
        const { line } = sourceFile.getLineAndCharacterOfPosition(diagnostic.start);
        const blockIndex = line < module.importLines ? line : line - module.blockLine;
        const where =
          line < module.importLines || line >= module.blockLine + module.importLines
            ? `${module.block.readme}:${module.block.firstLine + blockIndex}`
            : `${module.block.label} (its example comment or wrapper)`;
        return `${where}: TS${diagnostic.code} ${message}`;
      }),
    );
  }
  return errors;
}
