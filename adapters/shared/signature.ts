// Base64 HMAC-SHA256 over raw bytes, compared in constant time.
import { createHmac, timingSafeEqual } from 'node:crypto';

export function hmacBase64Matches(body: Buffer, secret: string, given: string | undefined): boolean {
  if (!given) return false;
  const expected = createHmac('sha256', secret).update(body).digest();
  const actual = Buffer.from(given.trim(), 'base64');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** One value per header, lower-case names. */
export function flatHeaders(headers: Readonly<Record<string, string | string[] | undefined>>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const single = Array.isArray(value) ? value[0] : value;
    if (single !== undefined) flat[name.toLowerCase()] = single;
  }
  return flat;
}
