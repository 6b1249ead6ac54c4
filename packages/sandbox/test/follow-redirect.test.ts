import { describe, expect, it } from 'vitest';
import { followRedirect } from '../src/fetch/fetch-guard.ts';

const headers = { authorization: 'Bearer t', Cookie: 'a=1', 'proxy-authorization': 'Basic x', 'x-api-key': 'k', 'content-type': 'application/json', accept: 'text/event-stream' };
const request = { method: 'POST', body: '{}', headers };

describe('followRedirect', () => {
  it('drops credentials on a downgrade from https to http of the same host (another origin)', () => {
    const next = followRedirect(307, request, new URL('https://mcp.example.com/a'), new URL('http://mcp.example.com/b'));
    expect(next).toEqual({ method: 'POST', body: '{}', headers: { 'x-api-key': 'k', 'content-type': 'application/json', accept: 'text/event-stream' } });
  });

  it('drops the headers named in credentialHeaders too, whatever their case', () => {
    const next = followRedirect(307, request, new URL('https://mcp.example.com/a'), new URL('https://other.example.com/b'), ['X-API-Key']);
    expect(Object.keys(next.headers)).toEqual(['content-type', 'accept']);
  });

  it('keeps everything on a 307 or 308 within the origin', () => {
    expect(followRedirect(308, request, new URL('https://mcp.example.com/a'), new URL('https://mcp.example.com/b'))).toBe(request);
  });

  it('turns a POST into a GET without its body and content headers on 301, 302 and 303, and keeps a PUT on 301 and 302', () => {
    const from = new URL('https://mcp.example.com/a');
    for (const status of [301, 302, 303]) {
      expect(followRedirect(status, request, from, from)).toEqual({ method: 'GET', body: undefined, headers: { authorization: 'Bearer t', Cookie: 'a=1', 'proxy-authorization': 'Basic x', 'x-api-key': 'k', accept: 'text/event-stream' } });
    }
    expect(followRedirect(302, { ...request, method: 'PUT' }, from, from).method).toBe('PUT');
    expect(followRedirect(303, { ...request, method: 'PUT' }, from, from).method).toBe('GET');
    expect(followRedirect(303, { method: 'HEAD', body: undefined, headers: {} }, from, from).method).toBe('HEAD');
  });
});
