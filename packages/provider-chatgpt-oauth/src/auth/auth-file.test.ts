import { describe, expect, it } from 'vitest';

import { makeAuthFile, makeTokenSet } from '../../test/helpers/jwt.ts';
import { parseAuthFile, serializeAuthFile } from './auth-file.ts';

describe('auth.json', () => {
  it('reads a Codex sign-in: tokens, account id and last refresh', () => {
    const tokens = makeTokenSet();
    const signIn = parseAuthFile(JSON.stringify(makeAuthFile(tokens, {}, new Date('2026-01-01T00:00:00Z'))));
    expect(signIn?.tokens).toEqual({ idToken: tokens.id_token, accessToken: tokens.access_token, refreshToken: tokens.refresh_token, accountId: 'acct-1234' });
    expect(signIn?.lastRefresh).toBe(Date.parse('2026-01-01T00:00:00Z'));
  });

  it('takes the account id from the id token claim when the file has none', () => {
    const tokens = makeTokenSet({ accountId: 'acct-claim' });
    const file = makeAuthFile(tokens);
    delete (file.tokens as Record<string, unknown>).account_id;
    expect(parseAuthFile(JSON.stringify(file))?.tokens.accountId).toBe('acct-claim');
  });

  it('keeps fields it does not know when rewriting', () => {
    const tokens = makeTokenSet();
    const file = makeAuthFile(tokens, { agent_identity: { id: 'agent-1' }, personal_access_token: null });
    (file.tokens as Record<string, unknown>).future_field = 'kept';
    const signIn = parseAuthFile(JSON.stringify(file))!;
    signIn.tokens.accessToken = 'new-access-token';
    const rewritten = JSON.parse(serializeAuthFile(signIn));
    expect(rewritten.agent_identity).toEqual({ id: 'agent-1' });
    expect(rewritten.personal_access_token).toBeNull();
    expect(rewritten.tokens.future_field).toBe('kept');
    expect(rewritten.tokens.access_token).toBe('new-access-token');
    expect(rewritten.OPENAI_API_KEY).toBeNull();
  });

  it('treats an API-key-only or malformed file as no sign-in', () => {
    expect(parseAuthFile(JSON.stringify({ OPENAI_API_KEY: 'sk-x' }))).toBeUndefined();
    expect(parseAuthFile('{not json')).toBeUndefined();
  });
});
