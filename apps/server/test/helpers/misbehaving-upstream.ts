import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * How the paced upstream behaves, picked by the model name of the request
 * (`openai/<behaviour>` at the gateway). Every streamed event is written on its own,
 * `pauseMs` after the previous one, as a real server paces its tokens.
 */
export type UpstreamBehaviour =
  /** Text, the finish chunk, a separate `choices: []` usage chunk, `[DONE]`. */
  | 'usage-chunk'
  /** Text, the finish chunk, `[DONE]`: no usage at all. */
  | 'no-usage'
  /** Text, then `usage` on the finish chunk itself (several compatible servers), `[DONE]`. */
  | 'usage-on-finish'
  /** A tool call (header then argument fragments), finish `tool_calls`, usage, `[DONE]`. */
  | 'tool-call'
  /** A few text events, then the TCP connection is reset. */
  | 'reset'
  /** Text and the finish chunk, then the body ends without `[DONE]`. */
  | 'no-done'
  /** A few text events, then the body ends: no finish chunk, no `[DONE]`. */
  | 'cut'
  /** Comment lines, unknown fields, stray bytes and blank events between valid events. */
  | 'garbage'
  /** A data event whose JSON is broken, mid-stream. */
  | 'invalid-json'
  /** The whole `usage-chunk` answer written one byte at a time. */
  | 'trickle'
  /** Headers, one event, then silence (the gateway's idle timeout must cut it). */
  | 'stall'
  /** A long pause (400 ms) mid-answer, then the rest. */
  | 'pause';

/** A local Chat Completions server on 127.0.0.1 with the behaviours above. */
export interface PacedUpstream {
  url: string;
  /** Streamed responses still open right now. */
  readonly open: number;
  close(): Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const USAGE = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
}

/** Starts the upstream; `pauseMs` (default 25) is the time between two streamed events. */
export async function startPacedUpstream(options: { pauseMs?: number } = {}): Promise<PacedUpstream> {
  const pause = options.pauseMs ?? 25;
  let open = 0;

  const answer = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = await readBody(req);
    const model = String(body.model);
    const behaviour = model as UpstreamBehaviour;
    const base = { id: 'chatcmpl-paced', object: 'chat.completion.chunk', created: 1_700_000_000, model };
    if (body.stream !== true) {
      if (behaviour === 'reset') {
        req.socket.resetAndDestroy();
        return;
      }
      if (behaviour === 'invalid-json' || behaviour === 'garbage') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"id": "chatcmpl-paced", "choices": [');
        return;
      }
      if (behaviour === 'stall') {
        await sleep(60_000);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      const message = behaviour === 'tool-call'
        ? { role: 'assistant', content: null, tool_calls: [{ id: 'call_up1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }] }
        : { role: 'assistant', content: 'Hello there.' };
      res.end(
        JSON.stringify({
          ...base,
          object: 'chat.completion',
          choices: [{ index: 0, message, finish_reason: behaviour === 'tool-call' ? 'tool_calls' : 'stop', logprobs: null }],
          ...(behaviour === 'no-usage' ? {} : { usage: USAGE }),
        }),
      );
      return;
    }

    open++;
    res.once('close', () => open--);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const frame = (choices: unknown[], extra: Record<string, unknown> = {}): string => `data: ${JSON.stringify({ ...base, choices, ...extra })}\n\n`;
    const delta = (d: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}): string =>
      frame([{ index: 0, delta: d, finish_reason: finish, logprobs: null }], extra);
    const text = [delta({ role: 'assistant', content: '', refusal: null }), delta({ content: 'Hello' }), delta({ content: ' there' }), delta({ content: '.' })];
    // `[DONE]` and the end of the body in separate writes, as many servers send them.
    const done = async (): Promise<void> => {
      if (res.destroyed) return;
      res.write('data: [DONE]\n\n');
      await sleep(5);
      res.end();
    };
    const paced = async (frames: readonly string[]): Promise<boolean> => {
      for (const f of frames) {
        if (res.destroyed) return false;
        res.write(f);
        await sleep(pause);
      }
      return !res.destroyed;
    };

    switch (behaviour) {
      case 'usage-chunk':
      case 'pause':
        if (behaviour === 'pause') {
          if (!(await paced(text.slice(0, 2)))) return;
          await sleep(400);
          if (!(await paced(text.slice(2)))) return;
        } else if (!(await paced(text))) return;
        if (!(await paced([delta({}, 'stop'), frame([], { usage: USAGE })]))) return;
        await done();
        return;
      case 'no-usage':
        if (!(await paced([...text, delta({}, 'stop')]))) return;
        await done();
        return;
      case 'usage-on-finish':
        if (!(await paced([...text, delta({}, 'stop', { usage: USAGE })]))) return;
        await done();
        return;
      case 'tool-call': {
        const header = delta({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_up1', type: 'function', function: { name: 'lookup', arguments: '' } }] });
        const args = ['{"q"', ':"x', '"}'].map((a) => delta({ tool_calls: [{ index: 0, function: { arguments: a } }] }));
        if (!(await paced([header, ...args, delta({}, 'tool_calls'), frame([], { usage: USAGE })]))) return;
        await done();
        return;
      }
      case 'reset':
        if (!(await paced(text.slice(0, 2)))) return;
        res.socket?.resetAndDestroy();
        return;
      case 'no-done':
        if (!(await paced([...text, delta({}, 'stop')]))) return;
        res.end();
        return;
      case 'cut':
        if (!(await paced(text.slice(0, 3)))) return;
        res.end();
        return;
      case 'garbage':
        if (!(await paced([': keep-alive comment\n\n', text[0] ?? '', 'garbage without a colon\n\n', 'id: 5\n\n', text[1] ?? '', 'retry: abc\nid: 7\n\n']))) return;
        res.write(Buffer.from([0xff, 0xfe, 0x0a, 0x0a]));
        await sleep(pause);
        if (!(await paced([...text.slice(2), delta({}, 'stop'), frame([], { usage: USAGE })]))) return;
        await done();
        return;
      case 'invalid-json':
        if (!(await paced([...text.slice(0, 2), 'data: {"id": "chatcmpl-paced", "choices": [{"delta": {"content": "x"\n\n', ...text.slice(2)]))) return;
        await done();
        return;
      case 'trickle': {
        const whole = Buffer.from([...text, delta({}, 'stop'), frame([], { usage: USAGE }), 'data: [DONE]\n\n'].join(''));
        for (let i = 0; i < whole.length; i++) {
          if (res.destroyed) return;
          res.write(whole.subarray(i, i + 1));
          if (i % 8 === 0) await sleep(1);
        }
        res.end();
        return;
      }
      case 'stall':
        if (!(await paced(text.slice(0, 2)))) return;
        // Silence until the gateway gives up (or the test's server closes).
        return;
      default: {
        res.end(`data: ${JSON.stringify({ error: { message: `unknown behaviour ${behaviour as string}`, type: 'invalid_request_error' } })}\n\n`);
      }
    }
  };

  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'usage-chunk', object: 'model', created: 1, owned_by: 'paced' }] }));
      return;
    }
    answer(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    get open() {
      return open;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
