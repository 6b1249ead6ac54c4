/**
 * Whether `name` matches one of `patterns`: `*` matches everything, `prefix*` matches by
 * prefix (`openai/*`), anything else matches exactly.
 */
export function matchesAny(name: string, patterns: readonly string[]): boolean {
  for (const pattern of patterns) {
    if (pattern === '*' || pattern === name) return true;
    if (pattern.endsWith('*') && name.startsWith(pattern.slice(0, -1))) return true;
  }
  return false;
}
