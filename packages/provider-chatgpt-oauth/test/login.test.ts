import { chmod, chown, mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { ChatGPTLoginError, createChatGPTAuth, InsecureTokenPathError, login, logout, whoami } from '../src/index.ts';
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
function browser(options: { seen?: string[]; callbacks?: { status: number; text: string }[] } = {}) {
  return async (authorizeUrl: string) => {
    options.seen?.push(authorizeUrl);
    const redirect = await fetch(authorizeUrl, { redirect: 'manual' });
    const location = new URL(redirect.headers.get('location') ?? '');
    // The redirect says `localhost` (as registered); the callback server listens on 127.0.0.1.
    location.hostname = '127.0.0.1';
    const callback = await fetch(location);
    options.callbacks?.push({ status: callback.status, text: await callback.text() });
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

  it('answers forged or stale callbacks (wrong state) with 400, ignores them, and completes with the right one', async () => {
    auth = await startAuthServer({ tokens: { accountId: 'acct-real' } });
    const path = join(temp.dir, 'a.json');
    const [port] = await freePorts(1);
    const forged = [
      '?code=code_1&state=forged', // a forged link
      '?code=attacker-code', // no state at all
      '?error=access_denied&error_description=missing_codex_entitlement&state=old-tab', // an error from a stale tab
      '?state=&code=x', // an empty state
      `?code=code_1&state=${'A'.repeat(43)}`, // the right length, the wrong value
    ];
    const answers: { status: number; text: string }[] = [];
    const callbacks: { status: number; text: string }[] = [];
    const real = browser({ callbacks });
    const status = await login({
      store: 'toolwire',
      path,
      issuer: auth.url,
      ports: [port!],
      openUrl: async (url) => {
        for (const query of forged) {
          const response = await fetch(`http://127.0.0.1:${port}/auth/callback${query}`);
          answers.push({ status: response.status, text: await response.text() });
        }
        await real(url);
      },
    });
    expect(answers.map((a) => a.status)).toEqual(forged.map(() => 400));
    for (const answer of answers) expect(answer.text).toContain('State mismatch');
    expect(callbacks).toEqual([{ status: 200, text: expect.stringContaining('Signed in to ChatGPT') }]);
    expect(status).toMatchObject({ signedIn: true, accountId: 'acct-real' });
    // Only the real code was exchanged.
    const exchanges = auth.requests.filter((r) => r.path === '/oauth/token');
    expect(exchanges.map((r) => new URLSearchParams(r.body).get('code'))).toEqual(['code_1']);
    expect(JSON.parse(await readFile(path, 'utf8')).tokens.account_id).toBe('acct-real');
  });

  it('answers a repeated (reloaded) callback without letting it end the sign-in', async () => {
    auth = await startAuthServer({ tokens: { accountId: 'acct-reload' } });
    const [port] = await freePorts(1);
    const answers: number[] = [];
    const status = await login({
      store: 'toolwire',
      path: join(temp.dir, 'a.json'),
      issuer: auth.url,
      ports: [port!],
      openUrl: async (url) => {
        const redirect = await fetch(url, { redirect: 'manual' });
        const location = new URL(redirect.headers.get('location') ?? '');
        location.hostname = '127.0.0.1';
        // The same callback twice at once, as a reloading tab sends it.
        const [first, second] = await Promise.all([fetch(location), fetch(location)]);
        answers.push(first.status, second.status);
        await Promise.all([first.text(), second.text()]);
      },
    });
    expect(answers.sort()).toEqual([200, 409]);
    expect(status).toMatchObject({ signedIn: true, accountId: 'acct-reload' });
    expect(auth.requests.filter((r) => r.path === '/oauth/token')).toHaveLength(1);
  });

  it('counts ignored callbacks in the timeout message when the right one never comes', async () => {
    auth = await startAuthServer();
    const [port] = await freePorts(1);
    const attempt = login({
      store: 'toolwire',
      path: join(temp.dir, 'a.json'),
      issuer: auth.url,
      ports: [port!],
      timeoutMs: 2000,
      openUrl: async () => {
        await (await fetch(`http://127.0.0.1:${port}/auth/callback?code=c&state=forged`)).text();
      },
    });
    await expect(attempt).rejects.toSatisfy((error: unknown) => ChatGPTLoginError.isInstance(error) && error.reason === 'timeout');
    await expect(attempt).rejects.toThrow(/1 callback\(s\) with a wrong `state` were ignored/);
    await expect(readFile(join(temp.dir, 'a.json'))).rejects.toThrow();
  });

  it('explains a workspace without Codex', async () => {
    auth = await startAuthServer({ authorizeError: { error: 'access_denied', error_description: 'missing_codex_entitlement' } });
    const attempt = login({ store: 'toolwire', path: join(temp.dir, 'a.json'), issuer: auth.url, ports: await freePorts(1), openUrl: browser() });
    await expect(attempt).rejects.toThrow(/does not allow Codex/);
  });
});

describe('workspace restriction', () => {
  it('asks for the workspace and keeps a sign-in of that workspace', async () => {
    auth = await startAuthServer({ tokens: { accountId: 'ws-allowed' } });
    const seen: string[] = [];
    const path = join(temp.dir, 'ws.json');
    const status = await login({ store: 'toolwire', path, issuer: auth.url, ports: await freePorts(1), allowedWorkspaceId: 'ws-allowed', openUrl: browser({ seen }) });
    expect(new URL(seen[0]!).searchParams.get('allowed_workspace_id')).toBe('ws-allowed');
    expect(status).toMatchObject({ signedIn: true, accountId: 'ws-allowed' });
  });

  it('refuses (browser) a sign-in of another workspace: 403 page, nothing saved, tokens revoked', async () => {
    auth = await startAuthServer({ tokens: { accountId: 'ws-personal' } });
    const path = join(temp.dir, 'ws.json');
    const callbacks: { status: number; text: string }[] = [];
    const attempt = login({ store: 'toolwire', path, issuer: auth.url, ports: await freePorts(1), allowedWorkspaceId: 'ws-company', openUrl: browser({ callbacks }) });
    await expect(attempt).rejects.toSatisfy((error: unknown) => ChatGPTLoginError.isInstance(error) && error.reason === 'workspace_mismatch');
    await expect(attempt).rejects.toThrow(/restricted to workspace ws-company, but the account chosen was ws-personal/);
    expect(callbacks.map((c) => c.status)).toEqual([403]);
    await expect(readFile(path)).rejects.toThrow();
    const issuedRefresh = auth.issued.filter((token) => token.startsWith('rt_'));
    // Revoked before login() answered.
    expect(auth.revoked).toEqual(issuedRefresh);
  });

  it('refuses (device code) a sign-in of another workspace', async () => {
    auth = await startAuthServer({ tokens: { accountId: 'ws-personal' } });
    const path = join(temp.dir, 'ws.json');
    const attempt = login({ method: 'device', store: 'toolwire', path, issuer: auth.url, allowedWorkspaceId: 'ws-company', onDeviceCode: () => undefined });
    await expect(attempt).rejects.toSatisfy((error: unknown) => ChatGPTLoginError.isInstance(error) && error.reason === 'workspace_mismatch');
    await expect(readFile(path)).rejects.toThrow();
    expect(auth.revoked).toHaveLength(1);
  });
});

describe('token directory', () => {
  it('tightens a world-writable directory of this user to 0700 and says so', async () => {
    auth = await startAuthServer();
    const dir = join(temp.dir, 'open');
    await mkdir(dir);
    await chmod(dir, 0o777);
    const { logger, lines } = recordingLogger();
    await login({ method: 'device', store: 'toolwire', path: join(dir, 'auth.json'), issuer: auth.url, logger, onDeviceCode: () => undefined });
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(dir, 'auth.json'))).mode & 0o777).toBe(0o600);
    expect(lines).toContainEqual(expect.stringMatching(/writable by every user \(mode 0777\); Toolwire changed it to 0700/));
  });

  it('refuses a shared sticky directory such as /tmp, saving nothing', async () => {
    auth = await startAuthServer();
    const dir = join(temp.dir, 'sticky');
    await mkdir(dir);
    await chmod(dir, 0o1777);
    const attempt = login({ method: 'device', store: 'toolwire', path: join(dir, 'auth.json'), issuer: auth.url, onDeviceCode: () => undefined });
    await expect(attempt).rejects.toSatisfy((error: unknown) => InsecureTokenPathError.isInstance(error) && error.directory === dir);
    await expect(attempt).rejects.toThrow(/other users can write to it \(mode 1777, a shared directory\)/);
    expect(await readdir(dir)).toEqual([]);
    // Refused before the sign-in started, so no tokens were issued to be lost.
    expect(auth.requests).toEqual([]);
    expect((await stat(dir)).mode & 0o7777).toBe(0o1777);
  });

  it("refuses another user's world-writable directory", async () => {
    auth = await startAuthServer();
    const dir = join(temp.dir, 'foreign');
    await mkdir(dir);
    await chmod(dir, 0o777);
    // Only root can hand a directory to another user; otherwise the sticky case above covers refusal.
    const isRoot = process.getuid?.() === 0;
    if (isRoot) await chown(dir, 65534, 65534);
    const attempt = login({ method: 'device', store: 'toolwire', path: join(dir, 'auth.json'), issuer: auth.url, onDeviceCode: () => undefined });
    if (isRoot) {
      await expect(attempt).rejects.toSatisfy((error: unknown) => InsecureTokenPathError.isInstance(error));
      expect(await readdir(dir)).toEqual([]);
    } else {
      await attempt;
      expect((await stat(dir)).mode & 0o777).toBe(0o700);
    }
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
    // The body Codex sends (codex-rs/login/src/auth/revoke.rs).
    expect(auth.revokeRequests).toEqual([
      {
        contentType: 'application/json',
        body: { token: file.tokens.refresh_token, token_type_hint: 'refresh_token', client_id: 'app_EMoamEEZ73f0CkXaXp7hrann' },
      },
    ]);
    await expect(readFile(path)).rejects.toThrow();
    expect(await whoami({ store: 'toolwire', path })).toMatchObject({ signedIn: false });
  });

  it('gives up on a revoke the server does not answer in time, and still deletes the sign-in', async () => {
    auth = await startAuthServer({ revokeDelayMs: 30_000 });
    const path = join(temp.dir, 'slow.json');
    await login({ method: 'device', store: 'toolwire', path, issuer: auth.url, onDeviceCode: () => undefined });
    const { logger, lines } = recordingLogger();
    const started = Date.now();
    expect(await logout({ store: 'toolwire', path, issuer: auth.url, requestTimeoutMs: 300, logger })).toEqual({ removed: true, revoked: false });
    // Well before the server would have answered.
    expect(Date.now() - started).toBeLessThan(20_000);
    await expect(readFile(path)).rejects.toThrow();
    expect(lines).toEqual([expect.stringContaining('did not confirm the revocation')]);
  });

  it('revokes the access token (without client_id) when the sign-in has no refresh token', async () => {
    auth = await startAuthServer();
    const path = join(temp.dir, 'access-only.json');
    const manager = createChatGPTAuth({ store: 'toolwire', path, issuer: auth.url });
    await manager.login({ method: 'device', onDeviceCode: () => undefined });
    const file = JSON.parse(await readFile(path, 'utf8'));
    file.tokens.refresh_token = '';
    await import('node:fs/promises').then(({ writeFile }) => writeFile(path, JSON.stringify(file)));
    expect(await createChatGPTAuth({ store: 'toolwire', path, issuer: auth.url }).logout()).toEqual({ removed: true, revoked: true });
    expect(auth.revokeRequests.map((r) => r.body)).toEqual([{ token: file.tokens.access_token, token_type_hint: 'access_token' }]);
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
