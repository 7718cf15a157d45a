// Customer names as the platforms give them: first and last name fields, or
// only an e-mail address to fall back on.
import { asString } from './json.ts';

/** "First Last" from two fields, either of which may be missing; null when both are. */
export function fullName(first: unknown, last: unknown): string | null {
  return [asString(first), asString(last)].filter(Boolean).join(' ') || null;
}

/** The part of an e-mail address before the @, as a name of last resort. */
export const emailLocalPart = (email: string | null | undefined): string | null =>
  email ? (email.split('@')[0] ?? null) : null;
