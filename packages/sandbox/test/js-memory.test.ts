import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJsSandbox } from '../src/index.ts';
import type { JsSandbox } from '../src/index.ts';
import { observe, workerPids } from './worker-processes.ts';

const MiB = 1024 * 1024;
// The smallest valid module: the magic number and version 1.
const EMPTY_MODULE = 'new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])';

const MARKER = 'js-memory.test.invalid';
let sandbox: JsSandbox;
beforeAll(() => {
  sandbox = createJsSandbox({ poolSize: 1, timeoutMs: 2000, memoryLimitMb: 32, allowedDomains: [MARKER] });
});
afterAll(() => sandbox.dispose());

describe('every byte counts against memoryLimitMb (32 MB here)', () => {
  // Each would hold hundreds of MB outside the isolate's heap limit if it ran.
  const outside: [name: string, code: string][] = [
    ['a 256 MiB WebAssembly memory', `const m = new WebAssembly.Memory({ initial: 4096 }); new Uint8Array(m.buffer).fill(1); m.buffer.byteLength`],
    ['a WebAssembly module compiled from bytes', `new WebAssembly.Module(${EMPTY_MODULE}); 'compiled'`],
    ['a resizable ArrayBuffer resized to 512 MiB', `const b = new ArrayBuffer(1, { maxByteLength: 1024 * ${MiB} }); b.resize(512 * ${MiB}); new Uint8Array(b).fill(1); b.byteLength`],
    ['a resizable ArrayBuffer created at 512 MiB', `new Uint8Array(new ArrayBuffer(512 * ${MiB}, { maxByteLength: 1024 * ${MiB} })).fill(1).length`],
    ['a growable SharedArrayBuffer grown to 512 MiB', `const b = new SharedArrayBuffer(1, { maxByteLength: 1024 * ${MiB} }); b.grow(512 * ${MiB}); b.byteLength`],
    ['the original constructor reached through .constructor', `const AB = new Uint8Array(1).buffer.constructor; new AB(1, { maxByteLength: 1024 * ${MiB} }).resize(512 * ${MiB}); 'resized'`],
    ['a subclass of ArrayBuffer', `class Big extends ArrayBuffer {} const b = new Big(1, { maxByteLength: 1024 * ${MiB} }); b.resize(512 * ${MiB}); 'resized'`],
    ['Reflect.construct with a resizable length', `Reflect.construct(ArrayBuffer, [1, { maxByteLength: 1024 * ${MiB} }]).resize(512 * ${MiB}); 'resized'`],
  ];
  for (const [name, code] of outside) {
    it(`refuses ${name}`, async () => {
      const result = await sandbox.run(code);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.message).toMatch(/WebAssembly is not defined|Resizable (Shared)?ArrayBuffers are not available/);
      const after = await observe(workerPids(MARKER), 200);
      expect(after.maxRssMb).toBeLessThan(250);
    });
  }

  it.each([
    ['40 fixed 8 MiB ArrayBuffers', `const keep = []; for (let i = 0; i < 40; i++) keep.push(new ArrayBuffer(8 * ${MiB})); keep.length`],
    ['one 256 MiB Uint8Array', `new Uint8Array(256 * ${MiB}).fill(1).length`],
    ['SharedArrayBuffers filled with data', `const keep = []; for (let i = 0; i < 40; i++) keep.push(new Uint8Array(new SharedArrayBuffer(8 * ${MiB})).fill(1)); keep.length`],
    ['an ArrayBuffer transferred to 512 MiB', `new Uint8Array(new ArrayBuffer(1).transfer(512 * ${MiB})).fill(1).length`],
  ])('stops %s at the limit', async (_name, code) => {
    const result = await sandbox.run(code);
    expect(result).toMatchObject({ ok: false, error: { kind: 'memory' } });
  });

  it('keeps fixed-length buffers, instanceof, isView and subclasses working', async () => {
    const result = await sandbox.run(`
      class Tagged extends ArrayBuffer {}
      const t = new Tagged(8);
      const b = new ArrayBuffer(16);
      [b.byteLength, b instanceof ArrayBuffer, ArrayBuffer.isView(new Uint8Array(b)), t instanceof ArrayBuffer, t instanceof Tagged,
       new Uint8Array(4).buffer instanceof ArrayBuffer, b.slice(4).byteLength, new SharedArrayBuffer(8).byteLength, typeof WebAssembly]`);
    expect(result).toMatchObject({ ok: true, value: [16, true, true, true, true, true, 12, 8, 'undefined'] });
  });
});

describe('allowWebAssembly', () => {
  it('keeps WebAssembly when asked, and the worker memory limit still stops a large memory', async () => {
    const wasm = createJsSandbox({ poolSize: 1, timeoutMs: 3000, memoryLimitMb: 32, allowWebAssembly: true });
    try {
      expect(await wasm.run(`new WebAssembly.Module(${EMPTY_MODULE}) instanceof WebAssembly.Module`)).toMatchObject({ ok: true, value: true });
      // 1 GiB touched page by page: past 192 MB + 4 × 32 MB of resident memory the worker is killed.
      const big = await wasm.run(`const m = new WebAssembly.Memory({ initial: 16384 }); const v = new Uint8Array(m.buffer); for (let i = 0; i < v.length; i += 4096) v[i] = 1; v.length`, { timeoutMs: 10_000 });
      expect(big).toMatchObject({ ok: false, error: { kind: 'memory' } });
      expect(await wasm.run('1 + 1')).toMatchObject({ ok: true, value: 2 });
    } finally {
      await wasm.dispose();
    }
  });
});
