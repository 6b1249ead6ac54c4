import { createGuardedFetch } from '@toolwire/sandbox';
import { describe, expect, it } from 'vitest';
import { createFetchUrlTool } from './fetch-url-tool.ts';

const context = { toolCallId: 'call_1', signal: new AbortController().signal };

describe('fetch_url', () => {
  it('returns status, final URL, content type and the body', async () => {
    const tool = createFetchUrlTool({
      allowedDomains: ['example.com'],
      fetch: (url) => Promise.resolve({ status: 200, url, headers: { 'content-type': 'text/plain' }, body: 'hello' }),
    });
    await expect(tool.execute?.({ url: 'https://example.com/' }, context)).resolves.toEqual({
      status: 200,
      url: 'https://example.com/',
      contentType: 'text/plain',
      body: 'hello',
      truncated: false,
    });
  });

  it('names the allowed domains in its description', () => {
    const tool = createFetchUrlTool({ allowedDomains: ['a.com', '*.b.org'], fetch: () => Promise.reject(new Error('unused')) });
    expect(tool.description).toContain('a.com, *.b.org');
  });

  it('is refused by the sandbox rules for a domain off the list', async () => {
    const tool = createFetchUrlTool({ allowedDomains: ['example.com'], fetch: createGuardedFetch({ allowedDomains: ['example.com'] }) });
    await expect(tool.execute?.({ url: 'https://evil.test/' }, context)).rejects.toThrow(/evil\.test/);
  });

  it('is refused for a loopback address even when named', async () => {
    const tool = createFetchUrlTool({ allowedDomains: ['127.0.0.1'], fetch: createGuardedFetch({ allowedDomains: ['127.0.0.1'] }) });
    await expect(tool.execute?.({ url: 'http://127.0.0.1:1/' }, context)).rejects.toThrow();
  });

  it('asks for a URL when none is given', async () => {
    const tool = createFetchUrlTool({ allowedDomains: [], fetch: () => Promise.reject(new Error('unused')) });
    await expect(tool.execute?.({}, context)).rejects.toThrow(/"url" must be a URL string/);
  });
});
