// A stand-in for @toolwire/sandbox's runCommand (same contract), used while that package's
// shell part is not published: bubblewrap with a minimal read-only root, the work dir as
// the only writable path, no network, a cleared environment, and a timeout that kills the
// process group.
import { spawn } from 'node:child_process';
import type { RunCommand } from '../../src/local/sandbox-backend.ts';

export const bwrapRunCommand: RunCommand = (options) =>
  new Promise((resolve, reject) => {
    const env = Object.entries({ PATH: '/usr/bin:/bin', HOME: options.cwd, LANG: 'C.UTF-8', ...options.env }).flatMap(([k, v]) => ['--setenv', k, v]);
    const argv =
      options.isolation === 'none'
        ? options.command
        : [
            'bwrap',
            '--die-with-parent',
            '--new-session',
            '--unshare-pid',
            '--unshare-ipc',
            '--unshare-uts',
            ...(options.network ? [] : ['--unshare-net']),
            '--ro-bind', '/usr', '/usr',
            '--symlink', 'usr/bin', '/bin',
            '--symlink', 'usr/lib', '/lib',
            '--symlink', 'usr/lib64', '/lib64',
            '--ro-bind-try', '/etc/ld.so.cache', '/etc/ld.so.cache',
            '--proc', '/proc',
            '--dev', '/dev',
            '--tmpfs', '/tmp',
            '--bind', options.cwd, options.cwd,
            '--chdir', options.cwd,
            '--clearenv',
            ...env,
            '--',
            ...options.command,
          ];
    const started = performance.now();
    const child = spawn(argv[0]!, argv.slice(1), { cwd: options.cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let truncated = false;
    let timedOut = false;
    const take = (current: string, chunk: Buffer): string => {
      if (current.length + chunk.length > options.maxOutputBytes) {
        truncated = true;
        return current + chunk.toString('utf8', 0, Math.max(0, options.maxOutputBytes - current.length));
      }
      return current + chunk.toString('utf8');
    };
    child.stdout.on('data', (chunk: Buffer) => (stdout = take(stdout, chunk)));
    child.stderr.on('data', (chunk: Buffer) => (stderr = take(stderr, chunk)));
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, options.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ exitCode: code, signal, stdout, stderr, timedOut, truncated, durationMs: performance.now() - started });
    });
  });
