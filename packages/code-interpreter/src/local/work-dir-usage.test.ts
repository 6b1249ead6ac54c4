import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, open, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { emptyWorkDir, measureWorkDir, removeWorkDirTree } from './work-dir-usage.ts';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'toolwire-usage-'));
  dirs.push(dir);
  return dir;
}

const MB = 1024 * 1024;
const roomy = { maxBytes: 1024 * MB, maxEntries: 100_000 };

describe('measureWorkDir', () => {
  it('counts what lies at any depth, in allocated blocks', async () => {
    const dir = await tempDir();
    let deep = dir;
    for (let i = 0; i < 20; i++) deep = join(deep, `d${i}`);
    await mkdir(deep, { recursive: true });
    await writeFile(join(deep, 'big.bin'), Buffer.alloc(3 * MB, 1));
    const usage = await measureWorkDir(dir, roomy);
    expect(usage.entries).toBe(21);
    expect(usage.bytes).toBeGreaterThanOrEqual(3 * MB);
    expect(usage.over).toBeUndefined();
    expect((await measureWorkDir(dir, { maxBytes: 2 * MB, maxEntries: 100 })).over).toBe('bytes');
  });

  it('counts a sparse file by the space it takes, not its length', async () => {
    const dir = await tempDir();
    const file = await open(join(dir, 'sparse.bin'), 'w');
    await file.truncate(512 * MB);
    await file.close();
    const usage = await measureWorkDir(dir, { maxBytes: MB, maxEntries: 10 });
    expect(usage.over).toBeUndefined();
    expect(usage.bytes).toBeLessThan(MB);
  });

  it('counts what lies under a name that is not UTF-8', async () => {
    const dir = await tempDir();
    // Python writes any bytes as a name; read back as UTF-8 this one would be U+FFFD and not found.
    const odd = Buffer.concat([Buffer.from(`${dir}/`), Buffer.from([0xff, 0xfe])]);
    await mkdir(odd);
    await writeFile(Buffer.concat([odd, Buffer.from('/big.bin')]), Buffer.alloc(3 * MB, 1));
    expect((await measureWorkDir(dir, { maxBytes: 2 * MB, maxEntries: 100 })).over).toBe('bytes');
    await emptyWorkDir(dir);
    expect((await measureWorkDir(dir, roomy)).entries).toBe(0);
  });

  it('counts a tree nested past PATH_MAX as over (depth), and empties it', async () => {
    const dir = await tempDir();
    // Relative paths let code nest as deep as it likes; the host cannot name what lies past 4096 bytes.
    const made = spawnSync('python3', ['-c', 'import os,sys\nos.chdir(sys.argv[1])\nfor i in range(24):\n  os.mkdir("d"*250); os.chdir("d"*250)\nopen("big.bin","wb").write(b"x"*3000000)', dir]);
    expect(made.status).toBe(0);
    expect((await measureWorkDir(dir, { maxBytes: 2 * MB, maxEntries: 100 })).over).toBe('depth');
    await emptyWorkDir(dir);
    expect(existsSync(dir)).toBe(true);
    expect(await measureWorkDir(dir, roomy)).toEqual({ bytes: 0, entries: 0, over: undefined });
    await mkdir(join(dir, 'again'));
    spawnSync('python3', ['-c', 'import os,sys\nos.chdir(sys.argv[1])\nfor i in range(24):\n  os.mkdir("d"*250); os.chdir("d"*250)', join(dir, 'again')]);
    await removeWorkDirTree(dir);
    expect(existsSync(dir)).toBe(false);
  });

  it('stops at the entries bound, and never follows a symlink', async () => {
    const dir = await tempDir();
    await Promise.all(Array.from({ length: 50 }, (_, i) => writeFile(join(dir, `f${i}`), '')));
    await symlink('/usr', join(dir, 'usr'));
    const usage = await measureWorkDir(dir, { maxBytes: 1024 * MB, maxEntries: 10 });
    expect(usage).toMatchObject({ over: 'entries', entries: 11 });
    // /usr holds far more than 51 entries: the link counts as one.
    expect((await measureWorkDir(dir, roomy)).entries).toBe(51);
  });
});

describe('measureWorkDir while the code runs', () => {
  const running = { ...roomy, codeRunning: true };

  it('counts the same as once it stopped: any depth, names that are not UTF-8, links as one entry', async () => {
    const dir = await tempDir();
    let deep = dir;
    for (let i = 0; i < 20; i++) deep = join(deep, `d${i}`);
    await mkdir(deep, { recursive: true });
    await writeFile(join(deep, 'big.bin'), Buffer.alloc(3 * MB, 1));
    const odd = Buffer.concat([Buffer.from(`${dir}/`), Buffer.from([0xff, 0xfe])]);
    await mkdir(odd);
    await writeFile(Buffer.concat([odd, Buffer.from('/f')]), 'x');
    await symlink('/usr', join(dir, 'usr'));
    const stopped = await measureWorkDir(dir, roomy);
    expect(stopped.entries).toBe(24);
    expect(await measureWorkDir(dir, running)).toEqual(stopped);
    expect(await measureWorkDir(dir, { ...running, maxBytes: 2 * MB })).toMatchObject({ over: 'bytes' });
    expect(await measureWorkDir(dir, { ...running, maxEntries: 5 })).toMatchObject({ over: 'entries', entries: 6 });
  });

  it('counts a tree nested past PATH_MAX as over (depth)', async () => {
    const dir = await tempDir();
    const made = spawnSync('python3', ['-c', 'import os,sys\nos.chdir(sys.argv[1])\nfor i in range(24):\n  os.mkdir("d"*250); os.chdir("d"*250)', dir]);
    expect(made.status).toBe(0);
    expect((await measureWorkDir(dir, running)).over).toBe('depth');
    await emptyWorkDir(dir);
  });

  it('falls back to the path walk when it runs out of descriptors, rather than counting nothing', async () => {
    const dir = await tempDir();
    let deep = dir;
    for (let i = 0; i < 100; i++) deep = join(deep, 'd');
    await mkdir(deep, { recursive: true });
    await writeFile(join(deep, 'big.bin'), Buffer.alloc(3 * MB, 1));
    const module = fileURLToPath(new URL('./work-dir-usage.ts', import.meta.url));
    const script = `const { measureWorkDir } = await import(${JSON.stringify(module)});
      console.log((await measureWorkDir(${JSON.stringify(dir)}, { maxBytes: 2 * 1024 * 1024, maxEntries: 1000, codeRunning: true })).over);`;
    // 100 nested directories need 200 descriptors held at once; the process gets 80.
    const run = spawnSync('prlimit', ['--nofile=80', process.execPath, '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('bytes\n');
  });
});

describe('emptyWorkDir', () => {
  it('empties the dir and keeps it', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'a', 'b'), { recursive: true });
    await writeFile(join(dir, 'a', 'b', 'x'), 'x');
    await writeFile(join(dir, 'y'), 'y');
    await emptyWorkDir(dir);
    expect(existsSync(dir)).toBe(true);
    expect((await measureWorkDir(dir, roomy)).entries).toBe(0);
  });

  it('removes directories sandboxed code made unreadable and unwritable, as a user that is not root', async () => {
    // As root `rm` ignores modes, so the case is run by an unprivileged uid (root: nobody's).
    const module = fileURLToPath(new URL('./work-dir-usage.ts', import.meta.url));
    const script = `
      import { existsSync } from 'node:fs';
      import { chmod, mkdir, mkdtemp, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
      import { tmpdir } from 'node:os';
      import { join } from 'node:path';
      const { emptyWorkDir, measureWorkDir, removeWorkDirTree } = await import(${JSON.stringify(module)});
      const dir = await mkdtemp(join(tmpdir(), 'toolwire-usage-unprivileged-'));
      const fill = async () => {
        await mkdir(join(dir, 'locked', 'inner'), { recursive: true });
        await writeFile(join(dir, 'locked', 'inner', 'data.bin'), Buffer.alloc(2 * 1024 * 1024, 1));
        await chmod(join(dir, 'locked', 'inner'), 0);
        await chmod(join(dir, 'locked'), 0o500);
      };
      await fill();
      const measured = await measureWorkDir(dir, { maxBytes: 2 ** 40, maxEntries: 1000 });
      await emptyWorkDir(dir);
      const emptied = existsSync(dir) && !existsSync(join(dir, 'locked'));
      // While the code runs the host chmods nothing: an unreadable directory is 'unreadable'.
      await fill();
      const running = await measureWorkDir(dir, { maxBytes: 2 ** 40, maxEntries: 1000, codeRunning: true });
      // A work dir the code made read-only, holding a link to a directory of the host's user:
      // emptied, the link removed, and nothing behind it touched.
      const outside = await mkdtemp(join(tmpdir(), 'toolwire-usage-outside-'));
      await mkdir(join(outside, 'sub'));
      await chmod(join(outside, 'sub'), 0o555);
      await symlink(outside, join(dir, 'link'));
      await chmod(dir, 0o500);
      await emptyWorkDir(dir);
      const emptiedReadOnly = existsSync(dir) && (await readdir(dir)).length === 0;
      const outsideMode = (await stat(join(outside, 'sub'))).mode & 0o777;
      await chmod(join(outside, 'sub'), 0o700);
      await rm(outside, { recursive: true });
      await fill();
      await chmod(dir, 0o500);
      await removeWorkDirTree(dir);
      console.log(JSON.stringify({ measuredBytes: measured.bytes, entries: measured.entries, emptied, running: running.over, emptiedReadOnly, outsideMode, removed: !existsSync(dir) }));
    `;
    const root = process.getuid?.() === 0;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000, ...(root ? { uid: 65534, gid: 65534 } : {}) });
    expect(run.stderr).toBe('');
    const outcome = JSON.parse(run.stdout) as { measuredBytes: number; entries: number; emptied: boolean; running: string; emptiedReadOnly: boolean; outsideMode: number; removed: boolean };
    expect(outcome.entries).toBe(3);
    expect(outcome.measuredBytes).toBeGreaterThanOrEqual(2 * 1024 * 1024);
    expect(outcome.emptied).toBe(true);
    expect(outcome.running).toBe('unreadable');
    expect(outcome.emptiedReadOnly).toBe(true);
    expect(outcome.outsideMode).toBe(0o555);
    expect(outcome.removed).toBe(true);
  });
});
