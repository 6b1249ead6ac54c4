// A server or proxy that echoes the API key back, in the spellings real ones use: the key
// must be in no message, cause, stack or field of the error the provider throws.
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { collectStream } from '@toolwire/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAI } from '../src/index.ts';

const API_KEY = 'sk-echo+Ab/9xYz=Q7mWp2Lk4Rt8Vn3Hc6Jd0';
const AZURE_KEY = 'c0ffee0123456789abcdef0123456789';

/** The spellings of `key` a server echoes, by name. */
function spellings(key: string): Record<string, string> {
  return {
    exact: `Incorrect API key provided: ${key}.`,
    query: `GET /v1/chat/completions?api-key=${encodeURIComponent(key)} refused`,
    'query, lower-case hex': `?key=${encodeURIComponent(key).toLowerCase()}`,
    'JSON-escaped': JSON.stringify({ detail: `bad key ${key}` }).replaceAll('/', '\\/').replaceAll('+', '\\u002b'),
    'JSON in JSON': JSON.stringify(JSON.stringify({ detail: key.replaceAll('/', '\\/') })),
    basic: `Authorization: Basic ${Buffer.from(`user:${key}`).toString('base64')}`,
    cut: `Incorrect API key provided: ${key.slice(0, 16)}...`,
    'upper case': `KEY ${key.toUpperCase()}`,
  };
}

/** Every 12-character window of every spelling of `key` found in `text`. */
function leaks(text: string, key: string): string[] {
  const pieces = [key, encodeURIComponent(key), key.replaceAll('/', '\\/'), Buffer.from(`user:${key}`).toString('base64').slice(8), key.toUpperCase()];
  const found = new Set<string>();
  for (const piece of pieces) for (let i = 0; i + 12 <= piece.length; i++) if (text.includes(piece.slice(i, i + 12))) found.add(piece.slice(i, i + 12));
  return [...found];
}

/** All an error shows: message, stack and fields down the cause chain, as `inspect` prints them. */
function shown(error: unknown): string {
  let text = inspect(error, { depth: 10 });
  for (let current: unknown = error; current instanceof Error; current = current.cause) text += `\n${current.message}\n${current.stack ?? ''}`;
  return text;
}

let server: Server;
let baseURL: string;
let next: { how: 'json' | 'text' | 'stream' | 'echo'; spelling: string } = { how: 'json', spelling: 'exact' };

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const key = (req.headers.authorization ?? '').replace(/^Bearer /u, '') || String(req.headers['api-key']);
      const text = spellings(key)[next.spelling] ?? '';
      if (next.how === 'json') {
        res.writeHead(401, { 'content-type': 'application/json', 'x-seen-credential': text }).end(JSON.stringify({ error: { message: text, type: 'invalid_request_error', code: 'invalid_api_key' } }));
      } else if (next.how === 'echo') {
        // A debugging proxy's answer: the request echoed, a long conversation first and the headers after it, deep.
        let deep: unknown = { authorization: req.headers.authorization };
        for (let i = 0; i < 12; i++) deep = { inner: deep };
        const messages = Array.from({ length: 20_000 }, (_, i) => ({ role: 'user', content: `turn ${i}` }));
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'refused', request: { messages, headers: { authorization: req.headers.authorization } }, deep } }));
      } else if (next.how === 'text') {
        res.writeHead(502, { 'content-type': 'text/html' }).end(`<html><body><h1>502 Bad Gateway</h1><p>${text}</p></body></html>`);
      } else {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`event: error\ndata: ${JSON.stringify({ type: 'error', code: 'server_error', message: text })}\n\n`);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const request = { messages: [{ role: 'user' as const, content: 'Hi' }] };

describe('a server that echoes the key', () => {
  for (const spelling of Object.keys(spellings(API_KEY))) {
    it(`is never shown it back: ${spelling}, in a JSON error, an HTML page and a stream error event`, async () => {
      const openai = createOpenAI({ baseURL, apiKey: API_KEY, maxRetries: 0 });
      for (const how of ['json', 'text', 'stream'] as const) {
        next = { how, spelling };
        const error =
          how === 'stream' ? await collectStream(openai.responses('gpt-4.1-mini').stream(request)).catch((e: unknown) => e) : await openai.chat('gpt-4.1-mini').generate(request).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(Error);
        const text = shown(error);
        expect(text).toContain('[redacted]');
        expect({ how, leaks: leaks(text, API_KEY) }).toEqual({ how, leaks: [] });
      }
    });
  }

  it('is never shown a credential header back either (Azure api-key, hex, in another case)', async () => {
    const azure = createOpenAI({ baseURL, apiKey: 'unused-key-0000', maxRetries: 0, headers: { 'api-key': AZURE_KEY } });
    for (const spelling of ['exact', 'upper case', 'cut', 'basic']) {
      next = { how: 'json', spelling };
      // The server echoes the Bearer key; send the header as the only credential it sees.
      const error = await azure.chat('gpt-4.1-mini').generate({ ...request, headers: { authorization: '' } }).catch((e: unknown) => e);
      expect(shown(error)).toContain('[redacted]');
      expect({ spelling, leaks: leaks(shown(error), AZURE_KEY) }).toEqual({ spelling, leaks: [] });
    }
  });
});

describe('a proxy that echoes the request in its JSON error body', () => {
  it('never leaves the key in the parsed body, however long or deep: what is not read is not shown', async () => {
    next = { how: 'echo', spelling: 'exact' };
    const error = await createOpenAI({ baseURL, apiKey: API_KEY, maxRetries: 0 }).chat('gpt-4.1-mini').generate(request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    const printed = inspect(error, { depth: null });
    expect(leaks(printed, API_KEY)).toEqual([]);
    expect(printed).toContain('[not shown]');
  });
});

describe('a base URL with credentials in it', () => {
  it("never shows the URL's password, which fetch quotes when it refuses the URL", async () => {
    const openai = createOpenAI({ apiKey: API_KEY, baseURL: 'http://me:pa%24%24word-123@127.0.0.1:1/v1', maxRetries: 0 });
    const error = await openai
      .chat('gpt-4o-mini')
      .generate({ messages: [{ role: 'user', content: 'hi' }] })
      .then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
    expect(error).toBeInstanceOf(Error);
    expect(shown(error)).not.toContain('pa%24%24word-123');
    expect(shown(error)).not.toContain('pa$$word-123');
  });
});
