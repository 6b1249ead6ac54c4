// A streaming OpenAI upstream that paces its tokens like a model: the role chunk at once,
// then one `tok ` content token per ~33 ms (about 30 tokens/s) per stream, `max_tokens`
// tokens in all (default 300), then the finish chunk, usage and [DONE]. Streams are spread
// over 7 phases of one shared ticker, so 10,000 streams cost 7 timers, not 10,000.
//
// It shares the machine's cores with the target measured, so it is kept cheap, the same for
// every target: a stream's token chunk is built once, already framed as an HTTP/1.1 chunk
// (`<size>\r\n<data>\r\n`), and written to the socket as those bytes; the role chunk (which
// sends the headers) and the end of the stream go through the response, whose `end()`
// writes the final zero-length chunk. The bytes on the wire are the same as `res.write`'s.
import { createServer } from 'node:http';
import type { ServerResponse } from 'node:http';

interface Stream {
  res: ServerResponse;
  left: number;
  base: string;
  /** One token's SSE frame as a chunk of the chunked body. */
  token: Buffer;
}

/** `text` as one chunk of a `Transfer-Encoding: chunked` body. */
const httpChunk = (text: string): Buffer => {
  const data = Buffer.from(text);
  return Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]);
};

const PHASES = 7;
const TOKEN_INTERVAL_MS = 33;
const phases: Set<Stream>[] = Array.from({ length: PHASES }, () => new Set());
let nextPhase = 0;

const chunk = (stream: Stream, delta: string, finish: string | null = null): string =>
  `data: {${stream.base},"object":"chat.completion.chunk","choices":[{"index":0,"delta":${delta},"finish_reason":${finish === null ? 'null' : `"${finish}"`}}]}\n\n`;

let phase = 0;
setInterval(() => {
  const streams = phases[phase]!;
  phase = (phase + 1) % PHASES;
  for (const stream of streams) {
    if (stream.left > 0) {
      // The headers and the role chunk went out through the response already; the socket is its own.
      stream.res.socket?.write(stream.token);
      stream.left--;
      continue;
    }
    streams.delete(stream);
    stream.res.write(chunk(stream, '{}', 'stop'));
    stream.res.write(`data: {${stream.base},"object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":300,"total_tokens":310}}\n\n`);
    stream.res.end('data: [DONE]\n\n');
  }
}, TOKEN_INTERVAL_MS / PHASES);

const server = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (part: string) => (body += part));
  req.on('end', () => {
    let parsed: { model?: string; max_tokens?: number; stream?: boolean };
    try {
      parsed = JSON.parse(body) as typeof parsed;
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"bad json","type":"invalid_request_error","param":null,"code":null}}');
      return;
    }
    const base = `"id":"chatcmpl-paced","created":1,"model":${JSON.stringify(parsed.model ?? 'gpt-fake')}`;
    if (parsed.stream !== true) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{${base},"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"tok","refusal":null},"finish_reason":"stop","logprobs":null}],"usage":{"prompt_tokens":10,"completion_tokens":1,"total_tokens":11}}`);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const stream: Stream = { res, left: parsed.max_tokens ?? 300, base, token: Buffer.alloc(0) };
    stream.token = httpChunk(chunk(stream, '{"content":"tok "}'));
    res.write(chunk(stream, '{"role":"assistant","content":""}'));
    const owner = phases[nextPhase]!;
    nextPhase = (nextPhase + 1) % PHASES;
    owner.add(stream);
    res.on('close', () => owner.delete(stream));
  });
});
server.maxConnections = Infinity;
// A backlog as large as the targets': a model server's accept queue is not what is measured.
server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${address.port}` })}\n`);
});
process.on('SIGTERM', () => process.exit(0));
