import { ContextLengthExceededError, StreamError } from '@toolwire/core';
import type { ChatStreamEvent } from '@toolwire/core';
import { describe, expect, it } from 'vitest';

import { textEvents, toolCallEvents } from '../test/helpers/backend-server.ts';
import { createChatGPTStreamDecoder } from './chatgpt-chat-stream.ts';
import type { ToolMapping } from './tools/wire-tool.ts';

const passthrough: ToolMapping = { mode: 'passthrough', toUser: new Map(), toWire: new Map(), cliTools: new Set() };
const codexCli: ToolMapping = { mode: 'codex', toUser: new Map(), toWire: new Map(), cliTools: new Set(['get_weather']) };

function chatgptMetadata(event: ChatStreamEvent | undefined): Record<string, unknown> {
  if (event?.type !== 'finish') throw new Error(`expected a finish event, got ${JSON.stringify(event)}`);
  return event.providerMetadata?.chatgpt ?? {};
}

function decode(events: Record<string, unknown>[], mapping = passthrough, end = false): ChatStreamEvent[] {
  const decoder = createChatGPTStreamDecoder({ mapping, modelId: 'gpt-5.4', metadata: { conversationId: 'conv-1' } });
  const out: ChatStreamEvent[] = [];
  for (const part of [...events.flatMap((event) => decoder.push(event)), ...(end ? decoder.end() : [])]) if (part.type !== 'provider-output') out.push(part);
  return out;
}

describe('the ChatGPT stream decoder', () => {
  it('streams text and reasoning summaries and finishes with usage and replayable reasoning', () => {
    const out = decode(textEvents('Hello there', { reasoning: 'Greeting.' }));
    expect(out.filter((e) => e.type === 'text-delta').map((e) => (e as { delta: string }).delta).join('')).toBe('Hello there');
    expect(out).toContainEqual({ type: 'reasoning-delta', delta: 'Greeting.' });
    const finish = out.at(-1);
    expect(finish).toMatchObject({
      type: 'finish',
      finishReason: 'stop',
      modelId: 'gpt-5.4',
      usage: { inputTokens: 120, outputTokens: 12, totalTokens: 132, cachedInputTokens: 100, reasoningTokens: 4 },
    });
    const metadata = chatgptMetadata(finish);
    expect(metadata.conversationId).toBe('conv-1');
    expect(metadata.reasoningItems).toEqual([{ type: 'reasoning', summary: [{ type: 'summary_text', text: 'Greeting.' }], encrypted_content: expect.stringMatching(/^enc_/) }]);
  });

  it('emits tool-call-start, argument deltas, then the complete call keyed by call_id', () => {
    const out = decode(toolCallEvents([{ callId: 'call_7', name: 'get_weather', arguments: '{"city":"Paris"}' }]));
    const types = out.map((e) => e.type);
    expect(types[0]).toBe('tool-call-start');
    expect(types.filter((t) => t === 'tool-call-delta').length).toBeGreaterThan(1);
    expect(out).toContainEqual({ type: 'tool-call', toolCall: { id: 'call_7', name: 'get_weather', arguments: { city: 'Paris' } } });
    expect(out.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls' });
  });

  it('defers a codex-mode shell call until its argv is complete, then names the dispatched tool', () => {
    const argv = JSON.stringify({ command: ['toolwire-tool', 'get_weather', '{"city":"Rome"}'] });
    const out = decode(toolCallEvents([{ callId: 'call_8', name: 'shell', arguments: argv }]), codexCli);
    expect(out.slice(0, 3)).toEqual([
      { type: 'tool-call-start', id: 'call_8', name: 'get_weather' },
      { type: 'tool-call-delta', id: 'call_8', argumentsDelta: '{"city":"Rome"}' },
      { type: 'tool-call', toolCall: { id: 'call_8', name: 'get_weather', arguments: { city: 'Rome' } } },
    ]);
    const metadata = chatgptMetadata(out.at(-1));
    expect(metadata.wireCalls).toEqual({ call_8: { name: 'shell', arguments: argv } });
  });

  it('maps response.incomplete for max_output_tokens to length', () => {
    const out = decode([{ type: 'response.incomplete', response: { id: 'r', incomplete_details: { reason: 'max_output_tokens' } } }]);
    expect(out).toMatchObject([{ type: 'finish', finishReason: 'length' }]);
  });

  it('turns response.failed into an error event with the core error for its code', () => {
    const [event] = decode([{ type: 'response.failed', response: { error: { code: 'context_length_exceeded', message: 'Your input exceeds the context window' } } }]);
    expect(event?.type).toBe('error');
    expect(ContextLengthExceededError.isInstance((event as { error: Error }).error)).toBe(true);
  });

  it('reports a stream that closes before response.completed as an error', () => {
    const events = textEvents('cut').slice(0, -1);
    const out = decode(events, passthrough, true);
    const last = out.at(-1) as { type: string; error: Error };
    expect(last.type).toBe('error');
    expect(StreamError.isInstance(last.error)).toBe(true);
    expect(last.error.message).toContain('ended before response.completed');
  });

  it('takes the text of a message item that arrived without deltas, and the codex.rate_limits snapshot', () => {
    const out = decode([
      { type: 'codex.rate_limits', rate_limits: { primary: { used_percent: 12, window_minutes: 300 } }, plan_type: 'plus' },
      { type: 'response.output_item.done', item: { id: 'msg_1', type: 'message', content: [{ type: 'output_text', text: 'whole' }] } },
      { type: 'response.completed', response: { id: 'r1' } },
    ]);
    expect(out[0]).toEqual({ type: 'text-delta', delta: 'whole' });
    expect(chatgptMetadata(out[1]).rateLimits).toEqual({
      primary: { usedPercent: 12, windowMinutes: 300 },
      planType: 'plus',
    });
  });
});
