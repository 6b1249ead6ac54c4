import { describe, expect, it } from 'vitest';
import type { PathStat } from './uid-access.ts';
import { uidCanWriteDir } from './uid-access.ts';

function fakeStat(tree: Record<string, PathStat>): (path: string) => PathStat {
  return (path) => {
    const found = tree[path];
    if (found === undefined) throw new Error(`ENOENT ${path}`);
    return found;
  };
}
const root = (mode: number): PathStat => ({ uid: 0, gid: 0, mode });

describe('uidCanWriteDir', () => {
  const base = { '/': root(0o755), '/srv': root(0o755) };

  it('allows a directory the uid owns, under searchable parents', () => {
    expect(uidCanWriteDir('/srv/ws', 65534, 65534, fakeStat({ ...base, '/srv/ws': { uid: 65534, gid: 0, mode: 0o700 } }))).toBe(true);
  });

  it('allows a world-writable directory and one writable by its group', () => {
    expect(uidCanWriteDir('/srv/ws', 65534, 65534, fakeStat({ ...base, '/srv/ws': root(0o1777) }))).toBe(true);
    expect(uidCanWriteDir('/srv/ws', 65534, 65534, fakeStat({ ...base, '/srv/ws': { uid: 0, gid: 65534, mode: 0o770 } }))).toBe(true);
  });

  it('refuses a root-owned directory, and one under a parent it cannot search', () => {
    expect(uidCanWriteDir('/srv/ws', 65534, 65534, fakeStat({ ...base, '/srv/ws': root(0o755) }))).toBe(false);
    expect(uidCanWriteDir('/srv/ws', 65534, 65534, fakeStat({ '/': root(0o755), '/srv': root(0o700), '/srv/ws': root(0o777) }))).toBe(false);
  });

  it('uses the owner bits, not the others bits, when the uid owns the directory', () => {
    expect(uidCanWriteDir('/srv/ws', 65534, 65534, fakeStat({ ...base, '/srv/ws': { uid: 65534, gid: 0, mode: 0o577 } }))).toBe(false);
  });

  it('refuses a path that does not exist', () => {
    expect(uidCanWriteDir('/srv/none', 65534, 65534, fakeStat(base))).toBe(false);
  });
});
