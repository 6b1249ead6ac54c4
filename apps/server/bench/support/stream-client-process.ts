// One client process of the capacity bench (it starts several, so that at thousands of
// streams the client's own event loop is not what delays first tokens). Told by its
// parent over IPC to open `count` streams in waves, it reports progress (streams that
// have their first token, streams that ended) every 100 ms, and at the end each stream's
// time to first token, how many completed with `[DONE]`, and its own CPU time. Progress
// also counts the tokens received so far, so the bench can tell a target's CPU time per token.
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
}

/** What a client reports. */
export type ClientReport =
  | { type: 'ready' }
  | { type: 'progress'; first: number; ended: number; tokens: number }
  | {
      type: 'done';
      ttfts: number[];
      /** Per stream, ms from sending to the TCP connection being established (SYN retransmits show as 1 s, 3 s, 7 s…). */
      connects: number[];
      /** Per stream, ms from sending to the response headers. */
      headers: number[];
      ok: number;
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

function openStream(agent: Agent, command: OpenCommand, onFirst: () => void, onEnd: () => void): Promise<StreamOutcome> {
  return new Promise((resolve) => {
    const startedAt = performance.now();
    let ttftMs = Number.NaN;
    let connectMs = Number.NaN;
    let headersMs = Number.NaN;
    let tail = '';
    let settled = false;
    const settle = (ok: boolean): void => {
      if (settled) return;
      settled = true;
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
  const streams: Promise<StreamOutcome>[] = [];
  const onFirst = (): void => {
    first++;
    if (first === command.count) report();
  };
  for (let i = 0; i < command.count; i++) {
    streams.push(
      openStream(agent, command, onFirst, () => {
        ended++;
      }),
    );
    if (i % command.wave === command.wave - 1) await new Promise((r) => setTimeout(r, command.waveMs));
  }
  const outcomes = await Promise.all(streams);
  clearInterval(ticker);
  report();
  agent.destroy();
  const cpu = process.cpuUsage(cpuAtStart);
  send({
    type: 'done',
    ttfts: outcomes.map((o) => o.ttftMs).filter((t) => !Number.isNaN(t)),
    connects: outcomes.map((o) => o.connectMs).filter((t) => !Number.isNaN(t)),
    headers: outcomes.map((o) => o.headersMs).filter((t) => !Number.isNaN(t)),
    ok: outcomes.filter((o) => o.ok).length,
    cpuMs: (cpu.user + cpu.system) / 1000,
    wallMs: performance.now() - startedAt,
  });
}

process.on('message', (message: OpenCommand) => {
  if (message.type === 'open') void run(message);
});
// The parent's IPC channel closing (it stopped) ends this process too.
process.on('disconnect', () => process.exit(0));
send({ type: 'ready' });
