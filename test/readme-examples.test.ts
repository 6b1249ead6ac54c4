// Every ```ts block of every README, read from the README itself: type-checked as a user's
// module against the workspace packages, and run against stand-ins on 127.0.0.1 where it is
// marked `run`. The `<!-- example: … -->` convention is in the root README ("README examples").
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkModules, toModule } from './readme-examples/check-blocks.ts';
import type { BlockModule } from './readme-examples/check-blocks.ts';
import { findReadmes, readBlocks, readFences } from './readme-examples/readme-blocks.ts';
import type { ReadmeBlock } from './readme-examples/readme-blocks.ts';
import { instrument, matchesComment, runBlock } from './readme-examples/run-block.ts';
import type { BlockRun } from './readme-examples/run-block.ts';
import { helpOf, helpSection, programs, readmeCommands } from './readme-examples/shell-commands.ts';
import { startStandIn } from './readme-examples/stand-ins.ts';
import type { RunningStandIn } from './readme-examples/stand-ins.ts';

const root = resolve(import.meta.dirname, '..');
const readmes = findReadmes(root);
const blocks = readmes.flatMap((readme) => readBlocks(root, readme));
const modules = blocks.filter((block) => block.notChecked === undefined).map((block, i) => toModule(block, join(root, 'test/readme-examples/.blocks'), i));

// Blocks with known faults, checked in the same program, so the test shows it can fail and
// where it points: a type error, a deep import the package's `exports` does not offer, and an
// error inside a fragment.
const canaries: BlockModule[] = (
  [
    ["import { defineTool } from '@toolwire/core';\n\nconst limit: number = '10';", undefined],
    ["import { parseArguments } from '@toolwire/core/src/parse-arguments.ts';", undefined],
    ["// A tool list\ntools: [{ type: 'function', function: { nam: 'calculate' } }]", 'chat-completions-request'],
  ] as const
).map(([code, fragment], i) => {
  const block: ReadmeBlock = { label: `canary.md:${String(i * 10 + 1)}`, readme: 'canary.md', firstLine: i * 10 + 2, code, prelude: [], writes: [] };
  return toModule(fragment === undefined ? block : { ...block, fragment }, join(root, 'test/readme-examples/.blocks'), 100 + i);
});

describe('README examples', () => {
  it('reads the READMEs users read', () => {
    expect(readmes).toEqual(expect.arrayContaining(['README.md', 'packages/core/README.md', 'apps/server/README.md']));
    expect(blocks.length).toBeGreaterThanOrEqual(20);
  });

  describe('type-check as strict modules against the packages', () => {
    let errors = new Map<string, string[]>();
    beforeAll(() => {
      errors = checkModules(root, [...modules, ...canaries]);
    }, 120_000);

    it('reports a faulty block at its README line', () => {
      expect(errors.get('canary.md:1')).toEqual([expect.stringMatching(/^canary\.md:4: TS2322 /)]);
      expect(errors.get('canary.md:11')).toEqual([expect.stringMatching(/^canary\.md:12: TS2307 .*@toolwire\/core\/src\/parse-arguments/)]);
      expect(errors.get('canary.md:21')).toEqual([expect.stringMatching(/^canary\.md:23: TS2561 .*'nam'/)]);
    });

    for (const block of blocks) {
      if (block.notChecked !== undefined) {
        it(`${block.label} is not checked: ${block.notChecked}`, () => {
          expect(block.notChecked).not.toBe('');
        });
        continue;
      }
      it(`${block.label}${block.fragment === undefined ? '' : ` (fragment in ${block.fragment})`}`, () => {
        expect(errors.get(block.label) ?? ['not checked']).toEqual([]);
      });
    }
  });

  describe.concurrent('run against stand-ins', () => {
    const runnable = modules.filter((module) => module.block.run !== undefined);
    it('every runnable block is a whole module with nothing declared', () => {
      expect(runnable.length).toBeGreaterThan(0);
      for (const { block } of runnable) {
        expect(block.fragment, block.label).toBeUndefined();
        expect(block.prelude.filter((line) => line.startsWith('declare ')), block.label).toEqual([]);
      }
      for (const block of blocks.filter((b) => b.run === undefined)) {
        expect({ label: block.label, writes: block.writes, workingDirectory: block.workingDirectory }).toEqual({ label: block.label, writes: [], workingDirectory: undefined });
      }
    });

    for (const module of runnable) {
      const { block } = module;
      const standIn = block.run ?? 'none';
      describe(`${block.label}${standIn === 'none' ? '' : ` with the ${standIn} stand-in`}`, () => {
        let server: RunningStandIn | undefined;
        let run: BlockRun | undefined;
        beforeAll(async () => {
          server = await startStandIn(standIn, root);
          run = await runBlock(root, module, { env: server.env, replace: server.replace, timeoutMs: 45_000 });
        }, 60_000);
        afterAll(async () => {
          await server?.close();
          if (run !== undefined) rmSync(run.cwd, { recursive: true, force: true });
        });

        it('exits 0', () => {
          expect({ exitCode: run!.exitCode, stderr: run!.stderr }, `stdout:\n${run!.stdout}`).toEqual({ exitCode: 0, stderr: '' });
          if (standIn !== 'none') expect(server!.requests).toBeGreaterThan(0);
        });

        const shownCount = instrument(module, []).marks.length;
        if (shownCount > 0) {
          it(`produces the ${String(shownCount)} value(s) its comments show`, () => {
            expect(run!.shown.length).toBe(shownCount);
            for (const shown of run!.shown) {
              const matched = shown.produced.some((value) => matchesComment(shown.comment, value));
              expect(matched, `${shown.where} shows ${shown.comment}\nbut produced: ${shown.produced.join('\n') || '(nothing)'}`).toBe(true);
            }
          });
        }

        if (block.writes.length > 0) {
          it('leaves the files it writes', () => {
            for (const file of block.writes) expect(existsSync(join(run!.cwd, file)), file).toBe(true);
          });
        }
      });
    }
  });
});

describe('package README install lines', () => {
  // The conformance suite runs inside the provider author's own test runner.
  const testRunners = new Set(['vitest']);
  const packageOf = (specifier: string): string => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

  for (const readme of readmes.filter((r) => r.startsWith('packages/'))) {
    it(`${readme}: its pnpm add line installs every package its examples import`, () => {
      const fences = readFences(root, readme);
      const installed = fences
        .filter((fence) => fence.language === 'sh')
        .flatMap((fence) => fence.code.split('\n'))
        .filter((line) => line.startsWith('pnpm add '))
        .flatMap((line) => line.slice('pnpm add '.length).split('#')[0]?.trim().split(/\s+/) ?? []);
      expect(installed.length, `${readme} has no pnpm add line`).toBeGreaterThan(0);
      const missing = readBlocks(root, readme).flatMap((block) =>
        ts
          .preProcessFile(block.code)
          .importedFiles.map((file) => file.fileName)
          .filter((specifier) => !specifier.startsWith('node:') && !specifier.startsWith('.'))
          .map(packageOf)
          .filter((name) => !installed.includes(name) && !testRunners.has(name))
          .map((name) => `${block.label} imports ${name}`),
      );
      expect(missing).toEqual([]);
    });
  }
});

describe('README shell commands', () => {
  const shellFences = readmes.flatMap((readme) => readFences(root, readme)).filter((fence) => ['sh', 'bash', 'shell'].includes(fence.language));
  const commands = shellFences.flatMap(readmeCommands);
  const helps = new Map<string, Promise<string>>();
  const help = (program: string, path: string[]): Promise<string> => {
    const key = [program, ...path].join(' ');
    let text = helps.get(key);
    if (text === undefined) helps.set(key, (text = helpOf(root, program, path)));
    return text;
  };

  it('finds the toolwire commands of the CLI and gateway READMEs', () => {
    const where = new Set(commands.map((c) => c.where.split(':')[0]));
    expect([...where].sort()).toEqual(['apps/cli/README.md', 'apps/server/README.md']);
    expect(commands.length).toBeGreaterThanOrEqual(10);
  });

  it.concurrent.each(commands.map((c) => [`${c.where}: ${c.program} ${c.args.join(' ')}`, c] as const))('%s names a real subcommand and real flags', async (_, command) => {
    // Walk down the subcommands the command names, then look its flags up in the last --help.
    const path: string[] = [];
    let text = await help(command.program, path);
    for (const arg of command.args) {
      if (arg.startsWith('-')) break;
      if (!helpSection(text, 'Commands').includes(arg)) break;
      path.push(arg);
      text = await help(command.program, path);
    }
    if (command.args.length > 0 && !command.args[0]?.startsWith('-')) {
      expect(path, `${command.where}: "${command.args[0] ?? ''}" is not a ${command.program} command`).not.toEqual([]);
    }
    const known = helpSection(text, 'Options');
    expect(known.length, text).toBeGreaterThan(0);
    for (const arg of command.args) {
      if (!/^--?[\w]/.test(arg)) continue;
      const flag = arg.split('=')[0] ?? arg;
      expect(known, `${command.where}: ${[command.program, ...path].join(' ')} has no ${flag}`).toContain(flag);
    }
  });

  it('runs the offline extract line as written and prints the call as a table', () => {
    const command = commands.find((c) => c.program === 'toolwire' && c.args[0] === 'extract');
    expect(command).toBeDefined();
    const bin = mkdtempSync(join(tmpdir(), 'toolwire-readme-bin-'));
    try {
      const shim = join(bin, 'toolwire');
      writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" --conditions=@toolwire/source "${join(root, programs.toolwire ?? '')}" "$@"\n`);
      chmodSync(shim, 0o755);
      const run = spawnSync('bash', ['-euo', 'pipefail', '-c', command?.line ?? ''], {
        env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}`, NO_COLOR: '1' },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
      expect(run.stdout).toMatch(/get_weather/);
      expect(run.stdout).toMatch(/Paris/);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });
});

describe('the example comment', () => {
  const readmeWith = (text: string): string => {
    const dir = mkdtempSync(join(tmpdir(), 'toolwire-readme-comment-'));
    writeFileSync(join(dir, 'README.md'), text);
    return dir;
  };

  it('reads its clauses, one per line', () => {
    const dir = readmeWith(
      "<!-- example:\n  run with openai\n  working directory /srv/x\n  writes out.txt\n  import type { ChatModel } from '@toolwire/core'\n-->\n```ts\nlet a = 1;\n```\n",
    );
    try {
      expect(readBlocks(dir, 'README.md')).toEqual([
        {
          label: 'README.md:7',
          readme: 'README.md',
          firstLine: 8,
          code: 'let a = 1;',
          prelude: ["import type { ChatModel } from '@toolwire/core';"],
          run: 'openai',
          workingDirectory: '/srv/x',
          writes: ['out.txt'],
        },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a clause it does not know, a stand-in it does not have, and a reason left out', () => {
    for (const [clause, message] of [
      ['skip', /unknown clause "skip"/],
      ['run with anthropic', /unknown stand-in "anthropic"/],
      ['not checked:', /needs a reason/],
    ] as const) {
      const dir = readmeWith(`<!-- example: ${clause} -->\n\`\`\`ts\nlet a = 1;\n\`\`\`\n`);
      try {
        expect(() => readBlocks(dir, 'README.md')).toThrow(message);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });
});

describe('a README comment matches a produced value', () => {
  it('without regard to whitespace or quote style', () => {
    expect(matchesComment(`"It is 21 °C in Paris." "answer"`, `'It is 21 °C in Paris.' 'answer'`)).toBe(true);
    expect(matchesComment(`[{ id: 'search_0' }]`, `[ { id: 'search_0' } ]`)).toBe(true);
  });

  it('with … standing for anything, and nothing else loose', () => {
    expect(matchesComment(`{ id: 'call_…', city: 'Paris' }`, `{ id: 'call_0', city: 'Paris' }`)).toBe(true);
    expect(matchesComment(`{ id: 'call_…', city: 'Paris' }`, `{ id: 'call_0', city: 'Rome' }`)).toBe(false);
    expect(matchesComment(`{ value: 3 }`, `{ value: 3, extra: 1 }`)).toBe(false);
  });

  it('with a bare key in braces standing for that key with any value', () => {
    expect(matchesComment(`{ ok: true, stats: { cpuMs, wallMs } }`, `{ ok: true, stats: { cpuMs: 0.2, wallMs: 0.5 } }`)).toBe(true);
    expect(matchesComment(`{ exitCode, signal }`, `{ exitCode: 0 }`)).toBe(false);
  });
});
