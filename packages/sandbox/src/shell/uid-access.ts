import { statSync } from 'node:fs';
import { dirname } from 'node:path';

/** Owner, group and mode of a path, as `statSync` gives them. */
export interface PathStat {
  uid: number;
  gid: number;
  mode: number;
}

/**
 * Whether a process of `uid`/`gid` (no supplementary groups, no capabilities) can reach
 * `dir` (search permission on every ancestor) and create files in it. `stat` is
 * replaceable for tests. Used before running a command as `SANDBOX_HOST_UID`.
 */
export function uidCanWriteDir(dir: string, uid: number, gid: number, stat: (path: string) => PathStat = statSync): boolean {
  const allows = (info: PathStat, bits: number): boolean => {
    const shift = info.uid === uid ? 6 : info.gid === gid ? 3 : 0;
    return ((info.mode >> shift) & bits) === bits;
  };
  const SEARCH = 0o1;
  const WRITE_AND_SEARCH = 0o3;
  try {
    if (!allows(stat(dir), WRITE_AND_SEARCH)) return false;
    for (let parent = dirname(dir), child = dir; parent !== child; child = parent, parent = dirname(parent)) {
      if (!allows(stat(parent), SEARCH)) return false;
    }
    return true;
  } catch {
    return false;
  }
}
