// The peer bench's upstream: an OpenAI Chat Completions server on 127.0.0.1 that answers
// every POST with response bytes built once (a `chat.completion`, or the same answer as an
// SSE stream of chunks ending in `data: [DONE]`, in one chunked write), so that the harness
// costs little CPU beside the targets it measures. Requests are read as HTTP/1.1 with a
// Content-Length body, keep-alive, one after another on a connection; the body is parsed
// only to tell a streamed request (`"stream": true`) from the rest.
import { createServer } from 'node:net';

const TEXT = 'The quick brown fox jumps over the lazy dog. '.repeat(4);
const base = { id: 'chatcmpl-up', created: 1, model: 'gpt-fake' };
const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
const completion = JSON.stringify({
  ...base,
  object: 'chat.completion',
  choices: [{ index: 0, message: { role: 'assistant', content: TEXT, refusal: null }, finish_reason: 'stop', logprobs: null }],
  usage,
});
const chunk = (delta: unknown, finish: string | null = null) => `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const events =
  chunk({ role: 'assistant', content: '' }) + chunk({ content: TEXT }) + chunk({}, 'stop') + `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [], usage })}\n\n` + 'data: [DONE]\n\n';
const plain = Buffer.from(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(completion)}\r\nconnection: keep-alive\r\nkeep-alive: timeout=60\r\n\r\n${completion}`);
const streamed = Buffer.from(
  `HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\ntransfer-encoding: chunked\r\nconnection: keep-alive\r\nkeep-alive: timeout=60\r\n\r\n` +
    `${Buffer.byteLength(events).toString(16)}\r\n${events}\r\n0\r\n\r\n`,
);
const notFound = Buffer.from('HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}');

const HEAD_END = Buffer.from('\r\n\r\n');

const server = createServer({ noDelay: true }, (socket) => {
  let buf: Buffer = Buffer.alloc(0);
  socket.on('error', () => socket.destroy());
  socket.on('data', (data: Buffer) => {
    buf = buf.length === 0 ? data : Buffer.concat([buf, data]);
    for (;;) {
      const headEnd = buf.indexOf(HEAD_END);
      if (headEnd < 0) return;
      const head = buf.toString('latin1', 0, headEnd);
      const match = /\r\ncontent-length:[ \t]*(\d+)/i.exec(head);
      const length = match === null ? 0 : Number(match[1]);
      const end = headEnd + HEAD_END.length + length;
      if (buf.length < end) return;
      const body = buf.subarray(headEnd + HEAD_END.length, end);
      buf = buf.subarray(end);
      if (!head.startsWith('POST ') || !head.includes('/chat/completions')) {
        socket.write(notFound);
        continue;
      }
      let stream = false;
      try {
        stream = (JSON.parse(body.toString('utf8')) as { stream?: unknown }).stream === true;
      } catch {
        // Not JSON: answered like any other request; the targets never send it.
      }
      socket.write(stream ? streamed : plain);
    }
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${address.port}` })}\n`);
});
process.on('SIGTERM', () => {
  server.close();
  process.exit(0);
});
