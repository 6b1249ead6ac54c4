import { request } from 'node:http';

/** One HTTP request as the fuzzer sends it: exact bytes, exact headers. */
export interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

/** What came back, or how the exchange failed. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** The connection ended before the whole body arrived (a reset, or a body cut short). */
  aborted: boolean;
  /** The client's own socket closed after the exchange (the gateway let go of it). */
  socketClosed: Promise<void>;
  /** The client hung up on purpose (`leaveAfterBytes`) before the answer ended. */
  left: boolean;
}

/**
 * Sends one request on a fresh connection (no agent, `Connection: close`) and reads the
 * whole answer. Rejects when no answer came within `timeoutMs`: a hang is a finding.
 */
export function exchange(origin: string, raw: RawRequest, timeoutMs: number, options: { leaveAfterBytes?: number } = {}): Promise<RawAnswer> {
  const url = new URL(raw.path, origin);
  return new Promise((resolve, reject) => {
    let settled = false;
    const req = request(
      { host: url.hostname, port: url.port, method: raw.method, path: `${url.pathname}${url.search}`, headers: { connection: 'close', ...raw.headers }, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        let aborted = false;
        let received = 0;
        let left = false;
        const leave = options.leaveAfterBytes;
        const maybeLeave = (): void => {
          if (leave === undefined || left || received < leave || res.complete) return;
          left = true;
          req.destroy();
        };
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          received += chunk.length;
          maybeLeave();
        });
        maybeLeave();
        res.on('aborted', () => (aborted = true));
        res.on('error', () => (aborted = true));
        res.on('close', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), aborted: aborted || !res.complete, socketClosed, left });
        });
      },
    );
    const socketClosed = new Promise<void>((done) => req.on('socket', (socket) => (socket.destroyed ? done() : socket.once('close', () => done()))));
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      req.destroy();
      reject(new Error(`no complete answer within ${timeoutMs} ms to ${raw.method} ${raw.path}: the gateway hangs`));
    }, timeoutMs);
    req.on('error', (error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(new Error(`the exchange failed before an answer: ${error.message}`));
    });
    req.end(raw.body);
  });
}

/** Resolves within `ms` or rejects with `what`: a bounded wait, not a speed assertion. */
export async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(what)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `check` until it returns undefined (done) or `ms` passed; then throws its last complaint. */
export async function eventually(ms: number, check: () => Promise<string | undefined>): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const complaint = await check();
    if (complaint === undefined) return;
    if (Date.now() > until) throw new Error(complaint);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Records every uncaught exception and unhandled rejection while installed, and anything
 * written through `console` (the gateway logs through pino; a library printing to the
 * console writes stray lines into its log stream).
 */
export function watchProcess(): { failures: string[]; stop(): void } {
  const failures: string[] = [];
  const onException = (error: Error): void => void failures.push(`uncaughtException: ${error.stack ?? error.message}`);
  const onRejection = (reason: unknown): void => void failures.push(`unhandledRejection: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`);
  process.on('uncaughtException', onException);
  process.on('unhandledRejection', onRejection);
  const methods = ['log', 'info', 'warn', 'error', 'debug'] as const;
  const originals = methods.map((method) => Object.getOwnPropertyDescriptor(console, method));
  for (const method of methods) console[method] = (...args: unknown[]) => void failures.push(`console.${method}: ${args.map(String).join(' ').slice(0, 500)}`);
  return {
    failures,
    stop: () => {
      process.off('uncaughtException', onException);
      process.off('unhandledRejection', onRejection);
      methods.forEach((method, i) => {
        const original = originals[i];
        if (original !== undefined) Object.defineProperty(console, method, original);
      });
    },
  };
}
