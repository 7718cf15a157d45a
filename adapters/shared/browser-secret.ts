// A secret a browser keeps in a cookie of the bridge's, to show at a later step that it is the browser that
// began: a store's sign-in's return, a reload of a platform's app frame. The bridge keeps only its hash;
// an address handed to another browser brings no cookie, so it opens nothing there.
import { createHash, randomBytes } from 'node:crypto';
import { parseCookie } from 'cookie';

/** The secret this browser keeps in the cookie `name`, if it has one of the bridge's making. */
export function keptSecret(headers: Headers, name: string): string | undefined {
  const kept = parseCookie(headers.get('cookie') ?? '')[name];
  return kept && /^[\w-]{43}$/.test(kept) ? kept : undefined;
}

/** A new secret for a browser's cookie: 32 random bytes, base64url. */
export const newSecret = () => randomBytes(32).toString('base64url');

/** What the bridge keeps of a secret. */
export const secretHash = (secret: string) => createHash('sha256').update(secret).digest('hex');
