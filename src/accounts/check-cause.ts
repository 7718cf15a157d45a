// Why an account's last check failed, as a cause with its own fix: a key or brand the service refused is put
// right at the service; an address the bridge itself refused (this machine, a private network, plain http)
// is changed here; a service that did not answer is waited for, or its address checked.
import type { CredentialsCheck } from './account-records.ts';

export type CheckCause = 'key_refused' | 'address_refused' | 'unreachable';

/** The refusals' own words (net/refusal.ts), for checks saved before addressRefused was kept. */
const ADDRESS_REFUSED_WORDS = /not a public internet address|is plain http|redirects are followed only/;

export function causeOfCheck(check: CredentialsCheck | null | undefined): CheckCause | undefined {
  if (!check || check.status === 'connected') return undefined;
  if (check.status === 'refused') return 'key_refused';
  return check.addressRefused || ADDRESS_REFUSED_WORDS.test(check.detail ?? '') ? 'address_refused' : 'unreachable';
}
