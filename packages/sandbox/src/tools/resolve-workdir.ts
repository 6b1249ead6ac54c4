import { realpathSync } from 'node:fs';
import { isAbsolute, resolve, sep } from 'node:path';

/**
 * The real path of `workdir` (relative to `root`, or absolute), with symlinks followed,
 * or undefined when it does not exist or lies outside `root`'s real path.
 */
export function resolveWorkdir(root: string, workdir: string | undefined): string | undefined {
  let realRoot: string;
  let real: string;
  try {
    realRoot = realpathSync(root);
    const candidate = workdir === undefined || workdir === '' ? realRoot : isAbsolute(workdir) ? workdir : resolve(realRoot, workdir);
    real = realpathSync(candidate);
  } catch {
    return undefined;
  }
  return real === realRoot || real.startsWith(realRoot + sep) ? real : undefined;
}
