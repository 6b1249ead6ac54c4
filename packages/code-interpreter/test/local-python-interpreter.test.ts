import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidToolConfigError } from '@toolwire/core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { InterpreterUnavailableError, localCodeInterpreter } from '../src/index.ts';
import type {
  CodeInterpreterEvent,
  CodeInterpreterValue,
  LocalCodeInterpreter,
  LocalCodeInterpreterOptions,
  SandboxBackend,
} from '../src/index.ts';
import { SandboxUnavailableError } from '@toolwire/sandbox';
import type { RunCommandOptions } from '@toolwire/sandbox';

let root: string;
const interpreters: LocalCodeInterpreter[] = [];

function python(options: Partial<LocalCodeInterpreterOptions> = {}): LocalCodeInterpreter {
  const interpreter = localCodeInterpreter({ language: 'python', root, ...options });
  interpreters.push(interpreter);
  return interpreter;
}

function valueOf(result: { value?: unknown }): CodeInterpreterValue {
  return result.value as CodeInterpreterValue;
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'toolwire-ci-local-'));
  // Searchable by the uid the sandbox may run code as (root without a writable pids
  // cgroup: 65534), as the README asks of a root passed in; mkdtemp makes it 0700.
  await chmod(root, 0o755);
});
afterEach(async () => {
  await Promise.all(interpreters.splice(0).map((i) => i.dispose()));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('localCodeInterpreter (python)', () => {
  it('returns stdout as the message, with the last expression printed like a notebook', async () => {
    const result = await python().run('print("rolling")\ntotal = sum(range(10))\ntotal * 2', { toolCallId: 'call_1' });
    expect(result).toMatchObject({ toolCallId: 'call_1', name: 'run_python', success: true, message: 'rolling\n90\n' });
    const value = valueOf(result);
    expect(value).toMatchObject({ stdout: 'rolling\n90\n', stderr: '', exitCode: 0, files: [], outputs: [{ type: 'logs', logs: 'rolling\n90\n' }] });
    expect(value.containerId).toMatch(/^local:/);
    expect(value.code).toContain('total * 2');
  });

  it('reports a Python exception as a failure with the traceback in stderr', async () => {
    const result = await python().run('print("before")\nimport os\nos.path.getsize(missing_name)');
    expect(result.success).toBe(false);
    expect(result.error?.type).toBe('execution_error');
    const value = valueOf(result);
    expect(value.exitCode).toBe(1);
    expect(value.stdout).toBe('before\n');
    expect(value.stderr).toContain('Traceback (most recent call last):');
    expect(value.stderr).toContain('File "<cell>", line 3');
    expect(value.stderr).toContain("NameError: name 'missing_name' is not defined");
    expect(value.stderr).not.toContain('exec(compile');
    expect(result.message).toContain('NameError');
  });

  it('reports a syntax error with the line it is on', async () => {
    const value = valueOf(await python().run('x = 1\ndef broken(:\n    pass'));
    expect(value.stderr).toContain('line 2');
    expect(value.stderr).toContain('SyntaxError');
  });

  it('stops code that runs past the timeout and says so', async () => {
    const result = await python({ timeoutMs: 1000 }).run('while True:\n    pass');
    expect(result.success).toBe(false);
    expect(result.error?.type).toBe('timeout');
    expect(result.message).toContain('Timed out after 1000 ms');
  });

  it('lists a file the code wrote, with its path, and keeps it for the next call of the conversation', async () => {
    const interpreter = python();
    const first = await interpreter.run('import os\nos.makedirs("out", exist_ok=True)\nopen("out/report.csv", "w").write("a,b\\n1,2\\n")', {
      conversation: 'c1',
    });
    const [file] = valueOf(first).files;
    expect(file).toMatchObject({ fileId: 'out/report.csv', filename: 'report.csv', bytes: 8, containerId: valueOf(first).containerId });
    expect(existsSync(file!.path!)).toBe(true);
    expect(first.message).toContain('[files: out/report.csv]');

    const second = await interpreter.run('open("out/report.csv").read()', { conversation: 'c1' });
    expect(second.message).toBe("'a,b\\n1,2\\n'\n");
    expect(valueOf(second).files).toEqual([]);
    expect(valueOf(second).containerId).toBe(valueOf(first).containerId);

    const other = await interpreter.run('import os\nos.path.exists("out/report.csv")', { conversation: 'c2' });
    expect(other.message).toBe('False\n');
    expect(valueOf(other).containerId).not.toBe(valueOf(first).containerId);
  });

  it('runs calls of one conversation one after another, so each lists only its own files', async () => {
    const interpreter = python();
    const [a, b] = await Promise.all([
      interpreter.run('import time\nopen("a.txt", "w").write("a")\ntime.sleep(0.3)', { conversation: 'same' }),
      interpreter.run('open("b.txt", "w").write("b")', { conversation: 'same' }),
    ]);
    expect(valueOf(a).files.map((f) => f.fileId)).toEqual(['a.txt']);
    expect(valueOf(b).files.map((f) => f.fileId)).toEqual(['b.txt']);
  });

  it('returns a written image as a data-URL image output, as OpenAI does', async () => {
    // A 1x1 PNG, written without any third-party library.
    const code = [
      'import base64',
      'png = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")',
      'open("plot.png", "wb").write(png)',
    ].join('\n');
    const value = valueOf(await python().run(code));
    expect(value.outputs).toContainEqual({ type: 'image', url: expect.stringMatching(/^data:image\/png;base64,iVBORw0KGgo/) });
    expect(value.files.map((f) => f.filename)).toEqual(['plot.png']);
  });

  it('does not follow a symlink the code planted in its work dir', async () => {
    const value = valueOf(await python().run('import os\nos.symlink("/etc/hostname", "leak.png")\nopen("real.txt", "w").write("x")'));
    expect(value.files.map((f) => f.fileId)).toEqual(['real.txt']);
    expect(value.outputs.filter((o) => o.type === 'image')).toEqual([]);
  });

  it('bounds the images it inlines in total: 300 sparse 2 MB PNGs are listed, not read into memory', async () => {
    const code = 'for i in range(300):\n    open(f"img{i:03}.png", "wb").truncate(2 * 1024 * 1024)';
    const value = valueOf(await python({ timeoutMs: 30_000 }).run(code));
    expect(value.files).toHaveLength(300);
    const inlined = value.outputs.reduce((sum, output) => sum + (output.type === 'image' ? output.url.length : 0), 0);
    expect(inlined).toBeLessThan(12 * 1024 * 1024);
  });

  it('refuses network access', async () => {
    let connections = 0;
    const server = createServer((_req, res) => res.end('reached'));
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const result = await python().run(`import urllib.request\nurllib.request.urlopen("http://127.0.0.1:${port}/", timeout=3).read()`);
      expect(result.success).toBe(false);
      expect(valueOf(result).stderr).toMatch(/URLError|ConnectionRefused|Network is unreachable/);
      expect(connections).toBe(0);
    } finally {
      server.close();
    }
  });

  it('caps memory', async () => {
    const result = await python({ memoryLimitMb: 128 }).run('block = bytearray(512 * 1024 * 1024)');
    expect(result.success).toBe(false);
    expect(valueOf(result).stderr).toContain('MemoryError');
  });

  it('asks runCommand for no network, bubblewrap, the limits and a cleared environment', async () => {
    const seen: RunCommandOptions[] = [];
    const runCommand: SandboxBackend['runCommand'] = async (options) => {
      seen.push(options);
      return { exitCode: 0, signal: null, stdout: '2\n', stderr: '', timedOut: false, truncated: false, durationMs: 1 };
    };
    const result = await python({ sandbox: { runCommand }, timeoutMs: 1234, memoryLimitMb: 256 }).run('1 + 1');
    expect(result.message).toBe('2\n');
    const [options] = seen;
    expect(options).toMatchObject({ network: false, isolation: 'bubblewrap', timeoutMs: 1234, limits: { memoryMb: 256 } });
    expect(options!.command[0]).toMatch(/^\/.*python3/);
    expect(options!.command).toContain('1 + 1');
    expect(Object.keys(options!.env ?? {}).sort()).toEqual(['MPLBACKEND', 'PYTHONIOENCODING', 'PYTHONUNBUFFERED']);
    expect(options!.cwd.startsWith(root)).toBe(true);
  });

  it('passes on the sandbox error when bubblewrap cannot run', async () => {
    const unavailable = new SandboxUnavailableError({ missing: 'bubblewrap', detail: 'bwrap was not found' });
    const error = await python({ sandbox: { runCommand: () => Promise.reject(unavailable) } })
      .run('1')
      .catch((e: unknown) => e);
    expect(error).toBe(unavailable);
  });

  it('explains how to fix a missing python3', async () => {
    const error = await python({ pythonPath: '/nonexistent/python3' })
      .run('1')
      .catch((e: unknown) => e);
    expect(InterpreterUnavailableError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('apt-get install python3');
    expect((error as Error).message).toContain('pythonPath');
  });

  it('removes a work dir after the idle time and reports it', async () => {
    const events: CodeInterpreterEvent[] = [];
    const interpreter = python({ idleTimeoutMs: 50, onEvent: (e) => events.push(e) });
    const result = await interpreter.run('open("a.txt", "w").write("x")');
    const dir = valueOf(result).files[0]!.path!.replace(/\/a\.txt$/, '');
    await vi.waitFor(() => expect(events.map((e) => e.type)).toEqual(['local-run', 'work-dir-removed']), { timeout: 5000 });
    expect(existsSync(dir)).toBe(false);
    expect(events[1]).toMatchObject({ reason: 'idle', containerId: valueOf(result).containerId });
  });

  it('removes every work dir on dispose', async () => {
    const interpreter = python();
    await interpreter.run('1', { conversation: 'a' });
    await interpreter.run('1', { conversation: 'b' });
    expect((await readdir(root)).length).toBeGreaterThanOrEqual(2);
    await interpreter.dispose();
    expect(await readdir(root)).toEqual([]);
  });

  it('stops a run under way before dispose removes its work dir: code swapping a directory for a symlink cannot make the host delete what it points at', { timeout: 60_000 }, async () => {
    // A host directory the sandboxed code cannot write, only name.
    const victim = await mkdtemp(join(tmpdir(), 'toolwire-ci-victim-'));
    try {
      await Promise.all(Array.from({ length: 500 }, (_, i) => writeFile(join(victim, `v${i}`), 'keep')));
      const interpreter = python({ timeoutMs: 30_000 });
      const code = [
        'import os',
        'for j in range(3):',
        '    os.mkdir(f"d{j}")',
        '    for i in range(500): open(f"d{j}/v{i}", "w").close()',
        'open("ready", "w").close()',
        'while True:',
        '    for j in range(3):',
        '        try:',
        `            os.rename(f"d{j}", f"x{j}"); os.symlink(${JSON.stringify(victim)}, f"d{j}")`,
        '            os.unlink(f"d{j}"); os.rename(f"x{j}", f"d{j}")',
        '        except OSError: pass',
      ].join('\n');
      let settled = false;
      const run = interpreter.run(code).finally(() => {
        settled = true;
      });
      await vi.waitFor(
        async () => {
          const dirs = await readdir(root);
          expect(dirs.some((name) => existsSync(join(root, name, 'ready')))).toBe(true);
        },
        { timeout: 20_000, interval: 50 },
      );
      await interpreter.dispose();
      // Stopped before its work dir was removed, not left running to its timeout.
      expect(settled).toBe(true);
      const result = await run;
      expect(result.success).toBe(false);
      expect(result.message).toContain('stopped because the interpreter was disposed');
      expect(await readdir(root)).toEqual([]);
      expect((await readdir(victim)).length).toBe(500);
    } finally {
      await rm(victim, { recursive: true, force: true });
    }
  });

  it('runs again after dispose, in a new work dir', async () => {
    const interpreter = python();
    await interpreter.run('open("a.txt", "w").write("x")');
    await interpreter.dispose();
    const result = await interpreter.run('import os\nsorted(os.listdir("."))');
    expect(result).toMatchObject({ success: true, message: '[]\n' });
  });

  it('validates arguments with a message the model can act on', () => {
    const tool = python();
    expect(tool.validate({ code: 'print(1)' })).toEqual({ success: true, value: { code: 'print(1)' } });
    const invalid = tool.validate({ source: 'print(1)' });
    if (invalid.success) throw new Error('expected a validation failure');
    expect(invalid.message).toContain('{"code"');
  });

  it('is a plain function tool any provider can offer', () => {
    const tool = python();
    expect(tool).toMatchObject({ type: 'function', name: 'run_python', inputSchema: { required: ['code'] } });
    expect(tool.description).toContain('without network access');
  });

  it('rejects invalid options before running anything', () => {
    expect(() => localCodeInterpreter({ language: 'ruby' as never })).toThrow(InvalidToolConfigError);
    expect(() => localCodeInterpreter({ language: 'python', timeoutMs: -1 })).toThrow(/timeoutMs must be a positive number/);
    expect(() => localCodeInterpreter({ language: 'python', isolation: 'docker' as never })).toThrow(InvalidToolConfigError);
  });
});

describe('localCodeInterpreter (python): the work dir quota', () => {
  const workDirOf = (result: { value?: unknown }): string => {
    const { containerId } = valueOf(result);
    return join(root, `toolwire-ci-${containerId.slice('local:'.length)}`);
  };

  it('stops a run that keeps writing past maxWorkDirMb, long before its timeout, and empties the work dir', async () => {
    const interpreter = python({ maxWorkDirMb: 8, timeoutMs: 60_000 });
    await interpreter.run('open("keep.txt", "w").write("earlier")', { conversation: 'q' });
    const started = performance.now();
    const result = await interpreter.run('import os\nchunk = os.urandom(1024 * 1024)\ni = 0\nwhile True:\n    with open(f"part{i % 64}.bin", "wb") as f:\n        f.write(chunk * 2)\n    i += 1', {
      conversation: 'q',
    });
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(result.success).toBe(false);
    expect(result.error?.type).toBe('execution_error');
    expect(result.message).toMatch(/more than 8 MB of disk \(maxWorkDirMb\), so it was stopped and the work dir was emptied/);
    expect(valueOf(result).files).toEqual([]);
    expect(await readdir(workDirOf(result))).toEqual([]);
    // The conversation goes on in its (empty) work dir.
    const next = await interpreter.run('import os\nsorted(os.listdir("."))', { conversation: 'q' });
    expect(next.message).toBe('[]\n');
  });

  it('catches what a run writes in one go right before it ends (measured again once it stopped)', async () => {
    const result = await python({ maxWorkDirMb: 8 }).run('open("burst.bin", "wb").write(b"x" * (20 * 1024 * 1024))');
    expect(result.success).toBe(false);
    expect(result.message).toMatch(/maxWorkDirMb/);
    expect(await readdir(workDirOf(result))).toEqual([]);
  });

  it('stops a run that creates files past maxWorkDirFiles, at any depth', async () => {
    const result = await python({ maxWorkDirFiles: 300, timeoutMs: 60_000 }).run(
      'import os\npath = "."\nfor depth in range(30):\n    path = os.path.join(path, f"d{depth}")\nos.makedirs(path)\ni = 0\nwhile True:\n    open(os.path.join(path, f"f{i}"), "w").close()\n    i += 1',
    );
    expect(result.success).toBe(false);
    expect(result.message).toMatch(/more than 300 files and directories \(maxWorkDirFiles\)/);
    expect(await readdir(workDirOf(result))).toEqual([]);
  });

  it('cannot hide files past PATH_MAX or under names that are not UTF-8: the run is stopped and everything removed', async () => {
    const interpreter = python({ maxWorkDirMb: 8 });
    const deep = await interpreter.run('import os\nfor i in range(24):\n    os.mkdir("d" * 250)\n    os.chdir("d" * 250)\nopen("hidden.bin", "wb").write(b"x" * (20 * 1024 * 1024))', { conversation: 'deep' });
    expect(deep.success).toBe(false);
    expect(deep.message).toMatch(/deeper than the host can measure/);
    expect(await readdir(workDirOf(deep))).toEqual([]);
    const odd = await interpreter.run('import os\nos.mkdir(b"\\xff")\nopen(b"\\xff/hidden.bin", "wb").write(b"x" * (20 * 1024 * 1024))', { conversation: 'odd' });
    expect(odd.success).toBe(false);
    expect(odd.message).toMatch(/maxWorkDirMb/);
    expect(await readdir(workDirOf(odd))).toEqual([]);
  });

  it('never measures a host directory the code swaps in for one of its own while it runs', { timeout: 30_000 }, async () => {
    // 70 entries of its own under a bound of 100; /etc behind a link holds far more.
    const code = [
      'import os, time',
      'for i in range(40): open(f"f{i}", "w").close()',
      'for j in range(30): os.mkdir(f"x{j}")',
      'end = time.time() + 4',
      'while time.time() < end:',
      '    for j in range(30):',
      '        os.rename(f"x{j}", "y"); os.symlink("/etc", f"x{j}"); os.unlink(f"x{j}"); os.rename("y", f"x{j}")',
      'print("kept")',
    ].join('\n');
    const result = await python({ maxWorkDirFiles: 100, timeoutMs: 20_000 }).run(code);
    expect(result.message).not.toMatch(/maxWorkDirFiles/);
    expect(result).toMatchObject({ success: true });
    expect(result.message).toMatch(/^kept\n/);
  });

  it('counts the space a sparse file takes, not its length', async () => {
    const result = await python({ maxWorkDirMb: 8 }).run('with open("sparse.bin", "wb") as f:\n    f.truncate(200 * 1024 * 1024)\nprint("ok")');
    expect(result.success).toBe(true);
    expect(valueOf(result).files.map((f) => f.fileId)).toEqual(['sparse.bin']);
  });

  it('rejects a quota that is not a positive number', () => {
    expect(() => localCodeInterpreter({ language: 'python', maxWorkDirMb: 0 })).toThrow(InvalidToolConfigError);
    expect(() => localCodeInterpreter({ language: 'python', maxWorkDirFiles: -1 })).toThrow(/maxWorkDirFiles/);
  });
});

describe('localCodeInterpreter (python) without isolation', () => {
  it.runIf(process.getuid?.() === 0)('returns a result when the work dir cannot be emptied (a file made immutable, as root without isolation)', { timeout: 30_000 }, async () => {
    const interpreter = python({ isolation: 'none', maxWorkDirMb: 8 });
    const code = 'import subprocess\nopen("big.bin", "wb").write(b"x" * (20 * 1024 * 1024))\nopen("stuck", "w").close()\nsubprocess.run(["chattr", "+i", "stuck"], check=True)';
    try {
      const result = await interpreter.run(code);
      expect(result.success).toBe(false);
      expect(result.message).toMatch(/maxWorkDirMb\), so it was stopped; emptying the work dir failed \(EPERM/);
    } finally {
      // Whatever happened, nothing immutable is left behind for the cleanup.
      for (const name of await readdir(root)) spawnSync('chattr', ['-i', join(root, name, 'stuck')]);
    }
  });
  it.runIf(process.platform === 'linux')('kills what a run leaves running in its own session when the run ends', { timeout: 30_000 }, async () => {
    const code = 'import subprocess\np = subprocess.Popen(["sleep", "30"], start_new_session=True)\nprint(p.pid)';
    const result = await python({ isolation: 'none' }).run(code);
    expect(result.success).toBe(true);
    const pid = Number(valueOf(result).stdout.trim());
    expect(pid).toBeGreaterThan(1);
    // Gone, or a zombie not yet reaped, by the time the run answered.
    const state = () => {
      try {
        return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').at(-1)?.[0];
      } catch {
        return undefined;
      }
    };
    try {
      expect([undefined, 'Z']).toContain(state());
    } finally {
      if (state() !== undefined) process.kill(pid, 'SIGKILL');
    }
  });
});
