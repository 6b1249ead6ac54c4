import { defineTool } from '@toolwire/core';
import type { Tool } from '@toolwire/core';

/** The fetched page as the tool needs it (the shape of `@toolwire/sandbox`'s guarded fetch). */
export interface FetchedPage {
  status: number;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** A fetch restricted to the allow-listed domains (`createGuardedFetch` from `@toolwire/sandbox`). */
export type RestrictedFetch = (url: string, init?: { method?: string; headers?: Record<string, string> }) => Promise<FetchedPage>;

const MAX_TEXT = 20_000;

/**
 * The built-in `fetch_url` tool: GET a page from one of `allowedDomains`. The fetch it is
 * given enforces the rules (allow-list, no private addresses, redirects re-checked, size
 * and time limits); a refusal comes back to the model as an error result.
 */
export function createFetchUrlTool(options: { fetch: RestrictedFetch; allowedDomains: readonly string[] }): Tool {
  const domains = options.allowedDomains.join(', ');
  return defineTool({
    name: 'fetch_url',
    description: `Fetch a web page or API response by URL (GET). Only these domains can be reached: ${domains === '' ? '(none)' : domains}.`,
    parameters: {
      type: 'object',
      properties: { url: { type: 'string', description: 'An http(s) URL on an allowed domain.' } },
      required: ['url'],
      additionalProperties: false,
    },
    async execute(args) {
      const url = args.url;
      if (typeof url !== 'string' || url === '') throw new Error('"url" must be a URL string, e.g. {"url": "https://example.com/"}.');
      const page = await options.fetch(url, { method: 'GET' });
      const truncated = page.body.length > MAX_TEXT;
      return {
        status: page.status,
        url: page.url,
        contentType: page.headers['content-type'] ?? null,
        body: truncated ? page.body.slice(0, MAX_TEXT) : page.body,
        truncated,
      };
    },
  });
}
