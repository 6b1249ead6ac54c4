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
