import { request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import type { ChatModel } from '@toolwire/core';
import { createScriptedModel } from '@toolwire/core/testing';
import OpenAI from 'openai';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { hashApiKey } from '../src/index.ts';
import { startGateway } from './helpers/start-gateway.ts';

/** A pino logger at info whose lines land in `lines`. */
function capture(lines: string[]) {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter((l) => l !== ''));
      done();
    },
  });
  return pino({ level: 'info' }, sink);
}

interface AccessLine {
  msg: string;
  reqId?: string;
  req?: { method?: string; url?: string; remoteAddress?: string };
  res?: { statusCode?: number };
  responseTime?: number;
}

describe('logs', () => {
  it('keep one access-log line per request, written when its response ends (streams too), with method, URL, client, status and time', async () => {
    const lines: string[] = [];
    const model = createScriptedModel([{ text: 'one' }, { text: 'two' }]);
    const { server, baseURL } = await startGateway(model, { logger: capture(lines) });
    try {
      const openai = new OpenAI({ apiKey: 'sk-x', baseURL, maxRetries: 0 });
      const { response } = await openai.chat.completions.create({ model: 'test/x', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
      const requestId = response.headers.get('x-request-id');
      const stream = await openai.chat.completions.create({ model: 'test/x', messages: [{ role: 'user', content: 'hi' }], stream: true });
      for await (const _chunk of stream) {
        // drained
      }
      await fetch(`${baseURL}/unknown`);
      const records = lines.map((l) => JSON.parse(l) as AccessLine);
      expect(records.some((r) => r.msg === 'incoming request')).toBe(false);
      const access = records.filter((r) => r.msg === 'request completed');
      expect(access.map((r) => [r.req?.method, r.req?.url, r.res?.statusCode])).toEqual([
        ['POST', '/v1/chat/completions', 200],
        ['POST', '/v1/chat/completions', 200],
        ['GET', '/v1/unknown', 404],
      ]);
      expect(access[0]?.reqId).toBe(requestId);
      for (const line of access) {
        expect(line.reqId).toMatch(/^req_/);
        expect(line.req?.remoteAddress).toBe('127.0.0.1');
        expect(line.responseTime).toBeGreaterThan(0);
      }
    } finally {
      await server.close();
    }
  });

  it('keep an access line, status 499, for a request whose client left before its answer ended', async () => {
    const lines: string[] = [];
    const untilAborted = (signal: AbortSignal | undefined) =>
      new Promise<never>((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));
    // A model that answers nothing until the client has gone (a stream: after its first text).
    const hanging = {
      provider: 'test',
      modelId: 'x',
      generate: (request) => untilAborted(request.signal),
      async *stream(request) {
        yield { type: 'text-delta', delta: 'x' };
        await untilAborted(request.signal);
      },
    } as ChatModel;
    const { server, origin } = await startGateway(hanging, { logger: capture(lines) });
    const port = Number(new URL(origin).port);
    /** Sends `body` (all of it, or a part of a longer announced length), and leaves after `leaveAfterMs` or at the first answer byte. */
    const leave = (body: string, options: { announced?: number; leaveAfterMs?: number }) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: '/v1/chat/completions', method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(options.announced ?? Buffer.byteLength(body)) } });
      req.on('error', () => undefined);
      req.on('response', (res) => res.once('data', () => req.destroy()));
      req.write(body);
      if (options.leaveAfterMs !== undefined) setTimeout(() => req.destroy(), options.leaveAfterMs);
    };
    const lineFor = async (count: number): Promise<AccessLine[]> => {
      for (let waited = 0; waited < 3000; waited += 20) {
        const gone = lines.map((l) => JSON.parse(l) as AccessLine).filter((r) => r.res?.statusCode === 499);
        if (gone.length >= count) return gone;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error(`no access line for a client that left: ${lines.join('\n')}`);
    };
    try {
      const body = (stream: boolean) => JSON.stringify({ model: 'test/x', stream, messages: [{ role: 'user', content: 'hi' }] });
      leave(body(false), { leaveAfterMs: 100 });
      await lineFor(1);
      leave(body(true), {});
      await lineFor(2);
      // Leaves while still sending its body.
      leave('{"model":"test/x","messages":[', { announced: 1000, leaveAfterMs: 50 });
      const gone = await lineFor(3);
      expect(gone.map((r) => r.msg)).toEqual(['client disconnected; upstream request aborted', 'client disconnected; upstream request aborted', 'client disconnected']);
      for (const line of gone) {
        // (No client address: Node no longer knows a destroyed socket's peer.)
        expect(line).toMatchObject({ req: { method: 'POST', url: '/v1/chat/completions' }, res: { statusCode: 499 } });
        expect(line.reqId).toMatch(/^req_/);
        expect(line.responseTime).toBeGreaterThan(0);
      }
      expect(lines.map((l) => JSON.parse(l) as AccessLine).filter((r) => r.msg === 'request completed')).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('carry a request id and an audit event per server tool execution, and never a key', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter((l) => l !== ''));
        done();
      },
    });
    const model = createScriptedModel([{ toolCalls: [{ name: 'calculate', arguments: { expression: '1+1' } }] }, { text: '2' }]);
    const { server, baseURL } = await startGateway(model, {
      logger: pino({ level: 'info' }, sink),
      keys: [{ id: 'team-a', keyHash: hashApiKey('sk-very-secret') }],
      providers: { openai: { apiKey: 'sk-upstream-secret', baseURL: 'http://127.0.0.1:9/v1' } },
    });
    try {
      const openai = new OpenAI({ apiKey: 'sk-very-secret', baseURL, maxRetries: 0 });
      await openai.chat.completions.create({ model: 'test/x', messages: [{ role: 'user', content: '1+1?' }], tools: [{ type: 'function', function: { name: 'calculate' } }] });
      await new OpenAI({ apiKey: 'sk-wrong-secret', baseURL, maxRetries: 0 }).models.list().catch(() => undefined);
    } finally {
      await server.close();
    }
    const text = lines.join('\n');
    expect(text).not.toContain('sk-very-secret');
    expect(text).not.toContain('sk-wrong-secret');
    expect(text).not.toContain('sk-upstream-secret');
    const records = lines.map((l) => JSON.parse(l) as { reqId?: string; audit?: { tool: string; principal: string; outcome: string; requestId?: string } });
    expect(records.some((r) => r.reqId?.startsWith('req_'))).toBe(true);
    const audit = records.find((r) => r.audit);
    expect(audit?.audit).toMatchObject({ tool: 'calculate', principal: 'team-a', outcome: 'success', requestId: expect.stringMatching(/^req_/) });
  });

  it("never carry a key a client put in the URL's query (an Azure-style api-key, key=), in the access line", async () => {
    const lines: string[] = [];
    const { server, baseURL } = await startGateway(createScriptedModel([{ text: 'one' }]), {
      logger: capture(lines),
      keys: [{ id: 'team-a', keyHash: hashApiKey('sk-very-secret-in-query') }],
    });
    try {
      for (const query of ['api-key=sk-very-secret-in-query', 'key=sk-very-secret-in-query&x=1', 'access_token=sk-very-secret-in-query']) {
        await fetch(`${baseURL}/chat/completions?${query}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      }
    } finally {
      await server.close();
    }
    const access = lines.map((l) => JSON.parse(l) as AccessLine).filter((r) => r.req?.url !== undefined);
    expect(access.map((r) => [r.req?.url, r.req?.remoteAddress])).toEqual([
      ['/v1/chat/completions?api-key=[redacted]', '127.0.0.1'],
      ['/v1/chat/completions?key=[redacted]&x=1', '127.0.0.1'],
      ['/v1/chat/completions?access_token=[redacted]', '127.0.0.1'],
    ]);
    expect(lines.join('\n')).not.toContain('sk-very-secret-in-query');
  });
});
