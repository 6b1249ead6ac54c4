import { describe, expect, it } from 'vitest';
import { headerCredentials, urlCredentials } from './header-credentials.ts';

describe('headerCredentials', () => {
  it('takes the values of credential headers, without their scheme, and what a Basic value holds', () => {
    const basic = Buffer.from('me:pass-word-123').toString('base64');
    expect(
      headerCredentials({ Authorization: `Basic ${basic}`, 'api-key': 'azure-0123456789', 'X-Session': 'Bearer tok-0123456789', accept: 'application/json' }),
    ).toEqual([`Basic ${basic}`, basic, 'me:pass-word-123', 'pass-word-123', 'azure-0123456789', 'Bearer tok-0123456789', 'tok-0123456789']);
    expect(headerCredentials(undefined)).toEqual([]);
  });

  it('takes the token after any scheme, with a space or a tab, and credential headers by any such name', () => {
    expect(headerCredentials({ 'X-Api-Key': 'ApiKey live-0123456789', Authorization: 'Bearer\tsk-tab-0123456789', 'X-Upstream-Credential': 'cred-0123456789' })).toEqual([
      'ApiKey live-0123456789',
      'live-0123456789',
      'Bearer\tsk-tab-0123456789',
      'sk-tab-0123456789',
      'cred-0123456789',
    ]);
  });

  it("takes a URL's user and password, as written and decoded", () => {
    expect(urlCredentials('https://me:pa%24%24word-123@proxy.example.com/v1')).toEqual(['me:pa%24%24word-123', 'pa%24%24word-123', 'me:pa$$word-123', 'pa$$word-123']);
    expect(urlCredentials('https://token-0123456789@proxy.example.com')).toEqual(['token-0123456789:', 'token-0123456789', 'token-0123456789:', 'token-0123456789']);
    expect(urlCredentials('https://proxy.example.com')).toEqual([]);
    expect(urlCredentials('not a url')).toEqual([]);
    expect(urlCredentials(undefined)).toEqual([]);
  });
});
