import { randomFillSync } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

// Random bytes are drawn a few kilobytes at a time: one call into the CSPRNG per id costs
// more than the id itself on a gateway's per-request path. Each byte is used once.
const POOL_SIZE = 4096;
const pool = Buffer.allocUnsafe(POOL_SIZE);
let used = POOL_SIZE;

/**
 * A random id with a prefix, e.g. `generateId('call_')` → `call_x8Gk2…` (24 random
 * characters), for providers that give no call ids of their own.
 */
export function generateId(prefix = '', length = 24): string {
  let bytes: Uint8Array;
  let start = 0;
  if (length > POOL_SIZE) {
    bytes = randomFillSync(Buffer.allocUnsafe(length));
  } else {
    if (used + length > POOL_SIZE) {
      randomFillSync(pool);
      used = 0;
    }
    bytes = pool;
    start = used;
    used += length;
  }
  let id = prefix;
  for (let i = start; i < start + length; i++) id += ALPHABET.charAt((bytes[i] as number) % ALPHABET.length);
  return id;
}
