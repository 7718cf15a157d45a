// Comparing a secret someone sent with the one we hold, in constant time.
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** True when both are the same text. Hashing first makes the comparison constant-time whatever the lengths. */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}
