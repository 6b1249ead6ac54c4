// An upstream (or a proxy in front of it) that compresses its answers although the gateway
// asked for no compression: `Content-Encoding: gzip`, `deflate` or `br` on a JSON body and on
// an SSE stream, a real compressed body from node:zlib. Through the gateway, with the official
// `openai` client: the answer arrives decoded, as from an upstream that does not compress; a
// compressed message past `limits.upstreamMessageLimitBytes` is counted decoded (a small
// compressed body can hold a huge one) and the upstream is cut there; an encoding the gateway
// cannot decode, or a body that is not what its header says, fails with a 502 that says so.
import type { ServerResponse } from 'node:http';
import { brotliCompressSync, createGzip, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import OpenAI from 'openai';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from '../src/index.ts';
import type { ToolwireServer } from '../src/index.ts';
import { closeServed, serve } from './helpers/serve-handler.ts';

const MIB = 1024 * 1024;
const chunkBase = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm' };
const sse = (chunk: unknown): string => `data: ${JSON.stringify(chunk)}\n\n`;
const completion = (content: string): string =>
  JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] });
const stream = (content: string): string =>
  sse({ ...chunkBase, choices: [{ index: 0, delta: { role: 'assistant', content }, finish_reason: null }] }) + sse({ ...chunkBase, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }) + 'data: [DONE]\n\n';

const ENCODERS: Record<string, (text: string) => Buffer> = {
  gzip: (text) => gzipSync(text),
  deflate: (text) => deflateSync(text),
  br: (text) => brotliCompressSync(Buffer.from(text)),
  // Not a compression this gateway decodes.
  compress: (text) => Buffer.from(text),
  // A header that says gzip over a body that is not.
  'gzip-lie': (text) => Buffer.from(text),
};

let gateway: ToolwireServer | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  await closeServed();
});

/** A gateway in front of an upstream that answers with `encoding`; `body` picks the content. */
async function start(encoding: string, content: (streamed: boolean) => string): Promise<{ client: OpenAI; acceptEncoding: (string | undefined)[] }> {
  const acceptEncoding: (string | undefined)[] = [];
  const origin = await serve((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      acceptEncoding.push(req.headers['accept-encoding']);
      const streamed = (JSON.parse(text) as { stream?: boolean }).stream === true;
      const body = (ENCODERS[encoding] as (text: string) => Buffer)(streamed ? stream(content(true)) : completion(content(false)));
      res.writeHead(200, { 'content-type': streamed ? 'text/event-stream' : 'application/json', 'content-encoding': encoding === 'gzip-lie' ? 'gzip' : encoding });
      // In pieces, as a network would deliver a compressed stream.
      for (let offset = 0; offset < body.length; offset += 1000) res.write(body.subarray(offset, offset + 1000));
      res.end();
    });
  });
  gateway = createServer({
    logger: pino({ level: 'silent' }),
    providers: { openai: { baseURL: `${origin}/v1`, apiKey: 'sk-upstream' } },
    tools: { builtins: [] },
    limits: { upstreamMessageLimitBytes: MIB },
  });
  const baseURL = await gateway.listen({ port: 0, host: '127.0.0.1' });
  return { client: new OpenAI({ apiKey: 'unused', baseURL, maxRetries: 0, timeout: 30_000 }), acceptEncoding };
}

const messages = [{ role: 'user' as const, content: 'Hi' }];

async function streamedText(client: OpenAI): Promise<string> {
  let text = '';
  for await (const chunk of await client.chat.completions.create({ model: 'openai/m', messages, stream: true })) text += chunk.choices[0]?.delta.content ?? '';
  return text;
}

describe('an upstream that compresses its answer unasked', () => {
  for (const encoding of ['gzip', 'deflate', 'br']) {
    it(`is read decoded: ${encoding}, a whole answer and a stream`, async () => {
      const { client, acceptEncoding } = await start(encoding, () => 'Hello, decoded.');
      const answer = await client.chat.completions.create({ model: 'openai/m', messages });
      expect(answer.choices[0]?.message.content).toBe('Hello, decoded.');
      expect(await streamedText(client)).toBe('Hello, decoded.');
      // The gateway asked for nothing compressed.
      expect(acceptEncoding).toEqual([undefined, undefined]);
    });
  }

  it('counts a compressed message decoded against limits.upstreamMessageLimitBytes', async () => {
    // 4 MiB of text compresses to a few KiB.
    const { client } = await start('gzip', () => 'z'.repeat(4 * MIB));
    const error = await client.chat.completions.create({ model: 'openai/m', messages }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((error as Error).message).toMatch(/a response body larger than 1 MiB/u);
    const streamed = await streamedText(client).catch((e: unknown) => e);
    expect((streamed as Error).message).toMatch(/more than 1 MiB in one stream event/u);
  });

  it('cuts a compressed stream whose event never ends once its decoded size passes the limit', async () => {
    let closed = false;
    let written = 0;
    const origin = await serve((req, res: ServerResponse) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
        res.socket?.once('close', () => (closed = true));
        const gzip = createGzip();
        gzip.pipe(res);
        const piece = 'y'.repeat(64 * 1024);
        const pour = (): void => {
          // Up to 1 GiB decoded (about 1 MiB compressed) unless the gateway stops reading.
          while (!res.destroyed && written < 1024 * MIB) {
            written += piece.length;
            if (!gzip.write(written === piece.length ? `data: ${piece}` : piece)) {
              gzip.once('drain', pour);
              return;
            }
          }
          gzip.end();
        };
        pour();
      });
    });
    gateway = createServer({ logger: pino({ level: 'silent' }), providers: { openai: { baseURL: `${origin}/v1`, apiKey: 'sk-upstream' } }, tools: { builtins: [] }, limits: { upstreamMessageLimitBytes: MIB } });
    const client = new OpenAI({ apiKey: 'unused', baseURL: await gateway.listen({ port: 0, host: '127.0.0.1' }), maxRetries: 0, timeout: 30_000 });
    const error = await streamedText(client).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/more than 1 MiB in one stream event/u);
    await expect.poll(() => closed, { timeout: 10_000 }).toBe(true);
    // Decoded, far less than the upstream meant to send was made (the compressor's and the socket's buffers hold some).
    expect(written).toBeLessThan(256 * MIB);
  });

  it('reads a deflate body sent raw, without its zlib header (as browsers and undici do)', async () => {
    const origin = await serve((req, res: ServerResponse) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'deflate' }).end(deflateRawSync(completion('Hello, raw.'))));
    });
    gateway = createServer({ logger: pino({ level: 'silent' }), providers: { openai: { baseURL: `${origin}/v1`, apiKey: 'sk-upstream' } }, tools: { builtins: [] } });
    const client = new OpenAI({ apiKey: 'unused', baseURL: await gateway.listen({ port: 0, host: '127.0.0.1' }), maxRetries: 0, timeout: 30_000 });
    const answer = await client.chat.completions.create({ model: 'openai/m', messages });
    expect(answer.choices[0]?.message.content).toBe('Hello, raw.');
  });

  it('fails with a 502 naming an encoding it cannot decode', async () => {
    const { client } = await start('compress', () => 'Hello');
    const error = await client.chat.completions.create({ model: 'openai/m', messages }).catch((e: unknown) => e);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((error as Error).message).toMatch(/Content-Encoding: compress/u);
  });

  it('fails with a 502 when the body is not what its Content-Encoding says', async () => {
    const { client } = await start('gzip-lie', () => 'Hello');
    const error = await client.chat.completions.create({ model: 'openai/m', messages }).catch((e: unknown) => e);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((error as Error).message).toMatch(/Content-Encoding: gzip/u);
  });
});
