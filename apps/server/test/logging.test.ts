import { Writable } from 'node:stream';
import { createScriptedModel } from '@toolwire/core/testing';
import OpenAI from 'openai';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { hashApiKey } from '../src/index.ts';
import { startGateway } from './helpers/start-gateway.ts';

describe('logs', () => {
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
