import { describe, expect, it } from 'vitest';
import { buildBubblewrapArgs } from './bubblewrap-args.ts';

const base = {
  command: ['ls', '-la', '; rm -rf /'],
  root: '/srv/ws',
  cwd: '/srv/ws/sub',
  env: { EXTRA: '1' },
  network: false,
  tmpSizeBytes: 1024,
  shmSizeBytes: 2048,
  hostEntries: [{ path: '/bin', type: 'symlink' as const, target: 'usr/bin' }, { path: '/lib64', type: 'dir' as const }],
  etcPaths: ['/etc/ssl'],
};

function pairs(args: string[], flag: string): string[][] {
  const out: string[][] = [];
  args.forEach((a, i) => {
    if (a === flag) out.push(args.slice(i + 1, i + 3));
  });
  return out;
}

describe('buildBubblewrapArgs', () => {
  it('ends with the command as a literal argv after --', () => {
    const args = buildBubblewrapArgs(base);
    expect(args.slice(args.lastIndexOf('--') + 1)).toEqual(['ls', '-la', '; rm -rf /']);
  });

  it('binds only the root writable and the system read-only, with a cleared environment', () => {
    const args = buildBubblewrapArgs(base);
    expect(pairs(args, '--bind')).toEqual([['/srv/ws', '/srv/ws']]);
    expect(pairs(args, '--ro-bind')).toEqual([['/usr', '/usr'], ['/lib64', '/lib64']]);
    expect(pairs(args, '--symlink')).toEqual([['usr/bin', '/bin']]);
    expect(args).toContain('--clearenv');
    expect(pairs(args, '--setenv').map(([name]) => name)).toEqual(['PATH', 'HOME', 'LANG', 'EXTRA']);
    expect(args.join(' ')).not.toMatch(/\/root|\/home/);
    for (const flag of ['--unshare-user', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--new-session', '--die-with-parent', '--disable-userns']) {
      expect(args).toContain(flag);
    }
    expect(args.slice(args.indexOf('--cap-drop'), args.indexOf('--cap-drop') + 2)).toEqual(['--cap-drop', 'ALL']);
  });

  it('sizes every writable tmpfs and leaves the rest of /dev read-only', () => {
    const args = buildBubblewrapArgs(base);
    const sizeBefore = (target: string) => {
      const at = args.findIndex((a, i) => a === '--tmpfs' && args[i + 1] === target);
      return args[at - 2] === '--size' ? args[at - 1] : undefined;
    };
    expect(sizeBefore('/tmp')).toBe('1024');
    expect(sizeBefore('/dev/shm')).toBe('2048');
    expect(pairs(args, '--tmpfs').map(([target]) => target)).toEqual(['/dev/shm', '/tmp']);
    // /dev/shm is mounted before /dev is made read-only, so it stays writable.
    const dev = args.indexOf('--dev');
    const shm = args.indexOf('/dev/shm');
    const readOnlyDev = args.findIndex((a, i) => a === '--remount-ro' && args[i + 1] === '/dev');
    expect(dev).toBeLessThan(shm);
    expect(shm).toBeLessThan(readOnlyDev);
  });

  it('installs a seccomp program from the given fd, before the command', () => {
    expect(buildBubblewrapArgs(base)).not.toContain('--seccomp');
    const args = buildBubblewrapArgs({ ...base, seccompFd: 3 });
    const at = args.indexOf('--seccomp');
    expect(args[at + 1]).toBe('3');
    expect(at).toBeLessThan(args.lastIndexOf('--'));
  });

  it('unshares the network unless network is on', () => {
    expect(buildBubblewrapArgs(base)).toContain('--unshare-net');
    expect(buildBubblewrapArgs({ ...base, network: true })).not.toContain('--unshare-net');
  });
});
