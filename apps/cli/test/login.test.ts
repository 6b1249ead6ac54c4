import { existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The sign-in server stand-in that provider-chatgpt-oauth's own tests use (authorize, token,
// device code and revoke over real HTTP on 127.0.0.1), reused rather than written twice.
import { startAuthServer } from '../../../packages/provider-chatgpt-oauth/test/helpers/auth-server.ts';
import { startBackend, textEvents } from '../../../packages/provider-chatgpt-oauth/test/helpers/backend-server.ts';
import { makeAuthFile, makeTokenSet } from '../../../packages/provider-chatgpt-oauth/test/helpers/jwt.ts';
import { runCli } from './run-cli.ts';

describe('toolwire login / whoami / logout chatgpt', () => {
  let auth: Awaited<ReturnType<typeof startAuthServer>>;
  const dir = mkdtempSync(join(tmpdir(), 'toolwire-cli-login-'));
  const env = { TOOLWIRE_CHATGPT_AUTH_FILE: join(dir, 'chatgpt-auth.json'), CODEX_HOME: dir, TOOLWIRE_CHATGPT_ISSUER: '' };

  beforeAll(async () => {
    auth = await startAuthServer({ tokens: { accountId: 'acct-cli' }, devicePendingPolls: 1 });
    env.TOOLWIRE_CHATGPT_ISSUER = auth.url;
  });
  afterAll(async () => {
    await auth.close();
  });

  it('signs in with the device code, saving the tokens privately and printing none of them', async () => {
    const run = await runCli(['login', 'chatgpt', '--device'], { env });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('ABCD-1234');
    expect(run.stderr).toContain(`${auth.url}/codex/device`);
    expect(run.stdout).toContain('signed in as');
    expect(run.stdout).toContain('acct-cli');
    expect(statSync(env.TOOLWIRE_CHATGPT_AUTH_FILE).mode & 0o777).toBe(0o600);
    for (const token of auth.issued) {
      expect(run.stdout).not.toContain(token);
      expect(run.stderr).not.toContain(token);
    }
  });

  it('reports the sign-in with whoami', async () => {
    const run = await runCli(['whoami', '--json'], { env });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ provider: 'chatgpt', signedIn: true, accountId: 'acct-cli' });
    for (const token of auth.issued) expect(run.stdout).not.toContain(token);
  });

  it('signs out, revoking the refresh token and deleting the file', async () => {
    const run = await runCli(['logout', 'chatgpt'], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('the sign-in was revoked');
    expect(auth.revoked).toHaveLength(1);
    expect(existsSync(env.TOOLWIRE_CHATGPT_AUTH_FILE)).toBe(false);
    const again = await runCli(['logout', 'chatgpt'], { env });
    expect(again.stdout).toContain('nothing to do');
    // CODEX_HOME exists but holds no auth.json: Codex may keep its sign-in in the keyring.
    const whoami = await runCli(['whoami'], { env });
    expect(whoami.stdout).toContain('Codex may keep it in the keyring: run `toolwire login chatgpt`');
  });

  it('refuses a sign-in to another workspace than --workspace, saving nothing', async () => {
    const run = await runCli(['login', 'chatgpt', '--device', '--workspace', 'ws-company'], { env });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('restricted to workspace ws-company, but the account chosen was acct-cli');
    expect(existsSync(env.TOOLWIRE_CHATGPT_AUTH_FILE)).toBe(false);
  });
});

describe('toolwire chat --model chatgpt/…', () => {
  it('uses the sign-in toolwire login wrote (TOOLWIRE_CHATGPT_AUTH_FILE) and prints no token', async () => {
    const backend = await startBackend({ models: [{ slug: 'gpt-5.4', base_instructions: 'You are Codex.' }] });
    try {
      const dir = mkdtempSync(join(tmpdir(), 'toolwire-cli-chatgpt-'));
      const tokens = makeTokenSet();
      const path = join(dir, 'elsewhere.json');
      writeFileSync(path, JSON.stringify(makeAuthFile(tokens)), { mode: 0o600 });
      backend.reply({ sse: textEvents('Hello from Codex.') });
      const run = await runCli(['chat', '--model', 'chatgpt/gpt-5.4', 'hi'], {
        env: { TOOLWIRE_CHATGPT_AUTH_FILE: path, TOOLWIRE_CHATGPT_BASE_URL: backend.url, CODEX_HOME: dir },
      });
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
      expect(run.stdout).toContain('Hello from Codex.');
      expect(backend.requests[0]?.headers.authorization).toBe(`Bearer ${tokens.access_token}`);
      for (const token of Object.values(tokens)) expect(run.stdout + run.stderr).not.toContain(token);
    } finally {
      await backend.close();
    }
  });
});
