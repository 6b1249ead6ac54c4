import { createServer } from 'node:http';

/** One `data:` frame of a Chat Completions stream: a choice delta with an optional finish reason. */
export interface PacedFrame {
  delta: Record<string, unknown>;
  finish?: string;
}

/** A local Chat Completions server that writes each frame of its stream `delayMs` after the previous one. */
export interface PacedUpstream {
  url: string;
  /** The parsed bodies of the chat requests it got. */
  requests: Record<string, unknown>[];
  /** `performance.now()` when each frame of the last stream was written, then the `[DONE]` frame. */
  sentAt: number[];
  close(): Promise<void>;
}

/**
 * Starts a paced streaming upstream on 127.0.0.1: every chat request is answered with
 * `frames(body)` one by one, `delayMs` apart (as a real model server trickles tokens), then
 * `[DONE]`. Only streaming requests are served.
 */
export async function startPacedOpenAI(options: { frames: (body: Record<string, unknown>) => PacedFrame[]; delayMs: number }): Promise<PacedUpstream> {
  const requests: Record<string, unknown>[] = [];
  let sentAt: number[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      let text = '';
      for await (const chunk of req) text += String(chunk);
      if (req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error', param: null, code: null } }));
        return;
      }
      const body = JSON.parse(text) as Record<string, unknown>;
      requests.push(body);
      sentAt = [];
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const frame of options.frames(body)) {
        if (res.destroyed) return;
        res.write(
          `data: ${JSON.stringify({ id: 'chatcmpl-paced', object: 'chat.completion.chunk', created: 1, model: String(body.model), choices: [{ index: 0, delta: frame.delta, finish_reason: frame.finish ?? null }] })}\n\n`,
        );
        sentAt.push(performance.now());
        await new Promise((resolve) => setTimeout(resolve, options.delayMs));
      }
      res.end('data: [DONE]\n\n');
      sentAt.push(performance.now());
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    get sentAt() {
      return sentAt;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
