// An upstream (or a proxy before it) that echoes the gateway's API key in the spellings real
// ones use: the key must reach neither the client's error nor any line of the gateway's log,
// and the `openai` SDK's own lines go into that log (when OPENAI_LOG asks), never to stderr.
import { Writable } from 'node:stream';
import OpenAI from 'openai';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createServer } from '../src/index.ts';
import type { ToolwireServer } from '../src/index.ts';
import { closeServed, serve } from './helpers/serve-handler.ts';

const UPSTREAM_KEY = 'sk-gw-upstream+Ab/9xYz=Q7mWp2Lk4Rt8Vn3';

function spellings(key: string): string[] {
  return [
    `Incorrect API key provided: ${key}.`,
    `GET /v1/chat/completions?api-key=${encodeURIComponent(key)}`,
    JSON.stringify({ detail: `bad key ${key}` }).replaceAll('/', '\\/'),
    `Authorization: Basic ${Buffer.from(`user:${key}`).toString('base64')}`,
    `Incorrect API key provided: ${key.slice(0, 16)}...`,
    `KEY ${key.toUpperCase()}`,
  ];
}

function leaks(text: string): string[] {
  const key = UPSTREAM_KEY;
  const pieces = [key, encodeURIComponent(key), key.replaceAll('/', '\\/'), key.replaceAll('/', '\\\\/'), Buffer.from(`user:${key}`).toString('base64').slice(8), key.toUpperCase()];
  const found = new Set<string>();
  for (const piece of pieces) for (let i = 0; i + 12 <= piece.length; i++) if (text.includes(piece.slice(i, i + 12))) found.add(piece.slice(i, i + 12));
  return [...found];
}

let gateway: ToolwireServer | undefined;
afterEach(async () => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  await gateway?.close();
  gateway = undefined;
  await closeServed();
});

async function startWith(handler: Parameters<typeof serve>[0], lines: string[]): Promise<OpenAI> {
  const origin = await serve(handler);
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString().split('\n').filter((line) => line !== ''));
      callback();
    },
  });
  gateway = createServer({ logger: pino({ level: 'debug' }, sink), providers: { openai: { baseURL: `${origin}/v1`, apiKey: UPSTREAM_KEY } }, tools: { builtins: [] } });
  // The test's own client stays quiet whatever OPENAI_LOG says: only the gateway's SDK is watched.
  return new OpenAI({ apiKey: 'unused', baseURL: await gateway.listen({ port: 0, host: '127.0.0.1' }), maxRetries: 0, logLevel: 'off' });
}

describe('an upstream that echoes the key', () => {
  it('never shows it, in any spelling, to the client or in a log line (a 401, a 502 page, a stream)', async () => {
    let spelling = 0;
    let status = 401;
    const lines: string[] = [];
    const client = await startWith((req, res) => {
      req.resume();
      req.on('end', () => {
        const text = spellings((req.headers.authorization ?? '').replace('Bearer ', ''))[spelling] ?? '';
        if (status === 401) res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: text, type: 'invalid_request_error', code: 'invalid_api_key' } }));
        else res.writeHead(502, { 'content-type': 'text/html' }).end(`<html><p>${text}</p></html>`);
      });
    }, lines);
    for (status of [401, 502]) {
      for (spelling = 0; spelling < spellings(UPSTREAM_KEY).length; spelling++) {
        for (const stream of [false, true]) {
          const error = await (stream
            ? (async () => {
                for await (const _chunk of await client.chat.completions.create({ model: 'openai/m', messages: [{ role: 'user', content: 'hi' }], stream: true })) {
                  // drained
                }
              })()
            : client.chat.completions.create({ model: 'openai/m', messages: [{ role: 'user', content: 'hi' }] })
          ).catch((e: unknown) => e);
          expect(error).toBeInstanceOf(OpenAI.APIError);
          const shown = JSON.stringify((error as InstanceType<typeof OpenAI.APIError>).error) + (error as Error).message;
          expect({ status, spelling, stream, leaks: leaks(shown) }).toEqual({ status, spelling, stream, leaks: [] });
        }
      }
    }
    await gateway?.close();
    gateway = undefined;
    expect(lines.some((line) => line.includes('[redacted]'))).toBe(true);
    expect(leaks(lines.join('\n'))).toEqual([]);
  });

  it("sends the SDK's own lines into the gateway's log, never to stderr: none by default, with OPENAI_LOG at its level, redacted", async () => {
    const written: string[] = [];
    const record = (...args: unknown[]) => {
      written.push(args.map(String).join(' '));
      return true;
    };
    vi.spyOn(process.stderr, 'write').mockImplementation(record);
    for (const name of ['error', 'warn', 'info', 'debug', 'log'] as const) vi.spyOn(console, name).mockImplementation(record);
    for (const level of ['', 'debug'] as const) {
      vi.stubEnv('OPENAI_LOG', level);
      const lines: string[] = [];
      const client = await startWith((req, res) => {
        req.resume();
        req.on('end', () => res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `saw ${UPSTREAM_KEY}`, type: 'server_error' } })));
      }, lines);
      await client.chat.completions.create({ model: 'openai/m', messages: [{ role: 'user', content: 'hi' }] }).catch(() => undefined);
      await gateway?.close();
      gateway = undefined;
      await closeServed();
      const sdkLines = lines.filter((line) => line.includes('"source":"openai-sdk"'));
      if (level === '') expect(sdkLines).toEqual([]);
      else expect(sdkLines.length).toBeGreaterThan(0);
      expect({ level, leaks: leaks(lines.join('\n')), lines: lines.filter((line) => leaks(line).length > 0) }).toEqual({ level, leaks: [], lines: [] });
    }
    expect(written.map((line) => line.slice(0, 300))).toEqual([]);
  });

  it("keeps the key out of the details of the SDK's debug lines: a proxy's error page echoing it", async () => {
    vi.stubEnv('OPENAI_LOG', 'debug');
    const lines: string[] = [];
    const client = await startWith((req, res) => {
      req.resume();
      const key = (req.headers.authorization ?? '').replace('Bearer ', '');
      req.on('end', () => res.writeHead(502, { 'content-type': 'text/html' }).end(`<html><a href="/retry?key=${encodeURIComponent(key)}&amp;x=1">${key}</a></html>`));
    }, lines);
    await client.chat.completions.create({ model: 'openai/m', messages: [{ role: 'user', content: 'hi' }] }).catch(() => undefined);
    await gateway?.close();
    gateway = undefined;
    const sdkLines = lines.filter((line) => line.includes('"source":"openai-sdk"'));
    // The page is in the log, the key is not.
    expect(sdkLines.some((line) => line.includes('&amp;x=1\\">[redacted]</a>'))).toBe(true);
    expect(leaks(lines.join('\n'))).toEqual([]);
  });
});
