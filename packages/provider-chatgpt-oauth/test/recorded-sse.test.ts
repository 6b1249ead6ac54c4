// A real recorded Responses SSE stream (OpenAI gpt-5, reasoning items and a code-interpreter
// run; source and licence in packages/openai-responses/src/__fixtures__/SOURCES.md) read by
// this provider's SSE layer and decoder, cut into pieces of every size: the Codex backend
// speaks the same event stream.
import type { ChatStreamEvent } from '@toolwire/core';
import { describe, expect, it } from 'vitest';

import { cassetteSse } from '../../openai-responses/test/recorded-streams.ts';
import { createChatGPTStreamDecoder, decodeChatGPTStream } from '../src/chatgpt-chat-stream.ts';
import type { ToolMapping } from '../src/tools/wire-tool.ts';

const mapping: ToolMapping = { mode: 'passthrough', toUser: new Map(), toWire: new Map(), cliTools: new Set() };
const sse = cassetteSse('test_openai_responses_code_execution_return_image_stream.yaml');

function body(text: string, size: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) {
        controller.close();
        return;
      }
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
}

async function decode(size: number): Promise<ChatStreamEvent[]> {
  const decoder = createChatGPTStreamDecoder({ mapping, modelId: 'gpt-5', metadata: { conversationId: 'conv' } });
  const events: ChatStreamEvent[] = [];
  for await (const event of decodeChatGPTStream(body(sse, size), decoder, { idleTimeoutMs: 10_000 })) events.push(event);
  return events;
}

describe('a recorded Responses stream through the ChatGPT SSE layer', () => {
  it('gives the text, reasoning items, usage and finish of the recording', async () => {
    const events = await decode(sse.length);
    const text = events.map((event) => (event.type === 'text-delta' ? event.delta : '')).join('');
    expect(text.length).toBeGreaterThan(20);
    const finish = events.at(-1);
    if (finish?.type !== 'finish') throw new Error(`expected finish, got ${JSON.stringify(finish)}`);
    expect(finish.usage).toEqual({ inputTokens: 2772, outputTokens: 1166, totalTokens: 3938, cachedInputTokens: 0, reasoningTokens: 896 });
    expect((finish.providerMetadata?.chatgpt?.reasoningItems as unknown[]).length).toBeGreaterThan(0);
  });

  it.each([1, 7, 64, 4096])('gives the same events when the bytes arrive in pieces of %i', async (size) => {
    expect(await decode(size)).toEqual(await decode(sse.length));
  });
});
