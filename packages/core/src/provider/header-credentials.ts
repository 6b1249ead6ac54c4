/** Header names that carry credentials (`Authorization`, `X-Api-Key`, Azure's `api-key`, cookies). */
const CREDENTIAL_HEADER = /auth|key|token|secret|cookie|session|pass/iu;

/**
 * The credentials among request headers, to redact from errors: each value as sent, without
 * its scheme (`Bearer`, `Basic`), and for `Basic` also what the base64 holds (`user:password`
 * and the password), which a server that decoded it may echo.
 *
 * @example redactErrorSecrets(error, [apiKey, ...headerCredentials(options.headers)])
 */
export function headerCredentials(headers: Record<string, string> | undefined): string[] {
  const credentials: string[] = [];
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (!CREDENTIAL_HEADER.test(name)) continue;
    credentials.push(value);
    const space = value.indexOf(' ');
    const scheme = space < 0 ? '' : value.slice(0, space).toLowerCase();
    const token = space < 0 ? value : value.slice(space + 1).trim();
    if (scheme === 'bearer' || scheme === 'basic' || scheme === 'token') credentials.push(token);
    if (scheme === 'basic') {
      const decoded = Buffer.from(token, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon >= 0) credentials.push(decoded, decoded.slice(colon + 1));
    }
  }
  return credentials;
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
