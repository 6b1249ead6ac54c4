// What a user's files and pipes can send `toolwire extract` and `toolwire chat`: stdin that
// never ends is a clear error once past the limit, and `--stream` keeps no more than a
// pipe's worth of output in memory when its reader is slow. Runs `main()` in this process.
import { PassThrough, Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../src/main.ts';
import { MAX_TEXT_INPUT_CHARS } from '../src/read-input.ts';
import { runMain } from './run-cli.ts';

/** stdin that never ends, counting how much was read from it. */
function endlessStdin(line: string): Readable & { readChars: () => number } {
  let read = 0;
  const chunk = line.repeat(Math.ceil(65_536 / line.length));
  const stream = Readable.from(
    (function* () {
      for (;;) {
        read += chunk.length;
        yield chunk;
      }
    })(),
    { objectMode: false },
  );
  return Object.assign(stream, { readChars: () => read });
}

const run = (argv: string[], stdin: Readable) => runMain(argv, { stdin });

describe('toolwire extract - with stdin that never ends', () => {
  it('stops reading past the limit and says to use --stream', async () => {
    const stdin = endlessStdin('some prose f(a=1) ');
    const result = await run(['extract', '-'], stdin);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('The input (stdin) is longer than 64 Mi characters.');
    expect(result.stderr).toContain('--stream');
    expect(stdin.readChars()).toBeLessThan(MAX_TEXT_INPUT_CHARS + 1024 * 1024);
  }, 30_000);
});

describe('toolwire chat with a piped prompt that never ends', () => {
  it('stops reading past the limit with an error', async () => {
    const stdin = endlessStdin('tell me more ');
    const result = await run(['chat', '--model', 'ollama/x'], stdin);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('The input (stdin) is longer than 64 Mi characters.');
  }, 30_000);
});

describe('toolwire extract --stream with a slow reader', () => {
  it('waits for the reader instead of buffering all output', async () => {
    // A reader that takes one write at a time, only when the test lets it.
    const held: (() => void)[] = [];
    const out = new Writable({
      highWaterMark: 16_384,
      write(_data, _encoding, callback) {
        held.push(callback);
      },
    });
    let mostBuffered = 0;
    const chunk = 'plain prose without calls, '.repeat(2_500);
    const stdin = Readable.from(
      (function* () {
        for (let i = 0; i < 200; i++) {
          // What the CLI holds for its reader each time it asks for more input.
          mostBuffered = Math.max(mostBuffered, out.writableLength);
          yield chunk;
        }
      })(),
    );
    const err = new PassThrough();
    let finished = false;
    const done = main(['node', 'toolwire', 'extract', '-', '--stream'], { out, err, stdin, env: { NO_COLOR: '1' }, cwd: process.cwd() }).finally(() => {
      finished = true;
    });
    // The reader is slower than the input: it takes what is waiting once per turn of the event loop.
    while (!finished) {
      for (const callback of held.splice(0)) callback();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await done).toBe(0);
    // Without waiting for 'drain' this is the whole output, about 13 MB.
    expect(mostBuffered).toBeLessThan(1024 * 1024);
  }, 30_000);
});
