import { inspect } from 'node:util';
import type { ProviderError} from '@toolwire/core';
import { ModelNotFoundError, ProviderUnavailableError, RateLimitError, StreamError } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { mapOllamaError } from './map-ollama-error.ts';

const context = { host: 'http://127.0.0.1:11434', modelId: 'qwen3:0.6b' };

function responseError(message: string, status: number): Error {
  return Object.assign(new Error(message), { name: 'ResponseError', error: message, status_code: status });
}

describe('mapOllamaError', () => {
  it('turns a refused connection into the message of the issue', () => {
    const refused = new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:11434'), { code: 'ECONNREFUSED' }) });
    const error = mapOllamaError(refused, context);
    expect(ProviderUnavailableError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe('Ollama is not reachable at http://127.0.0.1:11434. Start it with `ollama serve` or set OLLAMA_HOST.');
  });

  it('says the connection was lost when it breaks during a started answer', () => {
    const reset = Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
    const terminated = new TypeError('terminated', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) });
    for (const error of [reset, terminated]) {
      const mapped = mapOllamaError(error, { ...context, inStream: true });
      expect(StreamError.isInstance(mapped)).toBe(true);
      expect((mapped as Error).message).toMatch(/^The connection to Ollama at http:\/\/127\.0\.0\.1:11434 was lost during the answer/);
    }
  });

  it('says the connection was lost, not that Ollama is unreachable, when it broke after connecting', () => {
    const hangUp = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const mapped = mapOllamaError(hangUp, context);
    expect(ProviderUnavailableError.isInstance(mapped)).toBe(true);
    expect((mapped as Error).message).toMatch(/was lost during the answer/);
    expect((mapped as Error).message).not.toContain('ollama serve');
  });

  it('never shows credentials of the host', () => {
    const refused = new TypeError('fetch failed');
    const error = mapOllamaError(refused, { ...context, host: 'https://me:token123@ollama.example.com:443' });
    expect((error as Error).message).not.toContain('token123');
  });

  it("never shows the host's credentials that fetch quotes when it refuses the URL", async () => {
    const host = 'http://me:pa%24%24word-123@127.0.0.1:1';
    const refused = await fetch(`${host}/api/chat`).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(String(refused)).toContain('pa%24%24word-123');
    const error = mapOllamaError(refused, { ...context, host });
    const printed = inspect(error, { depth: null });
    expect(printed).not.toContain('pa%24%24word-123');
    expect(printed).not.toContain('pa$$word-123');
    // A fetch that sends them (the gateway's, as `Basic`) to a proxy that echoes them.
    const basic = Buffer.from('me:pa$$word-123').toString('base64');
    const echoed = mapOllamaError(responseError(`bad credentials: Basic ${basic}`, 401), { ...context, host }) as Error;
    expect(echoed.message).toBe('bad credentials: Basic [redacted]');
  });

  it('maps status codes and keeps the message', () => {
    expect(RateLimitError.isInstance(mapOllamaError(responseError('too many requests', 429), context))).toBe(true);
    const notFound = mapOllamaError(responseError("model 'qwen3:0.6b' not found", 404), context);
    expect(ModelNotFoundError.isInstance(notFound)).toBe(true);
    const teapot = mapOllamaError(responseError('odd', 418), context) as ProviderError;
    expect([teapot.message, teapot.status, teapot.provider]).toEqual(['odd', 418, 'ollama']);
  });

  it('says a whole answer that is not JSON came from the Ollama host, and what to check', () => {
    const error = mapOllamaError(new SyntaxError('Unexpected end of JSON input'), context) as ProviderError;
    expect(error.message).toBe(
      'Ollama at http://127.0.0.1:11434 sent an answer that is not JSON (Unexpected end of JSON input), so there is no answer. Retry the request; if it keeps happening, check that OLLAMA_HOST points at an Ollama server and not a proxy page.',
    );
  });

  it("says a stream that ended without its done line may be incomplete (the client's own words are not a message)", () => {
    const error = mapOllamaError(new Error('Did not receive done or success response in stream.'), { ...context, inStream: true });
    expect(StreamError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe('The stream from Ollama at http://127.0.0.1:11434 ended before its final line, so the answer may be incomplete. Retry the request.');
  });

  it('passes aborts through untouched', () => {
    const abort = new DOMException('This operation was aborted', 'AbortError');
    expect(mapOllamaError(abort, context)).toBe(abort);
  });
});
