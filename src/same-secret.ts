// Comparing a secret someone sent with the one we hold, in constant time.
import type { Buffer } from 'node:buffer';
import { createHash, timingSafeEqual } from 'node:crypto';

/** What two secrets are compared by: hashing first makes the comparison constant-time whatever the lengths. */
export const secretDigest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** True when both are the same text. */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(secretDigest(given), secretDigest(expected));
}
