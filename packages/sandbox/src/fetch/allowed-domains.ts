/**
 * Whether `hostname` is on the allow-list. Entries are exact names (`api.example.com`,
 * also IP literals such as `127.0.0.1`) or `*.example.com`, which matches subdomains of
 * example.com but not example.com itself. Case and a trailing dot are ignored.
 */
export function isAllowedDomain(hostname: string, allowedDomains: readonly string[]): boolean {
  const host = normalizeHost(hostname);
  if (host === '') return false;
  for (const entry of allowedDomains) {
    const pattern = normalizeHost(entry);
    if (pattern.startsWith('*.')) {
      const suffix = pattern.slice(1);
      if (host.length > suffix.length && host.endsWith(suffix)) return true;
    } else if (pattern !== '' && host === pattern) {
      return true;
    }
  }
  return false;
}

/** Lower-cases, strips IPv6 brackets and one trailing dot. */
export function normalizeHost(hostname: string): string {
  let host = hostname.trim().toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (host.endsWith('.')) host = host.slice(0, -1);
  return host;
}
