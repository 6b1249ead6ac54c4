/** Header names that carry credentials (`Authorization`, `X-Api-Key`, Azure's `api-key`, cookies, `*credential*`). */
const CREDENTIAL_HEADER = /auth|key|token|secret|cookie|session|pass|credential/iu;

/**
 * The credentials among request headers, to redact from errors: each value as sent, without
 * its scheme (`Bearer`, `Basic`, any other), and for `Basic` also what the base64 holds (`user:password`
 * and the password), which a server that decoded it may echo.
 *
 * @example redactErrorSecrets(error, [apiKey, ...headerCredentials(options.headers)])
 */
export function headerCredentials(headers: Record<string, string> | undefined): string[] {
  const credentials: string[] = [];
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (!CREDENTIAL_HEADER.test(name)) continue;
    credentials.push(value);
    // `Scheme token`, with a space or a tab: any scheme (`ApiKey`, `SSWS`, `Key`), since a
    // server may echo the token alone.
    const { scheme, token } = splitScheme(value.trim());
    if (scheme !== '') credentials.push(token);
    if (scheme === 'basic') {
      const decoded = Buffer.from(token, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon >= 0) credentials.push(decoded, decoded.slice(colon + 1));
    }
  }
  return credentials;
}

/** `value` as an auth scheme (a word, lower-cased) and the token after it, or no scheme. */
function splitScheme(value: string): { scheme: string; token: string } {
  let end = 0;
  while (end < value.length && isSchemeChar(value.charCodeAt(end))) end++;
  if (end === 0 || end === value.length || (value[end] !== ' ' && value[end] !== '\t')) return { scheme: '', token: value };
  return { scheme: value.slice(0, end).toLowerCase(), token: value.slice(end).trim() };
}

function isSchemeChar(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x2d || code === 0x5f || code === 0x2e;
}

/**
 * The credentials in a URL's user part (`https://user:password@proxy`), as written and
 * decoded, to redact from errors: `fetch` refuses such a URL with a message that quotes it
 * whole, and a client that sends them as `Basic` may see them echoed.
 *
 * @example redactErrorSecrets(error, [apiKey, ...urlCredentials(baseURL)])
 */
export function urlCredentials(url: string | undefined): string[] {
  if (url === undefined || !URL.canParse(url)) return [];
  const { username, password } = new URL(url);
  if (username === '' && password === '') return [];
  const userinfo = `${username}:${password}`;
  const written = password === '' ? [userinfo, username] : [userinfo, password];
  return [...written, ...written.map(decoded)];
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
