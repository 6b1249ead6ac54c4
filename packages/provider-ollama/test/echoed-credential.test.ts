// Something in front of Ollama (a proxy holding an API key) that echoes the credential it was
// sent in the spellings real ones use: it must be in no message, cause, stack or field.
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { inspect } from 'node:util';
import { collectStream } from '@toolwire/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOllama } from '../src/index.ts';
import { closeServer, listenOnLoopback } from './loopback-server.ts';

const TOKEN = 'ollama-proxy+Tok/9xYz=Q7mWp2Lk4Rt8Vn3';
const PASSWORD = 'proxy-pass-0123456789abcdef';

function spellings(token: string): string[] {
  return [
    `/api/chat?token=${encodeURIComponent(token)}`,
    JSON.stringify({ detail: `bad token ${token}` }).replaceAll('/', '\\/'),
    `Authorization: Basic ${Buffer.from(`me:${token}`).toString('base64')}`,
    `token ${token.slice(0, 14)}... refused`,
    `TOKEN ${token.toUpperCase()}`,
  ];
}

function leaks(text: string, secret: string): string[] {
  const pieces = [secret, encodeURIComponent(secret), secret.replaceAll('/', '\\/'), Buffer.from(`me:${secret}`).toString('base64').slice(4), secret.toUpperCase()];
  const found = new Set<string>();
  for (const piece of pieces) for (let i = 0; i + 12 <= piece.length; i++) if (text.includes(piece.slice(i, i + 12))) found.add(piece.slice(i, i + 12));
  return [...found];
}

function shown(error: unknown): string {
  let text = inspect(error, { depth: 10 });
  for (let current: unknown = error; current instanceof Error; current = current.cause) text += `\n${current.message}\n${current.stack ?? ''}`;
  return text;
}

let server: Server;
let host: string;
let spelling = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const auth = req.headers.authorization ?? '';
      const secret = auth.startsWith('Basic ') ? (Buffer.from(auth.slice(6), 'base64').toString().split(':')[1] ?? '') : auth.replace('Bearer ', '');
      const text = spellings(secret)[spelling] ?? '';
      if (req.url === '/api/show') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ capabilities: ['completion', 'tools'] }));
      else if (req.url === '/api/tags') res.writeHead(403, { 'content-type': 'application/json' }).end(JSON.stringify({ error: text }));
      else if (req.url === '/api/chat' && body.includes('"stream":true')) res.writeHead(200, { 'content-type': 'application/x-ndjson' }).end(`${JSON.stringify({ error: text })}\n`);
      else res.writeHead(502, { 'content-type': 'text/html' }).end(`<p>${text}</p>`);
    });
  });
  host = await listenOnLoopback(server);
});

afterAll(() => closeServer(server));

const request = { messages: [{ role: 'user' as const, content: 'hi' }] };

describe('a proxy in front of Ollama that echoes the credential', () => {
  for (const [name, headers, secret] of [
    ['a bearer token', { Authorization: `Bearer ${TOKEN}` }, TOKEN],
    ['the password of a Basic credential', { Authorization: `Basic ${Buffer.from(`me:${PASSWORD}`).toString('base64')}` }, PASSWORD],
  ] as const) {
    it(`is never shown ${name} back, in any spelling, by a stream, an answer or the model list`, async () => {
      const ollama = createOllama({ host, headers });
      for (spelling = 0; spelling < spellings(secret).length; spelling++) {
        const errors = [
          await collectStream(ollama.chat('m').stream(request)).catch((e: unknown) => e),
          await ollama.chat('m').generate(request).catch((e: unknown) => e),
          await ollama.listModels().catch((e: unknown) => e),
        ];
        for (const error of errors) {
          expect(error).toBeInstanceOf(Error);
          expect(shown(error)).toContain('[redacted]');
          expect({ spelling, leaks: leaks(shown(error), secret) }).toEqual({ spelling, leaks: [] });
        }
      }
    });
  }
});
