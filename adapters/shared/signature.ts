// Base64 HMAC-SHA256 over raw bytes, compared in constant time.
import { createHmac, timingSafeEqual } from 'node:crypto';

export function hmacBase64Matches(body: Buffer, secret: string, given: string | undefined): boolean {
  if (!given) return false;
  // Compared as text: decoding first would let anything after the padding
  // through ("<valid>, junk" decodes to the valid bytes).
  const expected = Buffer.from(createHmac('sha256', secret).update(body).digest('base64'));
  const actual = Buffer.from(given.trim());
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
