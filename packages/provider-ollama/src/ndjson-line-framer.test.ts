import { StreamError } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { frameNdjsonLines } from './ndjson-line-framer.ts';

async function read(lines: string): Promise<string> {
  const body = new Response(lines).body as ReadableStream<Uint8Array>;
  let text = '';
  for await (const chunk of frameNdjsonLines(body, { host: 'http://127.0.0.1:11434' })) text += new TextDecoder().decode(chunk);
  return text;
}

describe('frameNdjsonLines', () => {
  it("passes Ollama's own error line (a string) on to the client as it is", async () => {
    expect(await read('{"error":"unexpected EOF"}\n')).toBe('{"error":"unexpected EOF"}\n');
  });

  it('turns an error line whose error is not a string into a StreamError quoting it (not "[object Object]")', async () => {
    const error = await read('{"message":{"role":"assistant","content":"Hi"},"done":false}\n{"error":{"message":"overloaded","type":"server_error"}}\n').catch((e: unknown) => e);
    expect(StreamError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      'Ollama at http://127.0.0.1:11434 reported an error in its streamed answer: {"message":"overloaded","type":"server_error"}. Retry the request; if it keeps happening, check Ollama\'s log.',
    );
  });
});
