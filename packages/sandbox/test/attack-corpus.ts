// JavaScript attack corpus, following the convention of the sandbox security research:
// escapes set host `process.env.SANDBOX_PWNED` and return a string starting with
// `ESCAPED` only if they succeed; `expect` names what the host must observe.

/** One attack: `code` is a classic script whose completion value is the result. */
export interface JsAttack {
  name: string;
  code: string;
  expect: 'no_host_access' | 'timeout' | 'timeout_or_memory' | 'memory_limit' | 'error_contained' | 'output_capped';
  /** A longer limit for bombs that must reach the memory limit before the timeout. */
  timeoutMs?: number;
}

const PWN = `(p) => { p.env.SANDBOX_PWNED = '1'; return 'ESCAPED ' + typeof p.pid; }`;

export const ESCAPE_ATTACKS: JsAttack[] = [
  {
    name: 'constructor chain from this',
    code: `(() => { try { const p = this.constructor.constructor('return process')(); return p ? (${PWN})(p) : 'contained'; } catch (e) { return 'contained'; } })()`,
    expect: 'no_host_access',
  },
  {
    name: 'constructor chain from a function literal',
    code: `(() => { try { const p = (function(){}).constructor('return process')(); return p ? (${PWN})(p) : 'contained'; } catch { return 'contained'; } })()`,
    expect: 'no_host_access',
  },
  {
    name: 'constructor chain from an async function and a generator',
    code: `(async () => { const A = (async () => {}).constructor; const G = (function*(){}).constructor;
      try { const p = await A('return process')(); if (p) return (${PWN})(p); } catch {}
      try { const p = G('yield process')().next().value; if (p) return (${PWN})(p); } catch {}
      return 'contained'; })()`,
    expect: 'no_host_access',
  },
  {
    name: 'globals: process, require, Buffer, module, isolated-vm handles',
    code: `[typeof process, typeof require, typeof Buffer, typeof module, typeof globalThis.ivm, typeof $0, typeof $1,
      Object.getOwnPropertyNames(globalThis).filter(n => ['process', 'require', 'global', 'Buffer', 'ivm', '_ivm', 'module', '$0', '$1'].includes(n) || n.startsWith('$')).length].join(',')`,
    expect: 'no_host_access',
  },
  {
    name: 'Error.prepareStackTrace CallSite getThis / getFunction',
    code: `(() => { let leaked = 'contained';
      Error.prepareStackTrace = (err, frames) => { for (const f of frames) { try {
        const t = f.getThis(); const fn = f.getFunction();
        for (const o of [t, fn]) { if (o && o.constructor && o.constructor.constructor) {
          const p = o.constructor.constructor('return this.process')(); if (p) leaked = (${PWN})(p); } }
      } catch {} } return 'x'; };
      try { null.f(); } catch (e) { e.stack; }
      try { new Error('x').stack; } catch {}
      return leaked; })()`,
    expect: 'no_host_access',
  },
  {
    name: 'Error.captureStackTrace with a getter-laden object',
    code: `(() => { const o = {}; Error.captureStackTrace(o); Error.stackTraceLimit = Infinity;
      Error.prepareStackTrace = (_, cs) => cs.map(c => { try { return typeof c.getThis() } catch { return 'x' } }).join();
      const s = new Error().stack; return typeof process === 'undefined' ? 'contained' : 'ESCAPED'; })()`,
    expect: 'no_host_access',
  },
  {
    name: 'Proxy getPrototypeOf trap plus stack overflow while formatting',
    code: `(() => { const p = new Proxy({}, { getPrototypeOf() { function r() { r(); } try { r(); } catch (e) {
        try { const h = e.constructor.constructor('return process')(); if (h) return (${PWN})(h); } catch {} } return null; } });
      try { p instanceof Object; } catch {}
      try { Object.prototype.toString.call(p); } catch {}
      return 'contained'; })()`,
    expect: 'no_host_access',
  },
  {
    name: 'Proxy apply trap receiving arguments arrays',
    code: `(() => { let out = 'contained'; const f = new Proxy(function(){}, { apply(t, self, args) {
        try { const h = args.constructor.constructor('return process')(); if (h) out = (${PWN})(h); } catch {} return 1; } });
      f(1, 2); Reflect.apply(f, null, [3]); [1].map(f); return out; })()`,
    expect: 'no_host_access',
  },
  {
    name: 'Symbol.species on Promise to intercept resolution',
    code: `(async () => { let out = 'contained';
      class Evil extends Promise { static get [Symbol.species]() { return function(exec) { return new Promise((res, rej) => exec(
        (v) => { try { const h = v && v.constructor.constructor('return process')(); if (h) out = (${PWN})(h); } catch {} res(v); },
        (e) => { try { const h = e && e.constructor.constructor('return process')(); if (h) out = (${PWN})(h); } catch {} rej(e); })); }; } }
      Promise.prototype.constructor = Evil;
      try { await fetch('http://127.0.0.1/'); } catch (e) { try { const h = e.constructor.constructor('return process')(); if (h) out = (${PWN})(h); } catch {} }
      try { await Promise.reject(new Error('x')).then(() => 1); } catch {}
      return out; })()`,
    expect: 'no_host_access',
  },
  {
    name: 'Symbol.species on Array',
    code: `(() => { class A extends Array { static get [Symbol.species]() { return function() { return { process: typeof process }; }; } }
      const a = new A(1, 2, 3); const m = a.map(x => x); return typeof process === 'undefined' ? 'contained' : 'ESCAPED'; })()`,
    expect: 'no_host_access',
  },
  {
    name: 'host objects through errors thrown by the fetch bridge',
    code: `(async () => { const out = [];
      for (const u of ['http://127.0.0.1/', 'file:///etc/passwd', { toString() { throw new Error('inner'); } }, 'not a url']) {
        try { await fetch(u); out.push('fetched'); } catch (e) {
          try { const h = e.constructor.constructor('return process')(); if (h) return (${PWN})(h); } catch {}
          try { const h = Object.getPrototypeOf(e).constructor.constructor('return process')(); if (h) return (${PWN})(h); } catch {}
          out.push(e instanceof Error ? 'sandbox-error' : typeof e); } }
      return 'contained ' + out.join(','); })()`,
    expect: 'no_host_access',
  },
  {
    name: 'Object.prototype pollution aimed at the transfer options',
    code: `(async () => { Object.prototype.reference = true; Object.prototype.externalCopy = true; Object.prototype.copy = false;
      Object.prototype.promise = false; Object.prototype.result = { reference: true };
      let msg; try { await fetch('http://127.0.0.1/'); } catch (e) { msg = String(e.message); }
      console.log('still logging');
      return { msg, typeofMsg: typeof msg }; })()`,
    expect: 'no_host_access',
  },
  {
    name: 'Object.prototype.then pollution aimed at the result envelope',
    code: `Object.prototype.then = function (resolve) { resolve('ESCAPED-then'); }; 'contained'`,
    expect: 'no_host_access',
  },
  {
    name: 'replacing JSON, Promise and eval before the result is copied out',
    code: `JSON.stringify = () => '"ESCAPED"'; JSON.parse = () => 'ESCAPED'; globalThis.Promise = function () {}; globalThis.eval = () => 'ESCAPED'; 'contained'`,
    expect: 'no_host_access',
  },
  {
    name: 'WebAssembly and Atomics are only sandbox-local',
    code: `(() => { try { WebAssembly.compileStreaming({ [Symbol.for('nodejs.util.inspect.custom')]() { return 'ESCAPED'; } }).catch(() => {}); } catch {}
      return typeof process === 'undefined' ? 'contained' : 'ESCAPED'; })()`,
    expect: 'no_host_access',
  },
];

export const ERROR_ATTACKS: JsAttack[] = [
  {
    name: 'unhandled rejection inside the sandbox',
    code: `Promise.reject(new Error('nobody catches me')); new Promise((_, rej) => rej(42)); 'done'`,
    expect: 'error_contained',
  },
  {
    name: 'a rejected promise as the result',
    code: `(async () => { throw new Error('async failure'); })()`,
    expect: 'error_contained',
  },
  {
    name: 'throwing a non-Error, a Proxy and a getter-laden object',
    code: `throw new Proxy({}, { get() { throw new Error('trap'); } })`,
    expect: 'error_contained',
  },
  {
    name: 'a result that cannot be JSON (BigInt, cycle)',
    code: `const a = {}; a.self = a; a`,
    expect: 'error_contained',
  },
];

export const RESOURCE_ATTACKS: JsAttack[] = [
  { name: 'sync infinite loop', code: 'for (;;) {}', expect: 'timeout' },
  { name: 'infinite loop after await', code: '(async () => { await null; for (;;) {} })()', expect: 'timeout' },
  // Each step of the flood keeps a promise alive, so under load the memory watchdog may
  // stop it before the CPU timeout does: either way it is contained.
  { name: 'microtask flood', code: '(async () => { const f = async () => { await null; return f(); }; return f(); })()', expect: 'timeout_or_memory' },
  { name: 'a promise that never settles', code: 'new Promise(() => {})', expect: 'timeout' },
  { name: 'an error whose message getter never returns', code: `const e = new Error(); Object.defineProperty(e, 'message', { get() { for (;;) {} } }); throw e;`, expect: 'timeout' },
  { name: 'catastrophic regex', code: `/^(a+)+$/.test('a'.repeat(40) + 'b')`, expect: 'timeout' },
  { name: 'Atomics.wait forever', code: 'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)', expect: 'timeout' },
  { name: 'string doubling', code: `let s = 'x'; for (;;) s += s;`, expect: 'memory_limit' },
  { name: 'ArrayBuffer bomb', code: 'const keep = []; for (;;) keep.push(new ArrayBuffer(64 * 1024 * 1024));', expect: 'memory_limit' },
  { name: 'array of arrays bomb', code: 'const keep = []; for (;;) keep.push(new Array(100000).fill(1.5));', expect: 'memory_limit', timeoutMs: 10_000 },
  { name: 'Map of small objects (V8 fatal OOM)', code: 'const m = new Map(); for (let i = 0; ; i++) m.set(i, { i });', expect: 'memory_limit', timeoutMs: 10_000 },
  { name: 'result larger than the output cap', code: `'x'.repeat(300000)`, expect: 'output_capped' },
];
