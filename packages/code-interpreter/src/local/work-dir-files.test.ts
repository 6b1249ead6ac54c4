import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { changedFiles, imageOutputs, MAX_INLINE_IMAGES_TOTAL_BYTES, snapshotWorkDir } from './work-dir-files.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolwire-ci-files-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function listed() {
  return changedFiles({ dir, containerId: 'local:t', before: new Map(), after: await snapshotWorkDir(dir) });
}

describe('imageOutputs', () => {
  it('skips an image swapped for a FIFO after it was listed, without waiting for a writer', async () => {
    await writeFile(join(dir, 'plot.png'), Buffer.from('89504e470d0a1a0a', 'hex'));
    const files = await listed();
    await rm(join(dir, 'plot.png'));
    expect(spawnSync('mkfifo', [join(dir, 'plot.png')]).status).toBe(0);
    const outputs = await Promise.race([imageOutputs(files), new Promise((resolve) => setTimeout(resolve, 5000, 'hung'))]);
    expect(outputs).toEqual([]);
  });

  it('inlines images up to a total budget, however many sparse 2 MB files the code wrote', async () => {
    // Sparse files cost sandboxed code no disk and no time; each would be read and encoded here.
    for (let i = 0; i < 40; i++) {
      await writeFile(join(dir, `img${String(i).padStart(2, '0')}.png`), '');
      await truncate(join(dir, `img${String(i).padStart(2, '0')}.png`), 2 * 1024 * 1024);
    }
    const files = await listed();
    expect(files).toHaveLength(40);
    const images = await imageOutputs(files);
    const decoded = images.reduce((sum, image) => sum + (image.type === 'image' ? Buffer.from(image.url.split(',')[1] ?? '', 'base64').length : 0), 0);
    expect(images.length).toBeGreaterThan(0);
    expect(images.length).toBeLessThan(40);
    expect(decoded).toBeLessThanOrEqual(MAX_INLINE_IMAGES_TOTAL_BYTES);
  });

  it('still inlines small images after a large one used up part of the budget', async () => {
    await writeFile(join(dir, 'a.png'), Buffer.alloc(MAX_INLINE_IMAGES_TOTAL_BYTES - 100));
    await writeFile(join(dir, 'b.png'), Buffer.alloc(1000));
    await writeFile(join(dir, 'c.png'), Buffer.alloc(50));
    const images = await imageOutputs(await listed());
    // a.png is over the 2 MB per-image cap; b.png and c.png fit.
    expect(images).toHaveLength(2);
  });
});
