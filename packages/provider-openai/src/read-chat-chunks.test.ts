import { APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import { readChatChunks } from './read-chat-chunks.ts';

/** A streamed response whose body arrives in `parts`; `cancelled` tells whether the reader gave up on it. */
function streamed(parts: string[]): { response: Response; cancelled: () => boolean } {
  let cancelled = false;
  const encoder = new TextEncoder();
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const part = parts[next++];
      if (part === undefined) controller.close();
      else controller.enqueue(encoder.encode(part));
    },
    cancel() {
      cancelled = true;
    },
  });
  return { response: new Response(body, { headers: { 'content-type': 'text/event-stream' } }), cancelled: () => cancelled };
}

const chunk = (content: string): string => `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"${content}"},"finish_reason":null}]}\n\n`;

async function collect(response: Response): Promise<string[]> {
  const texts: string[] = [];
  for await (const chunks of readChatChunks(response)) for (const c of chunks) texts.push(c.choices[0]?.delta.content ?? '');
  return texts;
}

describe('readChatChunks', () => {
  it('yields the chunks of each read, whatever the chunking, and stops at [DONE]', async () => {
    const text = chunk('Hel') + chunk('lo') + 'data: [DONE]\n\n';
    const whole = streamed([text]);
    expect(await collect(whole.response)).toEqual(['Hel', 'lo']);
    const pieces = Array.from({ length: Math.ceil(text.length / 5) }, (_, i) => text.slice(i * 5, i * 5 + 5));
    expect(await collect(streamed(pieces).response)).toEqual(['Hel', 'lo']);
  });

  it('splits a multi-byte character across reads correctly', async () => {
    const text = chunk('héllo ✓') + 'data: [DONE]\n\n';
    const bytes = new TextEncoder().encode(text);
    let at = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (at >= bytes.length) controller.close();
        else controller.enqueue(bytes.slice(at, (at += 3)));
      },
    });
    expect(await collect(new Response(body))).toEqual(['héllo ✓']);
  });

  it('cancels the body at [DONE] and when the consumer stops early, and not after a body that ended', async () => {
    const done = streamed([chunk('a'), 'data: [DONE]\n\n', chunk('after')]);
    expect(await collect(done.response)).toEqual(['a']);
    expect(done.cancelled()).toBe(true);

    const early = streamed([chunk('a'), chunk('b'), chunk('c')]);
    for await (const chunks of readChatChunks(early.response)) {
      expect(chunks).toHaveLength(1);
      break;
    }
    expect(early.cancelled()).toBe(true);

    const ended = streamed([chunk('a'), chunk('b')]);
    expect(await collect(ended.response)).toEqual(['a', 'b']);
    expect(ended.cancelled()).toBe(false);
  });

  it('throws an error payload as the SDK does, an APIError with the payload', async () => {
    const failing = streamed([chunk('a'), 'data: {"error":{"message":"overloaded","type":"server_error"}}\n\n', chunk('after')]);
    const error: unknown = await collect(failing.response).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).error).toEqual({ message: 'overloaded', type: 'server_error' });
    expect(failing.cancelled()).toBe(true);

    const event = streamed(['event: error\ndata: {"message":"bad"}\n\n']);
    const eventError: unknown = await collect(event.response).catch((e: unknown) => e);
    expect(eventError).toBeInstanceOf(APIError);
    expect((eventError as APIError).error).toEqual({ message: 'bad' });
  });

  it('throws a SyntaxError for a payload that is not JSON', async () => {
    await expect(collect(streamed(['data: {"id":\n\n']).response)).rejects.toThrow(SyntaxError);
  });

  it('reads a last event that lacks its blank line', async () => {
    expect(await collect(streamed([chunk('a').trimEnd()]).response)).toEqual(['a']);
  });
});
