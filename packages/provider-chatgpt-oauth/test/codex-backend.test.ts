// The ChatGPT provider against a Codex-backend stand-in that refuses what the real backend
// refuses (helpers/codex-request-rules.ts) and checks the headers Codex sends.
import { StreamError } from '@toolwire/core';
import type { ChatStreamEvent, FunctionToolSpec } from '@toolwire/core';
import { afterEach, describe, expect, it } from 'vitest';

import { createChatGPT } from '../src/index.ts';
import type { ChatGPTProviderOptions } from '../src/index.ts';
import { startBackend, textEvents, toolCallEvents } from './helpers/backend-server.ts';
import { checkCodexBody } from './helpers/codex-request-rules.ts';
import { makeJwt } from './helpers/jwt.ts';
import { recordingLogger } from './helpers/temp-dir.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function tokens(claims: Record<string, unknown> = {}) {
  const exp = Math.floor(Date.now() / 1000) + 3600;
  const auth = { chatgpt_account_id: 'acct-1234', chatgpt_plan_type: 'plus', ...claims };
  return {
    accessToken: makeJwt({ 'https://api.openai.com/auth': auth, exp }),
    idToken: makeJwt({ email: 'ada@example.com', 'https://api.openai.com/auth': auth, exp }),
    refreshToken: 'rt_test',
  };
}

async function setup(options: { claims?: Record<string, unknown>; backend?: Parameters<typeof startBackend>[0]; provider?: Partial<ChatGPTProviderOptions> } = {}) {
  const backend = await startBackend({ models: [{ slug: 'gpt-5.4', base_instructions: 'base' }], ...options.backend });
  closers.push(backend.close);
  const { logger } = recordingLogger();
  const chatgpt = createChatGPT({
    auth: { tokens: tokens(options.claims), issuer: 'http://127.0.0.1:9' },
    baseURL: backend.url,
    logger,
    maxRetries: 0,
    ...options.provider,
  });
  return { backend, chatgpt };
}

const strictTool: FunctionToolSpec = {
  type: 'function',
  name: 'get_weather',
  strict: true,
  inputSchema: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } }, required: ['city'] },
};

const body = (extra: Record<string, unknown> = {}) => ({ model: 'm', instructions: 'i', input: [], store: false, stream: true, ...extra });

describe('the Codex-backend stand-in', () => {
  it('refuses unanswered calls, orphan outputs, item ids, unknown fields and non-strict schemas marked strict', () => {
    const call = { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' };
    expect(JSON.stringify(checkCodexBody(body({ input: [call] })))).toContain('No tool output found for function call c1');
    expect(JSON.stringify(checkCodexBody(body({ input: [{ type: 'function_call_output', call_id: 'x', output: '' }] })))).toContain('No tool call found');
    expect(JSON.stringify(checkCodexBody(body({ input: [{ ...call, id: 'fc_1' }, { type: 'function_call_output', call_id: 'c1', output: '' }] })))).toContain(
      'not persisted',
    );
    expect(checkCodexBody(body({ max_output_tokens: 5 }))).toEqual({ status: 400, json: { detail: 'Unsupported parameter: max_output_tokens' } });
    const loose = { type: 'function', name: 'f', strict: true, parameters: { type: 'object', properties: { a: { type: 'string' } } } };
    expect(JSON.stringify(checkCodexBody(body({ tools: [loose] })))).toContain("'additionalProperties' is required");
    expect(checkCodexBody(body({ store: true }))).toEqual({ status: 400, json: { detail: 'Store must be set to false' } });
    expect(checkCodexBody(body())).toBeUndefined();
  });
});

describe('the ChatGPT provider against the Codex-backend stand-in', () => {
  it('passes with an unanswered call in the history and a strict tool', async () => {
    const { backend, chatgpt } = await setup();
    backend.reply({ sse: textEvents('Done.') });
    const response = await chatgpt.chat('gpt-5.4').generate({
      messages: [
        { role: 'user', content: 'Weather in Oslo?' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Oslo' } }] },
        { role: 'user', content: 'Never mind.' },
      ],
      tools: [strictTool],
    });
    expect(backend.refusals).toEqual([]);
    expect(response.text).toBe('Done.');
    expect(response.warnings.some((warning) => warning.message.includes('no result'))).toBe(true);
    const sent = backend.requests[0]!.body;
    expect(sent.input).toContainEqual({ type: 'function_call_output', call_id: 'call_1', output: 'aborted' });
    expect(sent.tools[0].parameters).toMatchObject({ additionalProperties: false, required: ['city', 'unit'] });
  });

  it('sends version as Codex does, to the catalog too, and no residency header for the claim alone', async () => {
    const { backend, chatgpt } = await setup({ claims: { chatgpt_compute_residency: 'eu' }, provider: { clientVersion: '0.200.1' } });
    backend.reply({ sse: textEvents('ok') });
    await chatgpt.chat('gpt-5.4').generate({ messages: [{ role: 'user', content: 'x' }] });
    const headers = backend.requests[0]!.headers;
    expect(headers.version).toBe('0.200.1');
    expect(headers['user-agent']).toMatch(/^codex_cli_rs\/0\.200\.1 /);
    expect(headers['x-openai-internal-codex-residency']).toBeUndefined();
    expect(headers['x-openai-fedramp']).toBeUndefined();
    expect(backend.modelRequests[0]!.url).toBe('/codex/models?client_version=0.200.1');
  });

  it('sends x-openai-internal-codex-residency: us when residency is enforced, and the FedRAMP header for FedRAMP accounts', async () => {
    const { backend, chatgpt } = await setup({ claims: { chatgpt_account_is_fedramp: true }, backend: { residency: 'us' }, provider: { residency: 'us' } });
    backend.reply({ sse: textEvents('ok') });
    await chatgpt.chat('gpt-5.4').generate({ messages: [{ role: 'user', content: 'x' }] });
    expect(backend.refusals).toEqual([]);
    expect(backend.requests[0]!.headers['x-openai-internal-codex-residency']).toBe('us');
    expect(backend.requests[0]!.headers['x-openai-fedramp']).toBe('true');
    expect(backend.modelRequests[0]!.headers['x-openai-internal-codex-residency']).toBe('us');
  });

  it("uses the catalog's default reasoning effort and remaps a level the model does not take", async () => {
    const { backend, chatgpt } = await setup({
      backend: { models: [{ slug: 'gpt-5.4', base_instructions: 'base', default_reasoning_level: 'high', supported_reasoning_levels: [{ effort: 'low' }, { effort: 'high' }] }] },
    });
    backend.reply({ sse: textEvents('a') }, { sse: textEvents('b') });
    await chatgpt.chat('gpt-5.4').generate({ messages: [{ role: 'user', content: 'x' }] });
    const remapped = await chatgpt.chat('gpt-5.4', { reasoningEffort: 'medium' }).generate({ messages: [{ role: 'user', content: 'y' }] });
    expect(backend.requests[0]!.body.reasoning.effort).toBe('high');
    expect(backend.requests[1]!.body.reasoning.effort).toBe('high');
    expect(remapped.warnings).toContainEqual(expect.objectContaining({ setting: 'reasoningEffort' }));
  });

  it('keeps the extra x-codex-* usage-limit families', async () => {
    const { backend, chatgpt } = await setup();
    backend.reply({ sse: textEvents('ok'), headers: { 'x-codex-primary-used-percent': '3', 'x-codex-bengalfox-primary-used-percent': '40', 'x-codex-bengalfox-limit-name': 'GPT-5.4-Codex-Spark' } });
    const response = await chatgpt.chat('gpt-5.4').generate({ messages: [{ role: 'user', content: 'x' }] });
    expect(response.providerMetadata?.chatgpt?.rateLimits).toMatchObject({
      primary: { usedPercent: 3 },
      limits: { 'codex-bengalfox': { primary: { usedPercent: 40 }, limitName: 'GPT-5.4-Codex-Spark' } },
    });
  });
});

describe('a stalled or dropped stream', () => {
  it('is dropped after the idle timeout and sent again while nothing reached the caller', async () => {
    const { backend, chatgpt } = await setup({ provider: { streamIdleTimeoutMs: 150, streamMaxRetries: 2 } });
    backend.reply({ sse: textEvents('never'), stallAfter: 1 }, { sse: textEvents('second try') });
    const response = await chatgpt.chat('gpt-5.4').generate({ messages: [{ role: 'user', content: 'x' }] });
    expect(response.text).toBe('second try');
    expect(backend.requests).toHaveLength(2);
  });

  it('is sent again after a dropped connection, a bounded number of times', async () => {
    const { backend, chatgpt } = await setup({ provider: { streamIdleTimeoutMs: 5000, streamMaxRetries: 1 } });
    backend.reply({ sse: textEvents('x'), dropAfter: 1 }, { sse: textEvents('y'), dropAfter: 1 });
    const error = await chatgpt
      .chat('gpt-5.4')
      .generate({ messages: [{ role: 'user', content: 'x' }] })
      .catch((caught: unknown) => caught);
    expect(StreamError.isInstance(error) && error.retryable).toBe(true);
    expect(backend.requests).toHaveLength(2);
  });

  it('ends with a retryable StreamError, not a retry, once text reached the caller', async () => {
    const { backend, chatgpt } = await setup({ provider: { streamIdleTimeoutMs: 150, streamMaxRetries: 3 } });
    const events = textEvents('partial answer');
    const firstDelta = events.findIndex((event) => event.type === 'response.output_text.delta');
    backend.reply({ sse: events, stallAfter: firstDelta + 1 });
    const seen: ChatStreamEvent[] = [];
    for await (const event of chatgpt.chat('gpt-5.4').stream({ messages: [{ role: 'user', content: 'x' }] })) seen.push(event);
    const last = seen.at(-1);
    expect(seen.some((event) => event.type === 'text-delta')).toBe(true);
    expect(last?.type === 'error' && StreamError.isInstance(last.error) && last.error.message).toContain('sent nothing for');
    expect(backend.requests).toHaveLength(1);
  });

  it('streams tool calls through the strict stand-in and answers them next turn', async () => {
    const { backend, chatgpt } = await setup();
    backend.reply({ sse: toolCallEvents([{ callId: 'call_9', name: 'get_weather', arguments: '{"city":"Rome","unit":null}' }]) }, { sse: textEvents('Sunny.') });
    const model = chatgpt.chat('gpt-5.4');
    const first = await model.generate({ messages: [{ role: 'user', content: 'Rome?' }], tools: [strictTool] });
    // The strict form's null for the optional `unit` is removed again.
    expect(first.toolCalls).toEqual([{ id: 'call_9', name: 'get_weather', arguments: { city: 'Rome' } }]);
    const second = await model.generate({
      messages: [{ role: 'user', content: 'Rome?' }, first.message, { role: 'tool', toolCallId: 'call_9', content: '25C' }],
      tools: [strictTool],
    });
    expect(second.text).toBe('Sunny.');
    expect(backend.refusals).toEqual([]);
  });
});
