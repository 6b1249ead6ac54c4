import { createServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer: text, or one tool call, streamed as Chat Completions chunks. */
export type FakeTurn = { text: string; delayMs?: number } | { toolCall: { name: string; arguments: string }; delayMs?: number };

/** A local server speaking OpenAI's Chat Completions SSE, answering turns in order. */
export interface FakeOpenAI {
  baseURL: string;
  requests: unknown[];
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of req) body += String(chunk);
  return body;
}

/** Starts the fake on 127.0.0.1 with a free port. */
export async function startFakeOpenAI(turns: FakeTurn[]): Promise<FakeOpenAI> {
  const requests: unknown[] = [];
  let next = 0;
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      if (req.url?.endsWith('/models')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [{ id: 'fake-model', object: 'model', created: 0, owned_by: 'test' }] }));
        return;
      }
      requests.push(JSON.parse(body));
      const turn = turns[Math.min(next++, turns.length - 1)];
      if (turn === undefined) throw new Error('no turns');
      if (turn.delayMs) await new Promise((r) => setTimeout(r, turn.delayMs));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const base = { id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 1, model: 'fake-model' };
      const send = (choice: unknown) => res.write(`data: ${JSON.stringify({ ...base, choices: [choice] })}\n\n`);
      send({ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null });
      if ('text' in turn) {
        send({ index: 0, delta: { content: turn.text }, finish_reason: null });
        send({ index: 0, delta: {}, finish_reason: 'stop' });
      } else {
        send({
          index: 0,
          delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: turn.toolCall.name, arguments: '' } }] },
          finish_reason: null,
        });
        send({ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: turn.toolCall.arguments } }] }, finish_reason: null });
        send({ index: 0, delta: {}, finish_reason: 'tool_calls' });
      }
      res.end('data: [DONE]\n\n');
    })().catch(() => {
      res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
