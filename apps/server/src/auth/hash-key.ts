import { hash } from 'node:crypto';

/** The stored form of an API key: `sha256:<hex>`. Config files keep only this. */
export function hashApiKey(key: string): string {
  // One-shot `hash`: no Hash object per call (requests are authenticated by this digest).
  return `sha256:${hash('sha256', key, 'hex')}`;
}
