import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSandboxSupport, runCommand } from '../src/index.ts';
import type { AuditEvent } from '../src/index.ts';
import { sandboxTempDir, writableBySandbox } from './sandbox-dirs.ts';

let base: string;
let cwd: string;
let outside: string;

beforeAll(() => {
  base = sandboxTempDir(tmpdir(), 'toolwire-sbx-');
  cwd = join(base, 'work');
  outside = join(base, 'outside');
  mkdirSync(cwd);
  writableBySandbox(cwd);
  mkdirSync(join(outside, '.ssh'), { recursive: true });
  writeFileSync(join(outside, 'secret.txt'), 'TOP-SECRET-OUTSIDE');
  writeFileSync(join(outside, '.ssh', 'id_ed25519'), 'PRIVATE-KEY-MATERIAL');
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

function hostAlive(): void {
  const probe = spawnSync('/bin/echo', ['alive'], { encoding: 'utf8' });
  expect(probe.stdout).toBe('alive\n');
}

describe('runCommand under bubblewrap', () => {
  it('runs a command in cwd and returns its output and exit code', async () => {
    const result = await runCommand({ command: ['sh', '-c', 'echo out; echo err >&2; pwd; exit 3'], cwd });
    expect(result).toMatchObject({ exitCode: 3, stdout: `out\n${cwd}\n`, stderr: 'err\n', timedOut: false, truncated: false });
    expect(result.durationMs).toBeGreaterThan(0);
  });

  it('reports a command’s own exit 125 as its exit, and keeps the cgroup join’s status pipe from it', async () => {
    // Where commands join a cgroup, a failed join is told apart on a pipe the command never sees.
    const result = await runCommand({ command: ['sh', '-c', 'echo "could not join x" >&4 || echo closed; exit 125'], cwd });
    expect(result).toMatchObject({ exitCode: 125, stdout: 'closed\n' });
  });

  it('lets the command write inside cwd only', async () => {
    const result = await runCommand({
      command: ['sh', '-c', `echo ok > inside.txt; echo x > ${outside}/planted.txt; echo x > /etc/planted; echo x > /usr/planted; echo x > /planted; echo done`],
      cwd,
    });
    expect(result.stdout).toBe('done\n');
    expect(readFileSync(join(cwd, 'inside.txt'), 'utf8')).toBe('ok\n');
    expect(existsSync(join(outside, 'planted.txt'))).toBe(false);
    expect(existsSync('/etc/planted')).toBe(false);
    expect(existsSync('/usr/planted')).toBe(false);
    expect(result.stderr.split('\n').filter((l) => l.includes('planted')).length).toBe(4);
    hostAlive();
  });

  it('cannot read /etc/shadow, ~/.ssh, files outside cwd or the host root home', async () => {
    const result = await runCommand({
      command: ['sh', '-c', `cat /etc/shadow; cat ${outside}/secret.txt; cat ${outside}/.ssh/id_ed25519; ls /root/.ssh; ls /home; cat $HOME/.ssh/id_rsa; echo end`],
      cwd,
    });
    expect(result.stdout).toBe('end\n');
    expect(result.stdout + result.stderr).not.toContain('TOP-SECRET');
    expect(result.stdout + result.stderr).not.toContain('PRIVATE-KEY');
    expect(result.stdout + result.stderr).not.toMatch(/root:[^:]*:\d/);
    hostAlive();
  });

  it('keeps the caller’s environment out: no OPENAI_API_KEY, not even in /proc/1/environ', async () => {
    process.env.OPENAI_API_KEY = 'sk-test-must-not-leak';
    try {
      const result = await runCommand({
        command: ['sh', '-c', 'env; for f in /proc/[0-9]*/environ; do tr "\\0" "\\n" < $f; done'],
        cwd,
        env: { EXTRA: 'given' },
      });
      expect(result.stdout).not.toContain('sk-test-must-not-leak');
      expect(result.stdout).not.toContain('OPENAI_API_KEY');
      const names = result.stdout.split('\n').filter((l) => l.includes('=')).map((l) => l.slice(0, l.indexOf('=')));
      expect(new Set(names)).toEqual(new Set(['PATH', 'HOME', 'LANG', 'EXTRA', 'PWD']));
    } finally {
      delete process.env.OPENAI_API_KEY;
    }
  });

  it('runs without capabilities, as an unprivileged uid, with no_new_privs', async () => {
    const result = await runCommand({ command: ['sh', '-c', 'id -u; grep -E "^(CapEff|NoNewPrivs)" /proc/self/status'], cwd });
    expect(result.stdout).toMatch(/^1000\n/);
    expect(result.stdout).toContain('CapEff:\t0000000000000000');
    expect(result.stdout).toContain('NoNewPrivs:\t1');
  });

  it('stops a fork bomb at the process limit', async () => {
    const result = await runCommand({
      command: ['bash', '-c', 'bomb() { bomb | bomb & }; bomb; sleep 1; echo survived-host'],
      cwd,
      timeoutMs: 4000,
      limits: { processes: 64 },
    });
    expect(result.timedOut || result.exitCode !== null).toBe(true);
    expect(result.stderr).toContain('Resource temporarily unavailable');
    hostAlive();
  });

  it('kills `sleep 600` at a 1 s timeout, whole group, TERM-trapping children included', async () => {
    const marker = `toolwire-sleeper-${process.pid}`;
    const result = await runCommand({
      command: ['bash', '-c', `trap "" TERM; (exec -a ${marker} sleep 600) & sleep 600`],
      cwd,
      timeoutMs: 1000,
    });
    expect(result.timedOut).toBe(true);
    expect(result.durationMs).toBeLessThan(10_000);
    const survivors = spawnSync('pgrep', ['-f', marker], { encoding: 'utf8' });
    expect(survivors.stdout).toBe('');
    hostAlive();
  });

  it('kills the whole group when its signal aborts, and starts nothing for an aborted signal', async () => {
    const events: AuditEvent[] = [];
    const controller = new AbortController();
    const running = runCommand({ command: ['sh', '-c', 'trap "" TERM; sleep 60 & sleep 60'], cwd, timeoutMs: 60_000, signal: controller.signal, onAudit: (e) => events.push(e) });
    setTimeout(() => controller.abort(), 200);
    const bound = new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 10_000).unref());
    const result = await Promise.race([running, bound]);
    expect(result).toMatchObject({ timedOut: false, exitCode: null });
    expect(events).toMatchObject([{ outcome: 'aborted' }]);
    await expect(runCommand({ command: ['touch', 'never-made'], cwd, signal: controller.signal })).rejects.toThrow();
    expect(existsSync(join(cwd, 'never-made'))).toBe(false);
  });

  it('discards output past maxOutputBytes while it streams (1 GB flood)', async () => {
    const before = process.memoryUsage().rss;
    const result = await runCommand({ command: ['head', '-c', '1000000000', '/dev/zero'], cwd, timeoutMs: 8000, maxOutputBytes: 1024 * 1024 });
    expect(result.truncated).toBe(true);
    expect(result.stdout.length).toBe(1024 * 1024);
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
    hostAlive();
  });

  it('caps memory (address space) and CPU time', async () => {
    const memory = await runCommand({
      command: ['bash', '-c', 'x=$(head -c 200000000 /dev/zero | tr "\\0" a); echo ${#x}'],
      cwd,
      limits: { memoryMb: 64 },
    });
    expect(memory.stdout).not.toBe('200000000\n');
    const cpu = await runCommand({ command: ['bash', '-c', 'while :; do :; done'], cwd, timeoutMs: 20_000, limits: { cpuSeconds: 1 } });
    expect(cpu.timedOut).toBe(false);
    // bubblewrap's init reports a child killed by a signal as exit 128 + signal.
    expect(['SIGXCPU', 'SIGKILL', 128 + 24, 128 + 9]).toContain(cpu.signal ?? cpu.exitCode);
    hostAlive();
  });

  it('bounds the RAM of all the command’s processes together where a memory cgroup is writable, else each process', async () => {
    // Four children each touch 150 MB and hold it for 3 s; each is within memoryMb (256),
    // together they are not within totalMemoryMb (300), so at most two can live that long.
    const hog = `python3 -c "b = bytearray(150 * 1024 * 1024); b[::4096] = b'x' * len(b[::4096]); import time; time.sleep(3); print('held', flush=True)"`;
    const result = await runCommand({
      command: ['bash', '-c', `for i in 1 2 3 4; do ${hog} & done; wait`],
      cwd,
      timeoutMs: 20_000,
      limits: { memoryMb: 256, totalMemoryMb: 300 },
    });
    const held = result.stdout.split('\n').filter((line) => line === 'held').length;
    if (getSandboxSupport().memoryLimit === 'cgroup') {
      expect(held).toBeLessThanOrEqual(2);
      expect(result.stderr).toContain("the command's processes together passed their 300 MB memory limit");
      // Still said when the command then runs into its timeout.
      const late = await runCommand({
        command: ['bash', '-c', `python3 -c "b = bytearray(400 * 1024 * 1024); b[::4096] = b'x' * len(b[::4096])"; sleep 30`],
        cwd,
        timeoutMs: 3000,
        limits: { memoryMb: 512, totalMemoryMb: 300 },
      });
      expect(late.timedOut).toBe(true);
      expect(late.stderr).toContain('passed their 300 MB memory limit');
    } else {
      expect(held).toBe(4);
    }
    hostAlive();
  });

  it('bounds every RAM-backed filesystem: /tmp and /dev/shm fill up with ENOSPC, /dev and / are read-only', async () => {
    const result = await runCommand({
      command: [
        'sh',
        '-c',
        // 200 MB at each place; sizes in MB.
        'for d in /tmp /dev/shm; do head -c 200000000 /dev/zero > $d/fill 2>/dev/null; echo "$d $? $(( $(wc -c < $d/fill) / 1048576 ))"; done; ' +
          'for f in /dev/fill /fill /proc/fill; do echo x > $f 2>/dev/null; echo "$f $?"; done; ' +
          'head -c 5000000 /dev/zero > /dev/shm/again; echo done',
      ],
      cwd,
      timeoutMs: 8000,
      limits: { tmpSizeMb: 8, shmSizeMb: 4, fileSizeMb: 512 },
    });
    const lines = result.stdout.trim().split('\n');
    expect(lines.slice(0, 2)).toEqual(['/tmp 1 8', '/dev/shm 1 4']);
    for (const line of lines.slice(2, 5)) expect(line).toMatch(/ [12]$/);
    expect(result.stdout + result.stderr).toContain('No space left on device');
    expect(lines.at(-1)).toBe('done');
    hostAlive();
  });

  it('refuses RAM no limit counts: SysV shared memory and message queues, memfd files', async () => {
    const ipc = await runCommand({
      command: ['sh', '-c', 'grep ^Seccomp: /proc/self/status; ipcmk -M 100000000 >/dev/null 2>&1; echo "shm $?"; ipcmk -Q >/dev/null 2>&1; echo "msg $?"'],
      cwd,
    });
    expect(ipc.stdout).toBe('Seccomp:\t2\nshm 1\nmsg 1\n');
    const python = (code: string) => runCommand({ command: ['python3', '-c', code], cwd });
    const memfd = await python(['import os', 'try:', '  os.memfd_create("x")', '  print("created")', 'except OSError as e:', '  print(e.errno)'].join('\n'));
    expect(memfd.stdout).toBe('1\n');
    // What commands do need still works: POSIX shared memory lives in the sized /dev/shm.
    const posix = await python('from multiprocessing import shared_memory as s\nm = s.SharedMemory(create=True, size=1024)\nprint(m.size)\nm.unlink()');
    expect(posix.stdout).toBe('1024\n');
  });

  it('refuses fallocate past RLIMIT_FSIZE: KEEP_SIZE fails with EOPNOTSUPP, posix_fallocate within the limit works', async () => {
    const code = [
      'import ctypes, os',
      'libc = ctypes.CDLL(None, use_errno=True)',
      'libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long, ctypes.c_long]',
      'fd = os.open("big", os.O_WRONLY | os.O_CREAT)',
      // FALLOC_FL_KEEP_SIZE: 4 GB of blocks past the end of an empty file, no RLIMIT_FSIZE check.
      'print(libc.fallocate(fd, 1, 0, 4 * 2**30), ctypes.get_errno())',
      'print(os.fstat(fd).st_blocks * 512)',
      'os.posix_fallocate(fd, 0, 1024 * 1024)',
      'print(os.fstat(fd).st_size)',
    ].join('\n');
    const result = await runCommand({ command: ['python3', '-c', code], cwd, limits: { fileSizeMb: 8 } });
    expect(result.stdout).toBe(`-1 95\n0\n${1024 * 1024}\n`);
  });

  it('gives /tmp and /dev/shm their default sizes (64 MB and 16 MB)', async () => {
    const result = await runCommand({ command: ['df', '-k', '/tmp', '/dev/shm'], cwd });
    const sizes = result.stdout.trim().split('\n').slice(1).map((line) => Number(line.split(/\s+/)[1]));
    expect(sizes).toEqual([64 * 1024, 16 * 1024]);
  });

  it('caps the size of files the command writes', async () => {
    const result = await runCommand({ command: ['sh', '-c', 'head -c 50000000 /dev/zero > big.bin; echo $?'], cwd, limits: { fileSizeMb: 4 } });
    expect(result.stdout).not.toBe('0\n');
    expect(readFileSync(join(cwd, 'big.bin')).length).toBeLessThanOrEqual(4 * 1024 * 1024);
  });

  describe('with the network off', () => {
    let server: Server;
    let port: number;
    let hits = 0;
    beforeAll(async () => {
      server = createServer((_req, res) => {
        hits++;
        res.end('reached');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('cannot reach a listener on the host’s 127.0.0.1 with curl or bash /dev/tcp', async () => {
      const result = await runCommand({
        command: ['bash', '-c', `curl -sS -m 3 http://127.0.0.1:${port}/; echo "GET / HTTP/1.0" > /dev/tcp/127.0.0.1/${port}; echo end`],
        cwd,
      });
      expect(result.stdout).not.toContain('reached');
      expect(hits).toBe(0);
      hostAlive();
    });

    it('reaches the listener only when network is turned on', async () => {
      const result = await runCommand({
        command: ['bash', '-c', `exec 3<>/dev/tcp/127.0.0.1/${port}; printf 'GET / HTTP/1.0\r\n\r\n' >&3; cat <&3`],
        cwd,
        network: true,
      });
      expect(result.stdout).toContain('reached');
      expect(hits).toBe(1);
    });
  });

  it('passes argv literally: "; rm -rf" and "$(…)" are just arguments', async () => {
    writeFileSync(join(cwd, 'keep.txt'), 'keep');
    const result = await runCommand({ command: ['echo', '; rm -rf .', '$(rm keep.txt)', '`id`', '&& touch pwned'], cwd });
    expect(result.stdout).toBe('; rm -rf . $(rm keep.txt) `id` && touch pwned\n');
    expect(existsSync(join(cwd, 'keep.txt'))).toBe(true);
    expect(existsSync(join(cwd, 'pwned'))).toBe(false);
  });

  it('does not follow a symlink out of cwd inside the sandbox', async () => {
    symlinkSync(join(outside, 'secret.txt'), join(cwd, 'link-to-secret'));
    const result = await runCommand({ command: ['cat', 'link-to-secret'], cwd });
    expect(result.exitCode).not.toBe(0);
    expect(result.stdout).not.toContain('TOP-SECRET');
  });

  it('emits an audit event with a hash of the command, not the command', async () => {
    const events: AuditEvent[] = [];
    await runCommand({ command: ['echo', 'token=sk-abc'], cwd, onAudit: (e) => events.push(e), principal: 'key_1' });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ kind: 'shell', tool: 'command', principal: 'key_1', outcome: 'ok', exitCode: 0, limitsHit: [] });
    expect(events[0]!.argumentsHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(events)).not.toContain('sk-abc');
  });

  it('refuses "/" as the writable root and a cwd outside root', async () => {
    await expect(runCommand({ command: ['true'], cwd: '/' })).rejects.toThrow(/cannot be "\/"/);
    await expect(runCommand({ command: ['true'], cwd: outside, root: cwd })).rejects.toThrow(/not inside root/);
  });

  it('reports which limits this machine enforces', () => {
    const support = getSandboxSupport();
    expect(support.bubblewrap.ok).toBe(true);
    expect(support.prlimit).toBeDefined();
    expect(['cgroup', 'uid', 'rlimit']).toContain(support.processLimit);
    expect(support.hostUid).toBe(support.processLimit === 'uid' ? 65534 : undefined);
    expect(support.memoryLimit).toBe(support.memoryCgroupBase === undefined ? 'per-process' : 'cgroup');
  });
});

describe('runCommand where bubblewrap is missing', () => {
  it('throws SandboxUnavailableError saying how to install it (bwrap hidden from a child process)', () => {
    const bwrap = getSandboxSupport().bubblewrap;
    if (!bwrap.ok) throw new Error(`this test needs bubblewrap to hide itself: ${bwrap.problem}`);
    // A child Node process in a mount namespace whose binary directories are empty: the
    // sandbox package probes for bwrap there and must refuse to run a command.
    const entry = new URL('../src/index.ts', import.meta.url).pathname;
    const script = `
      const { runCommand, SandboxUnavailableError } = await import(${JSON.stringify(entry)});
      try {
        await runCommand({ command: ['true'], cwd: ${JSON.stringify(cwd)} });
        console.log(JSON.stringify({ ran: true }));
      } catch (error) {
        console.log(JSON.stringify({ unavailable: SandboxUnavailableError.isInstance(error), missing: error.missing, message: error.message }));
      }`;
    const hidden = ['/usr/bin', '/usr/sbin', '/usr/local/bin', '/usr/local/sbin'].flatMap((dir) => ['--tmpfs', dir]);
    const child = spawnSync(
      bwrap.path,
      ['--dev-bind', '/', '/', ...hidden, '--', process.execPath, '--conditions=@toolwire/source', '--input-type=module', '-e', script],
      { encoding: 'utf8', timeout: 30_000 },
    );
    expect(child.stderr).toBe('');
    const outcome = JSON.parse(child.stdout.trim()) as { unavailable?: boolean; missing?: string; message?: string };
    expect(outcome).toMatchObject({ unavailable: true, missing: 'bubblewrap' });
    expect(outcome.message).toContain('`bwrap` binary was not found');
    expect(outcome.message).toContain('apt-get install bubblewrap');
  });
});

describe('runCommand without isolation', () => {
  it('runs only when asked knowingly, still with a cleared environment and an output cap', async () => {
    process.env.OPENAI_API_KEY = 'sk-test-none';
    try {
      const result = await runCommand({ command: ['sh', '-c', 'env; head -c 5000 /dev/zero'], cwd, isolation: 'none', maxOutputBytes: 1000 });
      expect(result.stdout).not.toContain('sk-test-none');
      expect(result.truncated).toBe(true);
    } finally {
      delete process.env.OPENAI_API_KEY;
    }
  });

  it('answers at the exit or the timeout even when a process outside its group holds stdout open', { timeout: 20_000 }, async () => {
    // Without a PID namespace, setsid takes a child out of the process group the timeout
    // kills; it keeps the pipes open, which must not hold the answer back. (It writes its
    // pid once it has left the group, and the command prints it.)
    try {
      const exited = runCommand({ command: ['sh', '-c', `setsid sh -c 'echo $$ > left-a; exec sleep 30' & while [ ! -s left-a ]; do sleep 0.05; done; cat left-a`], cwd, isolation: 'none', timeoutMs: 15_000 });
      const timed = runCommand({ command: ['sh', '-c', `setsid sh -c 'echo $$ > left-b; exec sleep 30' & while [ ! -s left-b ]; do sleep 0.05; done; cat left-b; sleep 30`], cwd, isolation: 'none', timeoutMs: 3000 });
      const bound = new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 8000).unref());
      const [first, second] = await Promise.all([Promise.race([exited, bound]), Promise.race([timed, bound])]);
      expect(first).toMatchObject({ exitCode: 0, timedOut: false, stdout: expect.stringMatching(/^\d+\n$/) });
      expect(second).toMatchObject({ timedOut: true, stdout: expect.stringMatching(/^\d+\n$/) });
      // And the sleeps that left the group are gone with the command (they carry its mark).
      for (const answer of [first, second]) {
        const pid = Number((answer as { stdout: string }).stdout);
        expect(existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z')).toBe(false);
      }
    } finally {
      for (const file of ['left-a', 'left-b']) {
        try {
          const pid = Number(readFileSync(join(cwd, file), 'utf8'));
          if (pid > 1) process.kill(pid, 'SIGKILL');
        } catch {
          // Gone already.
        }
      }
    }
  });

  it('reads a background writer’s output to its end after the command exits, and stops a trickling holder at the timeout', { timeout: 20_000 }, async () => {
    // The writer pauses 100 ms between lines, well within the half second of silence after
    // which held pipes are closed, and writes for a second after the command exited.
    const flowing = await runCommand({ command: ['sh', '-c', '(for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0.1; echo $i; done) & exit 0'], cwd, isolation: 'none' });
    expect(flowing).toMatchObject({ exitCode: 0, timedOut: false, stdout: '1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n' });
    // One that never stops writing, outside the group, is cut off at the timeout.
    try {
      const trickle = runCommand({ command: ['sh', '-c', `setsid sh -c 'echo $$ > left-c; while :; do echo t; sleep 0.1; done' & while [ ! -s left-c ]; do sleep 0.05; done; exit 0`], cwd, isolation: 'none', timeoutMs: 2000 });
      const bound = new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 10_000).unref());
      const result = await Promise.race([trickle, bound]);
      expect(result).toMatchObject({ exitCode: 0, timedOut: true, stdout: expect.stringMatching(/^(t\n)+$/) });
    } finally {
      try {
        const pid = Number(readFileSync(join(cwd, 'left-c'), 'utf8'));
        if (pid > 1) process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
  });

  it('audits a command that exited on its own as it ended, even if the signal aborts before runCommand returns', { timeout: 20_000 }, async () => {
    // A background writer in the group keeps the pipes open after the exit, so runCommand
    // is still waiting when the abort lands; the abort then only ends the writer.
    const events: AuditEvent[] = [];
    const controller = new AbortController();
    const running = runCommand({
      command: ['sh', '-c', 'echo $$ > exit-pid; (while :; do echo t; sleep 0.1; done) & exit 0'],
      cwd,
      isolation: 'none',
      timeoutMs: 30_000,
      signal: controller.signal,
      onAudit: (e) => events.push(e),
    });
    // Reaped (no such process any more) means its exit was seen.
    const gone = (pid: number) => {
      try {
        process.kill(pid, 0);
        return false;
      } catch {
        return true;
      }
    };
    for (let i = 0; i < 500; i++) {
      const text = existsSync(join(cwd, 'exit-pid')) ? readFileSync(join(cwd, 'exit-pid'), 'utf8').trim() : '';
      if (text !== '' && gone(Number(text))) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    controller.abort();
    const bound = new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 10_000).unref());
    const result = await Promise.race([running, bound]);
    expect(result).toMatchObject({ exitCode: 0, timedOut: false });
    expect(events).toMatchObject([{ outcome: 'ok', exitCode: 0 }]);
  });

  it('reports a missing program as exit code 127', async () => {
    const result = await runCommand({ command: ['/nonexistent/program'], cwd, isolation: 'none' });
    expect(result.exitCode).toBe(127);
  });
});
