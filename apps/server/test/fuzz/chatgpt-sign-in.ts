import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { startAuthServer } from '../../../../packages/provider-chatgpt-oauth/test/helpers/auth-server.ts';
import { makeAuthFile, makeTokenSet } from '../../../../packages/provider-chatgpt-oauth/test/helpers/jwt.ts';

/** A ChatGPT sign-in valid for a day, known to `auth`, written to `dir`/auth.json (mode 0600): its path. */
export async function writeChatGPTSignIn(dir: string, auth: Awaited<ReturnType<typeof startAuthServer>>): Promise<string> {
  const authFile = join(dir, 'auth.json');
  const tokens = makeTokenSet({ expiresIn: 24 * 3600 });
  auth.adopt(tokens);
  await writeFile(authFile, JSON.stringify(makeAuthFile(tokens)), { mode: 0o600 });
  return authFile;
}
