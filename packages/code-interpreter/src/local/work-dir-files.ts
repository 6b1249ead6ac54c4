import { constants } from 'node:fs';
import { lstat, open, readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { CodeInterpreterFile, CodeInterpreterOutput } from '../code-interpreter-value.ts';

/** Size and modification time of each regular file under a work dir, by relative path. */
export type WorkDirSnapshot = Map<string, { bytes: number; mtimeMs: number }>;

const MAX_ENTRIES = 2000;
const MAX_DEPTH = 8;
const MAX_INLINE_IMAGE_BYTES = 2 * 1024 * 1024;
/**
 * All images of one run together: sandboxed code can write thousands of sparse 2 MB files
 * in a second at no cost to itself, and each would otherwise be read and base64-encoded here.
 */
export const MAX_INLINE_IMAGES_TOTAL_BYTES = 8 * 1024 * 1024;
const IMAGE_TYPES: Readonly<Record<string, string>> = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif' };

/**
 * Lists the regular files under `dir`. Symlinks are never followed: code in the sandbox
 * could plant one pointing at a host secret, and this runs on the host.
 */
export async function snapshotWorkDir(dir: string): Promise<WorkDirSnapshot> {
  const snapshot: WorkDirSnapshot = new Map();
  const pending: { path: string; depth: number }[] = [{ path: dir, depth: 0 }];
  let seen = 0;
  while (pending.length > 0 && seen < MAX_ENTRIES) {
    const current = pending.pop() as { path: string; depth: number };
    let entries;
    try {
      entries = await readdir(current.path, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (++seen > MAX_ENTRIES) break;
      const path = join(current.path, entry.name);
      if (entry.isDirectory() && current.depth < MAX_DEPTH) pending.push({ path, depth: current.depth + 1 });
      else if (entry.isFile()) {
        const stats = await lstat(path).catch(() => undefined);
        if (stats?.isFile() === true) snapshot.set(relative(dir, path).split(sep).join('/'), { bytes: stats.size, mtimeMs: stats.mtimeMs });
      }
    }
  }
  return snapshot;
}

/** The files that are new or changed in `after` compared with `before`, sorted by path. */
export function changedFiles(options: { dir: string; containerId: string; before: WorkDirSnapshot; after: WorkDirSnapshot }): CodeInterpreterFile[] {
  const files: CodeInterpreterFile[] = [];
  for (const [path, now] of options.after) {
    const then = options.before.get(path);
    if (then !== undefined && then.bytes === now.bytes && then.mtimeMs === now.mtimeMs) continue;
    files.push({
      containerId: options.containerId,
      fileId: path,
      filename: path.slice(path.lastIndexOf('/') + 1),
      path: join(options.dir, ...path.split('/')),
      bytes: now.bytes,
    });
  }
  return files.sort((a, b) => (a.fileId < b.fileId ? -1 : a.fileId > b.fileId ? 1 : 0));
}

/**
 * Image outputs (data URLs, as OpenAI sends them) for the new or changed images among
 * `files`, in order, up to 2 MB each and `MAX_INLINE_IMAGES_TOTAL_BYTES` together; images
 * past either stay listed in `files` only.
 */
export async function imageOutputs(files: readonly CodeInterpreterFile[]): Promise<CodeInterpreterOutput[]> {
  const outputs: CodeInterpreterOutput[] = [];
  let budget = MAX_INLINE_IMAGES_TOTAL_BYTES;
  for (const file of files) {
    const dot = file.filename.lastIndexOf('.');
    const type = dot < 0 ? undefined : IMAGE_TYPES[file.filename.slice(dot).toLowerCase()];
    if (type === undefined || file.path === undefined || (file.bytes ?? 0) > Math.min(MAX_INLINE_IMAGE_BYTES, budget)) continue;
    // O_NOFOLLOW: the file may have been swapped for a symlink since it was listed; O_NONBLOCK:
    // or for a FIFO (code left running without isolation can do that), whose open would wait
    // for a writer forever and hold one of libuv's few threads.
    const handle = await open(file.path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => undefined);
    if (handle === undefined) continue;
    try {
      const stats = await handle.stat();
      if (!stats.isFile() || stats.size > Math.min(MAX_INLINE_IMAGE_BYTES, budget)) continue;
      // Only the bytes checked: a file still growing must not be read past them.
      const data = Buffer.alloc(stats.size);
      const { bytesRead } = await handle.read(data, 0, stats.size, 0);
      budget -= stats.size;
      outputs.push({ type: 'image', url: `data:${type};base64,${data.subarray(0, bytesRead).toString('base64')}` });
    } finally {
      await handle.close();
    }
  }
  return outputs;
}
