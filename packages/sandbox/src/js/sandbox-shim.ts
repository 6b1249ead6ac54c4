// Source evaluated inside each fresh context before user code runs. It captures the
// builtins it needs first, so user code that replaces globals or pollutes prototypes
// cannot change how results, logs or fetches travel. Objects crossing to the host are
// built with null prototypes, and so are the transfer options (isolated-vm reads them
// through the sandbox's prototype chain).
//
// $0: host log sink (line: string) => boolean (false once the byte cap is reached)
// $1: Reference to the host fetch bridge (url, initJson) => Promise<envelope>, never rejecting
// $2: whether WebAssembly stays available (its memories are outside the isolate's heap limit)
// $3: host callback () => boolean, false once the run has answered
// The closure returns the `finish(code, inputJson, maxOutputChars)` function the host calls.
export const SANDBOX_SHIM = String.raw`
const hostLog = $0;
const hostFetch = $1;
const indirectEval = eval;
const stringify = JSON.stringify;
const parse = JSON.parse;
const P = Promise;
const promiseThen = P.prototype.then;
const promiseResolve = P.resolve;
const reflectApply = Reflect.apply;
const toStr = String;
const defineProperty = Object.defineProperty;
const freeze = Object.freeze;
const TypeErr = TypeError;
const toLower = String.prototype.toLowerCase;
const objectKeys = Object.keys;
const reflectConstruct = Reflect.construct;
const RangeErr = RangeError;
let accepting = true;

// WebAssembly memories and resizable/growable buffers are allocated outside the
// allocator isolated-vm counts against memoryLimit: a 32 MB sandbox could hold gigabytes
// in them. WebAssembly goes unless the caller asked for it; resizable buffers always go,
// by refusing maxByteLength (fixed-length buffers stay and are counted).
if ($2 !== true) delete globalThis.WebAssembly;
// Both schedule sandbox code for later, outside any run: a waitAsync timeout, a
// finalizer after garbage collection. The isolate is disposed when a run answers, and
// these go too, so nothing is left to wake up.
delete Atomics.waitAsync;
delete globalThis.FinalizationRegistry;
const runIsLive = $3;
function fixedLengthOnly(Original, name) {
  const Checked = function (length, options) {
    if (new.target === undefined) throw new TypeErr('Constructor ' + name + " requires 'new'");
    if (options !== undefined && options !== null && (typeof options === 'object' || typeof options === 'function') && options.maxByteLength !== undefined) {
      throw new RangeErr('Resizable ' + name + 's are not available in this sandbox (their memory is outside its limit); use a fixed length.');
    }
    return reflectConstruct(Original, [length], new.target);
  };
  defineProperty(Checked, 'prototype', { value: Original.prototype, writable: false, enumerable: false, configurable: false });
  defineProperty(Checked, 'name', { value: name, configurable: true });
  defineProperty(Checked, 'length', { value: 1, configurable: true });
  for (const key of Reflect.ownKeys(Original)) {
    if (key === 'prototype' || key === 'name' || key === 'length') continue;
    defineProperty(Checked, key, Object.getOwnPropertyDescriptor(Original, key));
  }
  defineProperty(Original.prototype, 'constructor', { value: Checked, writable: true, enumerable: false, configurable: true });
  defineProperty(globalThis, name, { value: Checked, writable: true, enumerable: false, configurable: true });
}
fixedLengthOnly(ArrayBuffer, 'ArrayBuffer');
fixedLengthOnly(SharedArrayBuffer, 'SharedArrayBuffer');

function format(value) {
  if (typeof value === 'string') return value;
  try {
    const json = stringify(value);
    return json === undefined ? toStr(value) : json;
  } catch {
    try { return toStr(value); } catch { return '[unprintable]'; }
  }
}
function log() {
  if (!accepting) return;
  let line = '';
  for (let i = 0; i < arguments.length; i++) line += (i === 0 ? '' : ' ') + format(arguments[i]);
  accepting = hostLog(line) === true;
}
defineProperty(globalThis, 'console', {
  value: freeze({ __proto__: null, log, info: log, warn: log, error: log, debug: log }),
  writable: true, configurable: true, enumerable: false,
});

const fetchOptions = freeze({
  __proto__: null,
  arguments: freeze({ __proto__: null, copy: true }),
  result: freeze({ __proto__: null, promise: true, copy: true }),
});
async function fetch(resource, init) {
  const url = toStr(resource !== null && typeof resource === 'object' && 'url' in resource ? resource.url : resource);
  const request = { __proto__: null };
  if (init !== undefined && init !== null) {
    if (init.method !== undefined) request.method = toStr(init.method);
    if (init.body !== undefined && init.body !== null) request.body = toStr(init.body);
    if (init.headers !== undefined && init.headers !== null) {
      const headers = { __proto__: null };
      for (const key of objectKeys(init.headers)) headers[key] = toStr(init.headers[key]);
      request.headers = headers;
    }
  }
  const envelope = await hostFetch.apply(undefined, [url, stringify(request)], fetchOptions);
  // An answer that arrives after the run has answered resumes nothing.
  if (runIsLive() !== true) return new P(() => {});
  if (envelope === null || typeof envelope !== 'object' || envelope.ok !== true) {
    throw new TypeErr(envelope !== null && typeof envelope === 'object' ? toStr(envelope.message) : 'fetch failed');
  }
  const status = envelope.status;
  const headers = envelope.headers;
  const body = envelope.body;
  return freeze({
    ok: status >= 200 && status < 300,
    status,
    statusText: envelope.statusText,
    url: envelope.url,
    headers: freeze({
      get(name) { const value = headers[reflectApply(toLower, toStr(name), [])]; return value === undefined ? null : value; },
      has(name) { return headers[reflectApply(toLower, toStr(name), [])] !== undefined; },
    }),
    text: async () => body,
    json: async () => parse(body),
  });
}
defineProperty(globalThis, 'fetch', { value: fetch, writable: true, configurable: true, enumerable: false });

// Error text is cut here, before it is copied out: a 30 MB message would otherwise cross to
// the host and on to the model, past the cap every result and log line obeys.
const strSlice = String.prototype.slice;
const MAX_ERROR_NAME_CHARS = 200;
function cut(text, max) {
  return text.length <= max ? text : reflectApply(strSlice, text, [0, max]) + '… [cut at ' + max + ' characters]';
}
function describeError(error, maxChars) {
  try {
    if (error !== null && (typeof error === 'object' || typeof error === 'function')) {
      return { __proto__: null, ok: false, name: cut(toStr(error.name), MAX_ERROR_NAME_CHARS), message: cut(toStr(error.message), maxChars) };
    }
    return { __proto__: null, ok: false, name: 'Error', message: cut('Uncaught ' + toStr(error), maxChars) };
  } catch {
    return { __proto__: null, ok: false, name: 'Error', message: '[an error that could not be described]' };
  }
}

return function finish(code, inputJson, maxOutputChars) {
  if (inputJson !== undefined) {
    defineProperty(globalThis, 'input', { value: parse(inputJson), writable: true, configurable: true, enumerable: false });
  }
  let completion;
  try {
    completion = indirectEval(code);
  } catch (error) {
    return describeError(error, maxOutputChars);
  }
  return new P((resolve) => {
    const settled = reflectApply(promiseResolve, P, [completion]);
    reflectApply(promiseThen, settled, [
      (value) => {
        let json;
        try {
          json = stringify(value);
        } catch (error) {
          resolve(describeError(error, maxOutputChars));
          return;
        }
        if (json !== undefined && json.length > maxOutputChars) {
          resolve({ __proto__: null, ok: false, name: 'OutputLimit', message: 'The result is larger than ' + maxOutputChars + ' bytes as JSON.' });
          return;
        }
        resolve({ __proto__: null, ok: true, json });
      },
      (error) => resolve(describeError(error, maxOutputChars)),
    ]);
  });
};
`;
