// `toolwire … | head -1`: the reader goes away while the CLI still writes. The CLI stops
// quietly with 141 (what `cat` reports), not an unhandled EPIPE with a stack trace.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN } from './run-cli.ts';

describe('toolwire with its output piped into a reader that stops early', () => {
  it('exits 141 without a stack trace', async () => {
    const child = spawn(process.execPath, [BIN, 'extract', '-', '--stream'], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    // Like `head -1`: read the first line, then close the pipe.
    child.stdout.once('data', () => child.stdout.destroy());
    child.stdin.on('error', () => undefined); // the CLI may be gone before all input is written
    child.stdin.end('f(a=1)\n'.repeat(400_000));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('close', (c, s) => resolve([c, s])));
    clearTimeout(timer);
    expect(signal).toBeNull();
    expect(stderr).toBe('');
    expect(code).toBe(141);
  }, 40_000);
});
