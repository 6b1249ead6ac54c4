import { describe, expect, it } from 'vitest';

import { makeJwt } from '../../test/helpers/jwt.ts';
import { decodeJwtPayload, readTokenClaims } from './jwt.ts';

describe('readTokenClaims', () => {
  it('reads the account id, plan and residency from the https://api.openai.com/auth claim', () => {
    const token = makeJwt({
      sub: 'auth0|user',
      exp: 2_000_000_000,
      email: 'ada@example.com',
      'https://api.openai.com/auth': { chatgpt_account_id: 'acct-9', chatgpt_plan_type: 'pro', chatgpt_compute_residency: 'us' },
    });
    expect(readTokenClaims(token)).toEqual({
      accountId: 'acct-9',
      planType: 'pro',
      residency: 'us',
      email: 'ada@example.com',
      expiresAt: 2_000_000_000_000,
    });
  });

  it('never takes the account id from sub', () => {
    expect(readTokenClaims(makeJwt({ sub: 'auth0|user' })).accountId).toBeUndefined();
  });

  it('reads the e-mail from the profile claim when there is no top-level email', () => {
    expect(readTokenClaims(makeJwt({ 'https://api.openai.com/profile': { email: 'p@example.com' } })).email).toBe('p@example.com');
  });

  it('returns nothing for text that is not a JWT', () => {
    expect(decodeJwtPayload('not-a-jwt')).toBeUndefined();
    expect(decodeJwtPayload('a.!!!.c')).toBeUndefined();
    expect(readTokenClaims(undefined)).toEqual({});
  });
});
