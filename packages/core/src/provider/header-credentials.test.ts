import { describe, expect, it } from 'vitest';
import { headerCredentials } from './header-credentials.ts';

describe('headerCredentials', () => {
  it('takes the values of credential headers, without their scheme, and what a Basic value holds', () => {
    const basic = Buffer.from('me:pass-word-123').toString('base64');
    expect(
      headerCredentials({ Authorization: `Basic ${basic}`, 'api-key': 'azure-0123456789', 'X-Session': 'Bearer tok-0123456789', accept: 'application/json' }),
    ).toEqual([`Basic ${basic}`, basic, 'me:pass-word-123', 'pass-word-123', 'azure-0123456789', 'Bearer tok-0123456789', 'tok-0123456789']);
    expect(headerCredentials(undefined)).toEqual([]);
  });
});
