import { createHash, randomBytes } from 'node:crypto';

/** A PKCE verifier and its S256 challenge. */
export interface PkcePair {
  verifier: string;
  challenge: string;
}

/** A PKCE pair as Codex makes it: 64 random bytes, base64url without padding, S256. */
export function createPkcePair(): PkcePair {
  const verifier = randomBytes(64).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  return { verifier, challenge };
}

/** An OAuth `state`: 32 random bytes, base64url. */
export function createState(): string {
  return randomBytes(32).toString('base64url');
}
