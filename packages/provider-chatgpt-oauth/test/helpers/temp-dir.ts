import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function makeTempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'toolwire-chatgpt-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export function recordingLogger() {
  const lines: string[] = [];
  return {
    lines,
    logger: {
      warn: (message: string) => lines.push(`warn ${message}`),
      info: (message: string) => lines.push(`info ${message}`),
      debug: (message: string) => lines.push(`debug ${message}`),
    },
  };
}
