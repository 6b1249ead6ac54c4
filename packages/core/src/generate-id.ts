import { randomBytes } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/**
 * A random id with a prefix, e.g. `generateId('call_')` → `call_x8Gk2…` (24 random
 * characters), for providers that give no call ids of their own.
 */
export function generateId(prefix = '', length = 24): string {
  const bytes = randomBytes(length);
  let id = prefix;
  for (const byte of bytes) id += ALPHABET.charAt(byte % ALPHABET.length);
  return id;
}
