import { readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { ChatGPTLoginError, createChatGPTAuth, login, logout, whoami } from '../src/index.ts';
import type { ChatGPTAuditEvent } from '../src/index.ts';
import { startAuthServer } from './helpers/auth-server.ts';
import { makeTempDir, recordingLogger } from './helpers/temp-dir.ts';

let auth: Awaited<ReturnType<typeof startAuthServer>>;
let temp: Awaited<ReturnType<typeof makeTempDir>>;

beforeEach(async () => {
  temp = await makeTempDir();
});
afterEach(async () => {
  await auth?.close();
  await temp.cleanup();
});

/** Plays the browser: opens the authorize URL, follows the redirect to the loopback callback. */
function browser(options: { tamperState?: boolean; seen?: string[] } = {}) {
  return async (authorizeUrl: string) => {
    options.seen?.push(authorizeUrl);
    const redirect = await fetch(authorizeUrl, { redirect: 'manual' });
    const location = new URL(redirect.headers.get('location') ?? '');
    if (options.tamperState) location.searchParams.set('state', 'forged');
    // The redirect says `localhost` (as registered); the callback server listens on 127.0.0.1.
    location.hostname = '127.0.0.1';
    const callback = await fetch(location);
    await callback.text();
  };
}

/** Two free ports the test may bind. */
async function freePorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  for (let index = 0; index < count; index++) {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    ports.push((server.address() as { port: number }).port);
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  return ports;
}

describe('browser sign-in', () => {
  it('signs in end to end with PKCE and state, and stores the tokens with mode 0600', async () => {
    auth = await startAuthServer({ tokens: { accountId: 'acct-browser', planType: 'pro' } });
    const path = join(temp.dir, 'toolwire', 'chatgpt-auth.json');
    const seen: string[] = [];
    const events: ChatGPTAuditEvent[] = [];
    const status = await login({ store: 'toolwire', path, issuer: auth.url, ports: await freePorts(1), openUrl: browser({ seen }), onAuditEvent: (e) => events.push(e) });

    expect(status).toMatchObject({ signedIn: true, accountId: 'acct-browser', planType: 'pro', email: 'ada@example.com', store: 'toolwire' });
    const authorize = new URL(seen[0]!);
    expect(authorize.pathname).toBe('/oauth/authorize');
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: 'app_EMoamEEZ73f0CkXaXp7hrann',
      code_challenge_method: 'S256',
      id_token_add_organizations: 'true',
      codex_cli_simplified_flow: 'true',
      originator: 'codex_cli_rs',
      scope: 'openid profile email offline_access',
    });
    expect(authorize.searchParams.get('redirect_uri')).toMatch(/^http:\/\/localhost:\d+\/auth\/callback$/);
    expect(authorize.searchParams.get('state')!.length).toBeGreaterThanOrEqual(43);

    const file = JSON.parse(await readFile(path, 'utf8'));
    expect(file.tokens.account_id).toBe('acct-browser');
    expect(auth.issued).toContain(file.tokens.refresh_token);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(events).toEqual([{ type: 'login', method: 'browser', accountId: 'acct-browser', store: 'toolwire' }]);
  });

  it('falls back to the next port when the first is taken', async () => {
    auth = await startAuthServer();
    const [taken, free] = await freePorts(2);
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(taken, '127.0.0.1', resolve));
    try {
      const seen: string[] = [];
      await login({ path: join(temp.dir, 'a.json'), store: 'toolwire', issuer: auth.url, ports: [taken!, free!], openUrl: browser({ seen }) });
      expect(new URL(seen[0]!).searchParams.get('redirect_uri')).toBe(`http://localhost:${free}/auth/callback`);
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });

  it('says what to do when every callback port is taken', async () => {
    auth = await startAuthServer();
    const [taken] = await freePorts(1);
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(taken, '127.0.0.1', resolve));
    try {
      const attempt = login({ store: 'toolwire', path: join(temp.dir, 'a.json'), issuer: auth.url, ports: [taken!], openUrl: browser() });
      await expect(attempt).rejects.toSatisfy((error: unknown) => ChatGPTLoginError.isInstance(error) && error.reason === 'port_unavailable');
      await expect(attempt).rejects.toThrow(/--device/);
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });

  it('rejects a callback whose state does not match, and saves nothing', async () => {
    auth = await startAuthServer();
    const path = join(temp.dir, 'a.json');
    const attempt = login({ store: 'toolwire', path, issuer: auth.url, ports: await freePorts(1), openUrl: browser({ tamperState: true }) });
    await expect(attempt).rejects.toSatisfy((error: unknown) => ChatGPTLoginError.isInstance(error) && error.reason === 'state_mismatch');
    await expect(readFile(path)).rejects.toThrow();
    expect(auth.requests.some((r) => r.path === '/oauth/token')).toBe(false);
  });

  it('explains a workspace without Codex', async () => {
    auth = await startAuthServer({ authorizeError: { error: 'access_denied', error_description: 'missing_codex_entitlement' } });
    const attempt = login({ store: 'toolwire', path: join(temp.dir, 'a.json'), issuer: auth.url, ports: await freePorts(1), openUrl: browser() });
    await expect(attempt).rejects.toThrow(/does not allow Codex/);
  });
});

describe('device-code sign-in', () => {
  it('shows the code, polls while pending, and stores the tokens', async () => {
    auth = await startAuthServer({ tokens: { accountId: 'acct-device' }, devicePendingPolls: 2 });
    const path = join(temp.dir, 'device.json');
    const prompts: unknown[] = [];
    const status = await login({ method: 'device', store: 'toolwire', path, issuer: auth.url, onDeviceCode: (prompt) => void prompts.push(prompt) });
    expect(prompts).toEqual([{ verificationUrl: `${auth.url}/codex/device`, userCode: 'ABCD-1234' }]);
    expect(status).toMatchObject({ signedIn: true, accountId: 'acct-device' });
    expect(auth.requests.filter((r) => r.path === '/api/accounts/deviceauth/token')).toHaveLength(3);
    const exchange = auth.requests.find((r) => r.path === '/oauth/token')!;
    expect(new URLSearchParams(exchange.body).get('redirect_uri')).toBe(`${auth.url}/deviceauth/callback`);
  });
});

describe('device-code expiry', () => {
  it('gives up when the code is not entered in time', async () => {
    auth = await startAuthServer({ devicePendingPolls: 1_000_000 });
    const attempt = login({ method: 'device', store: 'toolwire', path: join(temp.dir, 'd.json'), issuer: auth.url, timeoutMs: 100, onDeviceCode: () => undefined });
    await expect(attempt).rejects.toSatisfy((error: unknown) => ChatGPTLoginError.isInstance(error) && error.reason === 'device_code_expired');
  });
});

describe('whoami and logout', () => {
  it('reports the account without tokens, then logout revokes and deletes', async () => {
    auth = await startAuthServer({ tokens: { accountId: 'acct-out', planType: 'team' } });
    const path = join(temp.dir, 'out.json');
    const { logger, lines } = recordingLogger();
    await login({ method: 'device', store: 'toolwire', path, issuer: auth.url, logger });
    const file = JSON.parse(await readFile(path, 'utf8'));

    const status = await whoami({ store: 'toolwire', path, issuer: auth.url });
    expect(status).toMatchObject({ signedIn: true, accountId: 'acct-out', planType: 'team', readOnly: false, needsRefresh: false });
    for (const token of Object.values(file.tokens as Record<string, string>).filter((v) => v.length > 20)) {
      expect(JSON.stringify(status)).not.toContain(token);
    }
    expect(lines.some((line) => line.includes('ABCD-1234'))).toBe(true);

    expect(await logout({ store: 'toolwire', path, issuer: auth.url })).toEqual({ removed: true, revoked: true });
    expect(auth.revoked).toEqual([file.tokens.refresh_token]);
    await expect(readFile(path)).rejects.toThrow();
    expect(await whoami({ store: 'toolwire', path })).toMatchObject({ signedIn: false });
  });

  it('refuses to log out of a read-only Codex sign-in and points at codex logout', async () => {
    auth = await startAuthServer();
    const codexHome = join(temp.dir, 'codex');
    const device = createChatGPTAuth({ store: 'codex', codexHome, codexWriteBack: true, issuer: auth.url });
    await device.login({ method: 'device', onDeviceCode: () => undefined });
    await expect(logout({ store: 'codex', codexHome, issuer: auth.url })).rejects.toThrow(/codex logout/);
    expect(await whoami({ store: 'codex', codexHome })).toMatchObject({ signedIn: true, readOnly: true, store: 'codex' });
  });
});
