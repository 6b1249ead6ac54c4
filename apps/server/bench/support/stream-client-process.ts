// One client process of the capacity bench (it starts several, so that at thousands of
// streams the client's own event loop is not what delays first tokens). Told by its
// parent over IPC to open `count` streams in waves (the opening burst), it reports progress
// (streams that have their first token, streams that ended) every 100 ms, and at the end each
// stream's time to first token, how many completed with `[DONE]`, and its own CPU time.
// Progress also counts the tokens received so far, so the bench can tell a target's CPU time
// per token. Told to hold a steady state, it opens new streams at a fixed rate, evenly spaced,
// each replacing (closing, as a client that leaves does) the oldest stream of the burst still
// open, so that the number open stays the same; it reports those arrivals' times to first token.
import { Agent, request as httpRequest } from 'node:http';

/** What the parent sends: open `count` streams, `wave` of them every `waveMs`. */
export interface OpenCommand {
  type: 'open';
  url: string;
  model: string;
  count: number;
  /** Tokens per stream (`max_tokens` of the request). */
  tokens: number;
  wave: number;
  waveMs: number;
  /**
   * Opens this many streams, then waits for a `resume` before opening the rest (the bench
   * reads the target's memory with half the streams open, to tell what one more costs).
   */
  pauseAfter?: number;
}

/** What the parent sends to have an `open` paused at `pauseAfter` go on. */
export interface ResumeCommand {
  type: 'resume';
}

/**
 * What the parent sends for the steady state: one new stream every `intervalMs` (the first
 * after `offsetMs`, so that the clients' arrivals interleave), `arrivals` in all, each
 * replacing the oldest burst stream still open. Once each has its first token (or after
 * `graceMs`), the new streams are closed: they were opened for their time to first token.
 */
export interface SteadyCommand {
  type: 'steady';
  url: string;
  model: string;
  tokens: number;
  arrivals: number;
  intervalMs: number;
  offsetMs: number;
  graceMs: number;
}

/** What a client reports. */
export type ClientReport =
  | { type: 'ready' }
  | { type: 'progress'; first: number; ended: number; tokens: number }
  | {
      type: 'steady-done';
      /** Times to first token of the streams opened in the steady state. */
      ttfts: number[];
      connects: number[];
      headers: number[];
      /** Streams opened in the steady state, and how many of them never had a first token. */
      arrivals: number;
      noFirstToken: number;
      /** Burst streams closed to make room (none left to close means the phase ran too long). */
      replaced: number;
      /** How late the arrivals were against their schedule (ms; the client's own loop delay). */
      lateP99Ms: number;
    }
  | {
      type: 'done';
      ttfts: number[];
      /** Per stream, ms from sending to the TCP connection being established (SYN retransmits show as 1 s, 3 s, 7 s…). */
      connects: number[];
      /** Per stream, ms from sending to the response headers. */
      headers: number[];
      ok: number;
      /** Burst streams closed by the steady state (neither completed nor failed). */
      replaced: number;
      cpuMs: number;
      wallMs: number;
    };

interface StreamOutcome {
  ttftMs: number;
  connectMs: number;
  headersMs: number;
  ok: boolean;
}

const send = (report: ClientReport): void => {
  process.send?.(report);
};

let tokens = 0;

/** Occurrences of the upstream's token text (`tok `) in one read: tokens never straddle reads of one frame. */
function countTokens(part: string): number {
  let count = 0;
  for (let at = part.indexOf('tok '); at !== -1; at = part.indexOf('tok ', at + 4)) count++;
  return count;
}

/** One stream while it is open: `close` ends it from the client's side (it counts as replaced, not failed). */
interface OpenStream {
  outcome: Promise<StreamOutcome>;
  close: () => void;
  /** Whether it ended (completed, failed or closed). */
  ended: boolean;
  replaced: boolean;
  hasFirst: boolean;
}

function openStream(agent: Agent, command: Pick<OpenCommand, 'url' | 'model' | 'tokens'>, onFirst: () => void, onEnd: () => void): OpenStream {
  const handle: OpenStream = { outcome: Promise.resolve({ ttftMs: Number.NaN, connectMs: Number.NaN, headersMs: Number.NaN, ok: false }), close: () => undefined, ended: false, replaced: false, hasFirst: false };
  handle.outcome = new Promise((resolve) => {
    const startedAt = performance.now();
    let ttftMs = Number.NaN;
    let connectMs = Number.NaN;
    let headersMs = Number.NaN;
    let tail = '';
    let settled = false;
    const settle = (ok: boolean): void => {
      if (settled) return;
      settled = true;
      handle.ended = true;
      onEnd();
      resolve({ ttftMs, connectMs, headersMs, ok });
    };
    const body = JSON.stringify({ model: command.model, stream: true, max_tokens: command.tokens, messages: [{ role: 'user', content: 'Tell me a long story.' }] });
    const req = httpRequest(`${command.url}/chat/completions`, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-bench-sent-at': String(performance.timeOrigin + startedAt) } }, (res) => {
      headersMs = performance.now() - startedAt;
      res.setEncoding('utf8');
      res.on('data', (part: string) => {
        tokens += countTokens(part);
        if (Number.isNaN(ttftMs) && part.includes('tok ')) {
          ttftMs = performance.now() - startedAt;
          handle.hasFirst = true;
          onFirst();
        }
        // Only the tail is needed, to see [DONE].
        tail = (tail + part).slice(-64);
      });
      res.on('end', () => settle(res.statusCode === 200 && tail.includes('[DONE]')));
      res.on('error', () => settle(false));
      res.on('close', () => settle(false));
    });
    req.on('error', () => settle(false));
    req.once('socket', (socket) => socket.once('connect', () => (connectMs = performance.now() - startedAt)));
    req.end(body);
    handle.close = () => {
      if (handle.ended) return;
      handle.replaced = true;
      req.destroy();
    };
  });
  return handle;
}

const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

// The burst's streams, oldest first: the steady state closes them in this order.
const burst: OpenStream[] = [];
let nextToReplace = 0;

async function steady(command: SteadyCommand): Promise<void> {
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const streams: OpenStream[] = [];
  const late: number[] = [];
  let replaced = 0;
  const startedAt = performance.now() + command.offsetMs;
  for (let i = 0; i < command.arrivals; i++) {
    // Each arrival at its time on the schedule (not after the previous one: a slow target does not slow the arrivals).
    const due = startedAt + i * command.intervalMs;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    late.push(Math.max(0, performance.now() - due));
    while (nextToReplace < burst.length && burst[nextToReplace]!.ended) nextToReplace++;
    const oldest = burst[nextToReplace];
    if (oldest !== undefined) {
      nextToReplace++;
      replaced++;
      oldest.close();
    }
    streams.push(openStream(agent, command, () => undefined, () => undefined));
  }
  const graceUntil = performance.now() + command.graceMs;
  while (streams.some((s) => !s.hasFirst && !s.ended) && performance.now() < graceUntil) await new Promise((r) => setTimeout(r, 20));
  for (const s of streams) s.close();
  const outcomes = await Promise.all(streams.map((s) => s.outcome));
  agent.destroy();
  send({
    type: 'steady-done',
    ttfts: outcomes.map((o) => o.ttftMs).filter((t) => !Number.isNaN(t)),
    connects: outcomes.map((o) => o.connectMs).filter((t) => !Number.isNaN(t)),
    headers: outcomes.map((o) => o.headersMs).filter((t) => !Number.isNaN(t)),
    arrivals: command.arrivals,
    noFirstToken: outcomes.filter((o) => Number.isNaN(o.ttftMs)).length,
    replaced,
    lateP99Ms: percentile(late, 99),
  });
}

async function run(command: OpenCommand): Promise<void> {
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const cpuAtStart = process.cpuUsage();
  const startedAt = performance.now();
  let first = 0;
  let ended = 0;
  const report = (): void => send({ type: 'progress', first, ended, tokens });
  const ticker = setInterval(report, 100);
  const onFirst = (): void => {
    first++;
    if (first === command.count) report();
  };
  for (let i = 0; i < command.count; i++) {
    if (i === command.pauseAfter) await resumed;
    burst.push(
      openStream(agent, command, onFirst, () => {
        ended++;
      }),
    );
    if (i % command.wave === command.wave - 1) await new Promise((r) => setTimeout(r, command.waveMs));
  }
  const outcomes = await Promise.all(burst.map((s) => s.outcome));
  const kept = outcomes.filter((_, i) => !burst[i]!.replaced);
  clearInterval(ticker);
  report();
  agent.destroy();
  const cpu = process.cpuUsage(cpuAtStart);
  send({
    type: 'done',
    ttfts: outcomes.map((o) => o.ttftMs).filter((t) => !Number.isNaN(t)),
    connects: outcomes.map((o) => o.connectMs).filter((t) => !Number.isNaN(t)),
    headers: outcomes.map((o) => o.headersMs).filter((t) => !Number.isNaN(t)),
    ok: kept.filter((o) => o.ok).length,
    replaced: outcomes.length - kept.length,
    cpuMs: (cpu.user + cpu.system) / 1000,
    wallMs: performance.now() - startedAt,
  });
}

let resume: () => void = () => undefined;
const resumed = new Promise<void>((resolve) => (resume = resolve));

process.on('message', (message: OpenCommand | ResumeCommand | SteadyCommand) => {
  switch (message.type) {
    case 'open':
      void run(message);
      return;
    case 'resume':
      resume();
      return;
    case 'steady':
      void steady(message);
      return;
    default: {
      const unexpected: never = message;
      throw new Error(`unknown command ${JSON.stringify(unexpected)}`);
    }
  }
});
// The parent's IPC channel closing (it stopped) ends this process too.
process.on('disconnect', () => process.exit(0));
send({ type: 'ready' });
