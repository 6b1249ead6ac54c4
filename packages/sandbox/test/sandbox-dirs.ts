import { chmodSync, chownSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { getSandboxSupport } from '../src/index.ts';

// Where the caller is root without a writable pids cgroup (a root container, cgroupfs
// read-only), commands run as `hostUid` (65534): the directories a test hands to them must
// be reachable and, for workspaces, writable by that uid, as a user's would have to be.

/** `mkdtempSync(join(parent, prefix))`, searchable by the uid commands run as (mkdtemp makes 0700 directories). */
export function sandboxTempDir(parent: string, prefix: string): string {
  const dir = mkdtempSync(join(parent, prefix));
  if (getSandboxSupport().hostUid !== undefined) chmodSync(dir, 0o755);
  return dir;
}

/** Makes `dir` writable by the uid commands run as, where that is not ours; returns it. */
export function writableBySandbox(dir: string): string {
  const uid = getSandboxSupport().hostUid;
  if (uid !== undefined) chownSync(dir, uid, uid);
  return dir;
}
