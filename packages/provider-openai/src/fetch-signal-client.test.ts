import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { FetchSignalOpenAI } from './fetch-signal-client.ts';

const options = (extra: Partial<ConstructorParameters<typeof OpenAI>[0]> = {}) => ({ apiKey: 'sk-test', ...extra });

describe('FetchSignalOpenAI.buildURL', () => {
  const cases: [string, NonNullable<ConstructorParameters<typeof OpenAI>[0]>, string, Record<string, unknown> | undefined][] = [
    ['a compatible server', options({ baseURL: 'http://127.0.0.1:8080/v1' }), '/chat/completions', undefined],
    ['a base URL with a trailing slash', options({ baseURL: 'http://127.0.0.1:8080/v1/' }), '/chat/completions', undefined],
    ['a base URL with its own query', options({ baseURL: 'http://127.0.0.1:8080/v1?api-version=1&x=2' }), '/chat/completions', undefined],
    ["OpenAI's own API", options(), '/responses', undefined],
    ['a default query', options({ baseURL: 'http://127.0.0.1:8080/v1', defaultQuery: { 'api-version': '2024-06-01' } }), '/chat/completions', undefined],
    ['a query', options({ baseURL: 'http://127.0.0.1:8080/v1' }), '/models', { limit: 5, after: 'm' }],
    ['an absolute path', options({ baseURL: 'http://127.0.0.1:8080/v1' }), 'http://127.0.0.2:9090/other?q=1', undefined],
  ];
  for (const [what, clientOptions, path, query] of cases) {
    it(`answers as the SDK's own does, twice: ${what}`, () => {
      const sdk = new OpenAI(clientOptions);
      const ours = new FetchSignalOpenAI(clientOptions);
      const expected = sdk.buildURL(path, query);
      expect(ours.buildURL(path, query)).toBe(expected);
      expect(ours.buildURL(path, query)).toBe(expected);
    });
  }

  it('follows a base URL changed on the client', () => {
    const ours = new FetchSignalOpenAI(options({ baseURL: 'http://127.0.0.1:8080/v1' }));
    expect(ours.buildURL('/chat/completions', undefined)).toBe('http://127.0.0.1:8080/v1/chat/completions');
    ours.baseURL = 'http://127.0.0.1:9090/v2';
    expect(ours.buildURL('/chat/completions', undefined)).toBe('http://127.0.0.1:9090/v2/chat/completions');
  });

  it('keeps the default base URL of an operation apart from the client base URL', () => {
    const sdk = new OpenAI(options());
    const ours = new FetchSignalOpenAI(options());
    for (const base of [undefined, 'https://other.example/v9', undefined]) {
      expect(ours.buildURL('/chat/completions', undefined, base)).toBe(sdk.buildURL('/chat/completions', undefined, base));
    }
  });
});
