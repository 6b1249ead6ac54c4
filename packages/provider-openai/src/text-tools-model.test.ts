import { InvalidRequestError, AuthenticationError, collectStream, UnsupportedFeatureError } from '@toolwire/core';
import type { ChatModel, ChatRequest, ChatResponse, ChatStreamEvent } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { withTextToolsSetting } from './text-tools-model.ts';

const tool = { type: 'function' as const, name: 'get_weather', inputSchema: { type: 'object' as const } };

function answer(text: string): ChatResponse {
  return { text, toolCalls: [], toolResults: [], finishReason: 'stop', warnings: [], message: { role: 'assistant', content: text } };
}

/** A native model that rejects tools the way the given error says, and records what it got. */
function fakeNative(rejection: Error | undefined) {
  const seen: ChatRequest[] = [];
  const model: ChatModel = {
    provider: 'openai',
    modelId: 'local-model',
    async generate(request) {
      seen.push(request);
      if (rejection && request.tools) throw rejection;
      return answer('native');
    },
    async *stream(request) {
      seen.push(request);
      if (rejection && request.tools) throw rejection;
      yield { type: 'text-delta', delta: 'native' };
      yield { type: 'finish', finishReason: 'stop' };
    },
  };
  return { model, seen };
}

/** Stands in for withTextToolCalling: answers 'text' and forwards to the inner model once, to show what reaches it. */
function fakeWrap(calls: { inner: ChatModel }[]) {
  return (inner: ChatModel): ChatModel => {
    calls.push({ inner });
    return {
      provider: inner.provider,
      modelId: inner.modelId,
      async generate(request) {
        await inner.generate(request);
        return answer('text');
      },
      async *stream(request) {
        for await (const _event of inner.stream(request)) {
          // drained: what matters is the request the inner model saw
        }
        yield { type: 'text-delta', delta: 'text' } satisfies ChatStreamEvent;
        yield { type: 'finish', finishReason: 'stop' } satisfies ChatStreamEvent;
      },
    };
  };
}

const unsupported = new InvalidRequestError({ provider: 'openai', status: 400, message: 'registry.ollama.ai/library/gemma:2b does not support tools' });
const request: ChatRequest = { messages: [{ role: 'user', content: 'Weather?' }], tools: [tool], toolChoice: 'auto', parallelToolCalls: false };

describe('withTextToolsSetting', () => {
  it("'auto' tries native tools first and switches once the server rejects them, with a warning", async () => {
    const { model: native, seen } = fakeNative(unsupported);
    const model = withTextToolsSetting(native, { mode: 'auto', wrap: fakeWrap([]) });
    const first = await model.generate(request);
    expect(first.text).toBe('text');
    expect(first.warnings[0]?.message).toContain('does not support tools');
    expect(seen.map((r) => r.tools !== undefined)).toEqual([true, false]);
    const second = await model.generate(request);
    expect(second.warnings).toEqual([]);
    // No second native attempt: the switch holds for this model.
    expect(seen.map((r) => r.tools !== undefined)).toEqual([true, false, false]);
  });

  it("'auto' switches a stream that cannot start, warning first", async () => {
    const { model: native } = fakeNative(unsupported);
    const model = withTextToolsSetting(native, { mode: 'auto', wrap: fakeWrap([]) });
    const events: ChatStreamEvent[] = [];
    for await (const event of model.stream(request)) events.push(event);
    expect(events.map((event) => event.type)).toEqual(['warning', 'text-delta', 'finish']);
    expect((await collectStream(model.stream(request))).warnings).toEqual([]);
  });

  it("'auto' keeps native tools when the server accepts them", async () => {
    const { model: native } = fakeNative(undefined);
    const model = withTextToolsSetting(native, { mode: 'auto', wrap: fakeWrap([]) });
    expect((await model.generate(request)).text).toBe('native');
    expect((await collectStream(model.stream(request))).text).toBe('native');
  });

  it("'auto' rethrows errors that are not about tools", async () => {
    const auth = new AuthenticationError({ provider: 'openai', status: 401, message: 'tools does not support tools' });
    const model = withTextToolsSetting(fakeNative(auth).model, { mode: 'auto', wrap: fakeWrap([]) });
    await expect(model.generate(request)).rejects.toBe(auth);
  });

  it('true always uses text tools, and the inner model never sees native tools', async () => {
    const { model: native, seen } = fakeNative(undefined);
    const wraps: { inner: ChatModel }[] = [];
    const model = withTextToolsSetting(native, { mode: true, format: 'json-tag', wrap: fakeWrap(wraps) });
    expect((await model.generate(request)).text).toBe('text');
    expect(seen[0]).not.toHaveProperty('tools');
    expect(seen[0]).not.toHaveProperty('toolChoice');
    expect(seen[0]).not.toHaveProperty('parallelToolCalls');
    expect(wraps).toHaveLength(1);
  });

  it('sends requests without tools to the native model', async () => {
    const { model: native } = fakeNative(undefined);
    const model = withTextToolsSetting(native, { mode: true, wrap: fakeWrap([]) });
    expect((await model.generate({ messages: [] })).text).toBe('native');
  });

  it('refuses OpenAI provider tools through text tools', async () => {
    const model = withTextToolsSetting(fakeNative(undefined).model, { mode: true, wrap: fakeWrap([]) });
    const providerTool = { type: 'provider' as const, provider: 'openai', id: 'openai.code_interpreter', name: 'code_interpreter', config: {} };
    await expect(model.generate({ messages: [], tools: [providerTool] })).rejects.toThrow(UnsupportedFeatureError);
  });
});
