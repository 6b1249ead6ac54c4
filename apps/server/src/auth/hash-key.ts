import { createHash } from 'node:crypto';

/** The stored form of an API key: `sha256:<hex>`. Config files keep only this. */
export function hashApiKey(key: string): string {
  return `sha256:${createHash('sha256').update(key, 'utf8').digest('hex')}`;
}
