import { createHash, randomBytes } from 'node:crypto';

/** A new random bearer token (256 bits, base64url). Only its SHA-256 is stored. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}
