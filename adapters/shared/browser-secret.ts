// A secret a browser keeps in a cookie of the bridge's, to show at a later step that it is the browser that
// began (a reload of BigCommerce's Load frame). The bridge keeps only its hash; an address handed to another
// browser brings no cookie, so it opens nothing there. Read from a request's Cookie header.
import { createHash, randomBytes } from 'node:crypto';
import { parseCookie } from 'cookie';

/** The secret the Cookie header carries in `cookie`, if it is one of the bridge's making. */
export function keptSecret(cookieHeader: string | undefined, cookie: string): string | undefined {
  const kept = parseCookie(cookieHeader ?? '')[cookie];
  return kept && /^[\w-]{43}$/.test(kept) ? kept : undefined;
}

/** A new secret for a browser's cookie: 32 random bytes, base64url. */
export const newSecret = () => randomBytes(32).toString('base64url');

/** What the bridge keeps of a secret. */
export const secretHash = (secret: string) => createHash('sha256').update(secret).digest('hex');
