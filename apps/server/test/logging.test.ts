import { Writable } from 'node:stream';
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
});
