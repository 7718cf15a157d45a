// What the service's answer to a harmless read says of an account's credentials (the probe's verdict, kept
// on the account and shown to whoever set them).
import type { CredentialsCheck } from './account-records.ts';
import { documentedFailure, LoyaltyError } from '../loyalty/errors.ts';

/** What the service's answer to a harmless read says of the credentials. */
export function credentialsCheckOf(error: unknown, at: string): CredentialsCheck {
  if (error === undefined) return { status: 'connected', at };
  if (error instanceof LoyaltyError) {
    if (error.kind === 'invalid_auth') return { status: 'refused', at, detail: error.summary };
    // Let in, and told no in the service's own words (no such customer): the credentials work. Any other
    // refusal (a 403 or 404 from another address, a bare 400, a 402 for an unknown path) says nothing of them.
    if (
      (error.kind === 'invalid_source' || error.kind === 'not_found') &&
      documentedFailure(error.serviceMessage, error.detail) === error.kind
    )
      return { status: 'connected', at };
    if (error.kind === 'refused_address')
      return { status: 'unreachable', at, detail: error.summary, addressRefused: true };
    return { status: 'unreachable', at, detail: error.summary };
  }
  return { status: 'unreachable', at, detail: (error as Error).message };
}
