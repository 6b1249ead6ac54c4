import { spawn } from 'node:child_process';
import { chmod, lstat, mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { AuthExpiredError, ProviderError } from '@toolwire/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { createChatGPTAuth, NotSignedInError } from '../src/index.ts';
import type { ChatGPTAuditEvent } from '../src/index.ts';
import { startAuthServer } from './helpers/auth-server.ts';
import { makeAuthFile, makeTokenSet } from './helpers/jwt.ts';
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

const DAY = 24 * 60 * 60 * 1000;

async function writeSignIn(path: string, options: { expiresIn: number; lastRefresh?: Date; extra?: Record<string, unknown> }) {
  const tokens = makeTokenSet({ expiresIn: options.expiresIn });
  auth.adopt(tokens);
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, JSON.stringify(makeAuthFile(tokens, options.extra, options.lastRefresh)), { mode: 0o600 });
  return tokens;
}

describe('token refresh', () => {
  it('refreshes an expired access token, rewrites the file atomically with mode 0600 and keeps unknown fields', async () => {
    auth = await startAuthServer();
    const path = join(temp.dir, 'auth.json');
    const old = await writeSignIn(path, { expiresIn: -30, extra: { agent_identity: { id: 'keep-me' } } });
    const events: ChatGPTAuditEvent[] = [];
    const manager = createChatGPTAuth({ store: 'toolwire', path, issuer: auth.url, onAuditEvent: (e) => events.push(e) });

    const credentials = await manager.getCredentials();
    expect(credentials.accountId).toBe('acct-1234');
    expect(credentials.accessToken).not.toBe(old.access_token);
    expect(auth.refreshCount).toBe(1);
    const refresh = auth.requests.find((r) => r.path === '/oauth/token')!;
    expect(JSON.parse(refresh.body)).toEqual({ client_id: 'app_EMoamEEZ73f0CkXaXp7hrann', grant_type: 'refresh_token', refresh_token: old.refresh_token });

    const file = JSON.parse(await readFile(path, 'utf8'));
    expect(file.tokens.access_token).toBe(credentials.accessToken);
    expect(file.tokens.refresh_token).not.toBe(old.refresh_token);
    expect(file.agent_identity).toEqual({ id: 'keep-me' });
    expect(Date.now() - Date.parse(file.last_refresh)).toBeLessThan(60_000);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(events).toEqual([{ type: 'refresh', accountId: 'acct-1234', reason: 'expired', store: 'toolwire' }]);

    // Fresh now: no second refresh.
    await manager.getCredentials();
    expect(auth.refreshCount).toBe(1);
  });

  it('takes a whole token answer whose connection is held open, closes it, and keeps the new tokens', async () => {
    // A proxy that never ends a complete answer: waiting for its end until refreshTimeoutMs
    // would fail the refresh and lose the tokens the server has already rotated.
    auth = await startAuthServer({ refreshHoldsConnection: true });
    const path = join(temp.dir, 'auth.json');
    const old = await writeSignIn(path, { expiresIn: -30 });
    const manager = createChatGPTAuth({ store: 'toolwire', path, issuer: auth.url, refreshTimeoutMs: 40_000 });
    const started = Date.now();
    const credentials = await manager.getCredentials();
    // Well before the refresh's own deadline (40 s): after the grace for the body's end.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(credentials.accessToken).not.toBe(old.access_token);
    expect(JSON.parse(await readFile(path, 'utf8')).tokens.access_token).toBe(credentials.accessToken);
    await expect.poll(() => auth.heldAnswers, { timeout: 10_000 }).toEqual({ closedByClient: 1, open: 0 });
  }, 60_000);

  it('refreshes by the access token\'s JWT exp, as Codex does, not by the age of the last refresh', async () => {
    auth = await startAuthServer();
    const cases = [
      { name: 'valid for an hour, refreshed 9 days ago', expiresIn: 3600, lastRefresh: new Date(Date.now() - 9 * DAY), refreshes: false },
      { name: 'valid for 10 minutes, refreshed 30 days ago', expiresIn: 600, lastRefresh: new Date(Date.now() - 30 * DAY), refreshes: false },
      { name: 'expires in 30 s (inside the one-minute margin), refreshed just now', expiresIn: 30, lastRefresh: new Date(), refreshes: true },
      { name: 'expired a day ago, refreshed just now', expiresIn: -DAY / 1000, lastRefresh: new Date(), refreshes: true },
    ];
    for (const [index, example] of cases.entries()) {
      const path = join(temp.dir, `exp-${index}.json`);
      await writeSignIn(path, { expiresIn: example.expiresIn, lastRefresh: example.lastRefresh });
      const events: ChatGPTAuditEvent[] = [];
      const manager = createChatGPTAuth({ store: 'toolwire', path, issuer: auth.url, onAuditEvent: (e) => events.push(e) });
      expect(await manager.status()).toMatchObject({ signedIn: true, needsRefresh: example.refreshes });
      await manager.getCredentials();
      expect({ name: example.name, events }).toEqual({ name: example.name, events: example.refreshes ? [expect.objectContaining({ type: 'refresh', reason: 'expired' })] : [] });
    }
  });

  it('falls back to the 8-day age only for an access token without a readable exp', async () => {
    auth = await startAuthServer();
    for (const [index, example] of [
      { age: 9 * DAY, refreshes: true },
      { age: 1 * DAY, refreshes: false },
    ].entries()) {
      const path = join(temp.dir, `opaque-${index}.json`);
      const tokens = { ...makeTokenSet(), access_token: `opaque-access-token-${index}-0123456789` };
      auth.adopt(tokens);
      await writeFile(path, JSON.stringify(makeAuthFile(tokens, {}, new Date(Date.now() - example.age))), { mode: 0o600 });
      const events: ChatGPTAuditEvent[] = [];
      await createChatGPTAuth({ store: 'toolwire', path, issuer: auth.url, onAuditEvent: (e) => events.push(e) }).getCredentials();
      expect(events).toEqual(example.refreshes ? [expect.objectContaining({ type: 'refresh', reason: 'stale' })] : []);
    }
  });

  it('does one refresh for many concurrent requests in one process', async () => {
    auth = await startAuthServer({ refreshDelayMs: 100 });
    const path = join(temp.dir, 'auth.json');
    await writeSignIn(path, { expiresIn: -30 });
    const manager = createChatGPTAuth({ store: 'toolwire', path, issuer: auth.url });
    const results = await Promise.all(Array.from({ length: 5 }, () => manager.getCredentials()));
    expect(new Set(results.map((r) => r.accessToken)).size).toBe(1);
    expect(auth.refreshCount).toBe(1);
  });

  it('finishes and saves a refresh whose caller aborted after it was sent, so the rotated refresh token is not lost', async () => {
    // The server retires the old refresh token as soon as it gets it; its answer comes later.
    auth = await startAuthServer({ refreshDelayMs: 300 });
    const path = join(temp.dir, 'auth.json');
    const old = await writeSignIn(path, { expiresIn: -30 });
    const manager = createChatGPTAuth({ store: 'toolwire', path, issuer: auth.url });
    const controller = new AbortController();
    const first = manager.getCredentials(controller.signal).catch((e: unknown) => e);
    for (let waited = 0; auth.refreshCount === 0 && waited < 10_000; waited += 5) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(new Error('the client went away'));
    expect(await first).toEqual(new Error('the client went away'));

    // The next request waits for that refresh instead of sending the retired token again.
    const credentials = await manager.getCredentials();
    expect(credentials.accessToken).not.toBe(old.access_token);
    expect(auth.refreshCount).toBe(1);
    const file = JSON.parse(await readFile(path, 'utf8'));
    expect(file.tokens.refresh_token).not.toBe(old.refresh_token);
    expect(file.tokens.access_token).toBe(credentials.accessToken);
  });

  it('turns a reused refresh token into AuthExpiredError and does not ask the server again', async () => {
    auth = await startAuthServer();
    const path = join(temp.dir, 'auth.json');
    const tokens = await writeSignIn(path, { expiresIn: -30 });
    auth.retire(tokens.refresh_token);
    const events: ChatGPTAuditEvent[] = [];
    const manager = createChatGPTAuth({ store: 'toolwire', path, issuer: auth.url, onAuditEvent: (e) => events.push(e) });

    const error = await manager.getCredentials().catch((e: unknown) => e);
    expect(AuthExpiredError.isInstance(error)).toBe(true);
    expect((error as AuthExpiredError).code).toBe('refresh_token_reused');
    expect((error as Error).message).toContain('sign in again with `toolwire login chatgpt`');
    await expect(manager.getCredentials()).rejects.toThrow(/toolwire login chatgpt/);
    expect(auth.refreshCount).toBe(1);
    expect(events).toEqual([{ type: 'refresh-failed', accountId: 'acct-1234', code: 'refresh_token_reused', permanent: true, store: 'toolwire' }]);
  });

  it('fails a refresh answered with 200 but no access token (a captive portal page, JSON without tokens), writing nothing', async () => {
    for (const body of ['<html><body>Sign in to the hotel Wi-Fi</body></html>', '{"ok":true}']) {
      auth = await startAuthServer({ refreshFailure: { status: 200, body: () => body } });
      const path = join(temp.dir, 'auth.json');
      await writeSignIn(path, { expiresIn: -30 });
      const before = await readFile(path, 'utf8');
      const manager = createChatGPTAuth({ store: 'toolwire', path, issuer: auth.url });
      const error = await manager.getCredentials().catch((e: unknown) => e);
      expect(ProviderError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ code: 'invalid_token_response', retryable: true });
      expect((error as Error).message).toMatch(/HTTP 200 but no access token .*Check the network/);
      expect(await readFile(path, 'utf8')).toBe(before);
      await auth.close();
    }
  });

  it('treats invalid_grant (an unknown or revoked refresh token) as needing a new sign-in', async () => {
    auth = await startAuthServer();
    const path = join(temp.dir, 'auth.json');
    // A sign-in the server never issued (or has forgotten).
    await writeFile(path, JSON.stringify(makeAuthFile(makeTokenSet({ expiresIn: -30 }))), { mode: 0o600 });
    const error = await createChatGPTAuth({ store: 'toolwire', path, issuer: auth.url }).getCredentials().catch((e: unknown) => e);
    expect(AuthExpiredError.isInstance(error)).toBe(true);
    expect((error as AuthExpiredError).code).toBe('invalid_grant');
    expect((error as Error).message).toContain('sign in again with `toolwire login chatgpt`');
  });

  it('after a 401 takes tokens another process wrote instead of refreshing, and reports an account switch', async () => {
    auth = await startAuthServer();
    const path = join(temp.dir, 'auth.json');
    const first = await writeSignIn(path, { expiresIn: 3600 });
    const { logger, lines } = recordingLogger();
    const manager = createChatGPTAuth({ store: 'toolwire', path, issuer: auth.url, logger });
    expect((await manager.getCredentials()).accessToken).toBe(first.access_token);

    const other = makeTokenSet({ accountId: 'acct-other' });
    await writeFile(path, JSON.stringify(makeAuthFile(other, {}, new Date(), 'acct-other')));
    const credentials = await manager.refreshAfterUnauthorized(first.access_token);
    expect(credentials).toEqual({ accessToken: other.access_token, accountId: 'acct-other' });
    expect(auth.refreshCount).toBe(0);
    expect(lines).toEqual([expect.stringContaining('changed from account acct-1234 to acct-other')]);
  });

  it('says how to sign in when there is no sign-in at all', async () => {
    auth = await startAuthServer();
    const manager = createChatGPTAuth({ path: join(temp.dir, 'none.json'), codexHome: join(temp.dir, 'no-codex'), issuer: auth.url });
    const error = await manager.getCredentials().catch((e: unknown) => e);
    expect(NotSignedInError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('toolwire login chatgpt');
    expect((error as Error).message).toContain('no Codex sign-in (');
  });

  it('reports a Codex sign-in that may live in the system keyring', async () => {
    auth = await startAuthServer();
    const cases = [
      { config: undefined, expected: /found none in .*auth\.json; Codex may keep it in the keyring: run `toolwire login chatgpt`/ },
      { config: 'model = "gpt-5.4"\ncli_auth_credentials_store = "file"\n', expected: /Codex may keep it in the keyring: run `toolwire login chatgpt`/ },
      { config: 'cli_auth_credentials_store = "keyring"\n[profiles.x]\nmodel = "o3"\n', expected: /Codex keeps its sign-in in the system keyring \(cli_auth_credentials_store = "keyring"\), which Toolwire does not read: run `toolwire login chatgpt`/ },
      { config: "cli_auth_credentials_store='auto'\n", expected: /system keyring \(cli_auth_credentials_store = "auto"\)/ },
      // Inside a table the key is not Codex's setting.
      { config: '[profiles.x]\ncli_auth_credentials_store = "keyring"\n', expected: /Codex may keep it in the keyring/ },
    ];
    for (const [index, example] of cases.entries()) {
      const codexHome = join(temp.dir, `codex-${index}`);
      await mkdir(codexHome);
      if (example.config !== undefined) await writeFile(join(codexHome, 'config.toml'), example.config);
      const manager = createChatGPTAuth({ path: join(temp.dir, 'none.json'), codexHome, issuer: auth.url });
      const error = await manager.getCredentials().catch((e: unknown) => e);
      expect(NotSignedInError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(example.expected);
      expect(await manager.status()).toMatchObject({ signedIn: false, message: expect.stringMatching(example.expected) });
    }
  });

  it('lets exactly one of several processes sharing the token file refresh it', async () => {
    auth = await startAuthServer({ refreshDelayMs: 300 });
    const path = join(temp.dir, 'shared', 'auth.json');
    await writeSignIn(path, { expiresIn: -30 });
    const child = join(import.meta.dirname, 'fixtures', 'refresh-child.ts');
    const run = () =>
      new Promise<{ ok: boolean; accessToken?: string; message?: string }>((resolve, reject) => {
        const proc = spawn(process.execPath, ['--conditions=@toolwire/source', child, path, auth.url], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
        proc.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
        proc.on('error', reject);
        proc.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`child exited ${code}: ${err}`))));
      });
    const results = await Promise.all([run(), run(), run()]);
    expect(results.map((r) => r.ok)).toEqual([true, true, true]);
    expect(auth.refreshCount).toBe(1);
    const file = JSON.parse(await readFile(path, 'utf8'));
    expect(new Set(results.map((r) => r.accessToken))).toEqual(new Set([file.tokens.access_token]));
  });
});

describe('a token file at its worst', () => {
  it('names an empty or not-JSON file as damaged (after reading it again), and status() reports it', async () => {
    auth = await startAuthServer();
    for (const [name, text, what] of [
      ['empty.json', '', 'empty'],
      ['cut.json', '{"tokens": {"access_token": "eyJ', 'not a JSON object'],
    ] as const) {
      const path = join(temp.dir, name);
      await writeFile(path, text, { mode: 0o600 });
      const manager = createChatGPTAuth({ store: 'toolwire', path, issuer: auth.url });
      const error = await manager.getCredentials().catch((e: unknown) => e);
      expect(NotSignedInError.isInstance(error)).toBe(true);
      expect((error as Error).message).toBe(`The ChatGPT sign-in file ${path} is damaged (${what}): sign in again with \`toolwire login chatgpt\`, which replaces it.`);
      expect(await manager.status()).toMatchObject({ signedIn: false, message: (error as Error).message });
    }
  });

  it('says a path that is a directory is one, instead of a raw EISDIR', async () => {
    auth = await startAuthServer();
    const path = join(temp.dir, 'auth.json');
    await mkdir(path);
    const error = await createChatGPTAuth({ store: 'toolwire', path, issuer: auth.url }).getCredentials().catch((e: unknown) => e);
    expect((error as Error).message).toBe(`The ChatGPT sign-in path ${path} is a directory, not a token file. Remove it, or point the \`path\` option (TOOLWIRE_CHATGPT_AUTH_FILE) at a file.`);
  });

  it('tightens a token file other users can read to 0600 and says so', async () => {
    auth = await startAuthServer();
    const path = join(temp.dir, 'auth.json');
    await writeSignIn(path, { expiresIn: 3600 });
    await chmod(path, 0o644);
    const { logger, lines } = recordingLogger();
    await createChatGPTAuth({ store: 'toolwire', path, issuer: auth.url, logger }).getCredentials();
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(lines).toEqual([`info The ChatGPT token file ${path} could be read by other users (mode 0644); Toolwire changed it to 0600.`]);
  });

  it('refreshes a symlinked token file through the link: the link stays, its target gets the new tokens', async () => {
    auth = await startAuthServer();
    const target = join(temp.dir, 'dotfiles', 'auth.json');
    const link = join(temp.dir, 'home', 'auth.json');
    const old = await writeSignIn(target, { expiresIn: -30 });
    await mkdir(join(link, '..'), { recursive: true });
    await symlink(target, link);
    const credentials = await createChatGPTAuth({ store: 'toolwire', path: link, issuer: auth.url }).getCredentials();
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    const file = JSON.parse(await readFile(target, 'utf8'));
    expect(file.tokens.access_token).toBe(credentials.accessToken);
    expect(file.tokens.refresh_token).not.toBe(old.refresh_token);
    expect((await stat(target)).mode & 0o777).toBe(0o600);
  });
});

describe('Codex auth.json', () => {
  it('is imported when Toolwire has no sign-in of its own, read-only', async () => {
    auth = await startAuthServer();
    const codexHome = join(temp.dir, 'codex');
    const tokens = await writeSignIn(join(codexHome, 'auth.json'), { expiresIn: 3600 });
    const manager = createChatGPTAuth({ path: join(temp.dir, 'own.json'), codexHome, issuer: auth.url });
    expect(await manager.getCredentials()).toEqual({ accessToken: tokens.access_token, accountId: 'acct-1234' });
    expect(await manager.status()).toMatchObject({ signedIn: true, store: 'codex', readOnly: true, path: join(codexHome, 'auth.json') });
  });

  it('is never refreshed without write-back: an expired Codex sign-in asks the user to run codex', async () => {
    auth = await startAuthServer();
    const codexHome = join(temp.dir, 'codex');
    await writeSignIn(join(codexHome, 'auth.json'), { expiresIn: -30 });
    const before = await readFile(join(codexHome, 'auth.json'), 'utf8');
    const manager = createChatGPTAuth({ store: 'codex', codexHome, issuer: auth.url });
    const error = await manager.getCredentials().catch((e: unknown) => e);
    expect(AuthExpiredError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('Run `codex` once');
    expect(auth.refreshCount).toBe(0);
    expect(await readFile(join(codexHome, 'auth.json'), 'utf8')).toBe(before);
  });

  it('is refreshed in place with write-back, keeping Codex fields', async () => {
    auth = await startAuthServer();
    const codexHome = join(temp.dir, 'codex');
    await writeSignIn(join(codexHome, 'auth.json'), { expiresIn: -30, extra: { personal_access_token: 'pat-placeholder' } });
    const manager = createChatGPTAuth({ store: 'codex', codexHome, codexWriteBack: true, issuer: auth.url });
    const credentials = await manager.getCredentials();
    const file = JSON.parse(await readFile(join(codexHome, 'auth.json'), 'utf8'));
    expect(file.tokens.access_token).toBe(credentials.accessToken);
    expect(file.personal_access_token).toBe('pat-placeholder');
    expect(file.auth_mode).toBe('chatgpt');
    expect(auth.refreshCount).toBe(1);
  });
});

describe('secrets', () => {
  it('never puts tokens in logs, audit events or error messages', async () => {
    auth = await startAuthServer();
    const path = join(temp.dir, 'auth.json');
    const { logger, lines } = recordingLogger();
    const events: ChatGPTAuditEvent[] = [];
    const errors: string[] = [];
    const tokens = await writeSignIn(path, { expiresIn: -30 });
    const manager = createChatGPTAuth({ store: 'toolwire', path, issuer: auth.url, logger, onAuditEvent: (e) => events.push(e) });
    await manager.getCredentials();
    await manager.status();
    // A refresh token the server rejects, with an error body that echoes it back.
    const second = await writeSignIn(join(temp.dir, 'b.json'), { expiresIn: -30 });
    auth.adopt(makeTokenSet());
    auth.retire(second.refresh_token);
    const failing = createChatGPTAuth({ store: 'toolwire', path: join(temp.dir, 'b.json'), issuer: 'http://127.0.0.1:9', logger, onAuditEvent: (e) => events.push(e) });
    await failing.getCredentials().catch((e: unknown) => errors.push(String(e), JSON.stringify(e)));
    const unknownToken = createChatGPTAuth({ store: 'toolwire', path: join(temp.dir, 'b.json'), issuer: auth.url, logger, onAuditEvent: (e) => events.push(e) });
    await writeFile(join(temp.dir, 'b.json'), JSON.stringify(makeAuthFile({ ...second, refresh_token: 'rt_unknown_secret_value_123456' })));
    await unknownToken.getCredentials().catch((e: unknown) => errors.push(String(e), JSON.stringify(e)));
    await manager.logout();

    const everything = [...lines, ...events.map((e) => JSON.stringify(e)), ...errors].join('\n');
    expect(errors.length).toBeGreaterThan(0);
    expect(events.length).toBeGreaterThan(2);
    for (const secret of [...auth.issued, tokens.refresh_token, second.refresh_token, 'rt_unknown_secret_value_123456']) {
      expect(everything).not.toContain(secret);
    }
    expect(everything).toContain('[redacted]');
  });
});
