// The customers' contacts the storefront read from their platform (who is asking, by their e-mail or phone), kept
// briefly in this process's memory alone: a refusal to give one is kept for less.
import type { CustomerContact } from '../platform-module.ts';
import type { InAccount } from '../privacy.ts';
import { normalEmail, samePhone } from '../store/customer-data.ts';
import type { CustomerMatch } from '../store/ledger-store.ts';
import type { ServiceCustomer } from './customer-points.ts';
import { ExpiringCache } from './expiring-cache.ts';

/** A customer's contact, read from the platform, is kept this long. */
export const CONTACT_KEPT_MS = 5 * 60_000;
/** A platform's refusal to give a contact is kept this long: the merchant may allow it in a moment, but not every
 * page view asks the platform again. */
export const REFUSAL_KEPT_MS = 30_000;
const MAX_ENTRIES = 20_000;

interface KeptContact {
  platform: string;
  shop: string;
  contact: CustomerContact | undefined;
  /** The platform refused to say (the app may not read customers' data there yet). */
  refused: boolean;
}

type Match = Pick<CustomerMatch, 'emails' | 'phones' | 'platform' | 'shop'>;

export class CustomerContacts {
  readonly #now: () => number;
  readonly #contacts: ExpiringCache<KeptContact>;

  constructor(now: () => number) {
    this.#now = now;
    this.#contacts = new ExpiringCache({
      freshMs: CONTACT_KEPT_MS,
      keepMs: CONTACT_KEPT_MS,
      maxEntries: MAX_ENTRIES,
      now,
    });
  }

  /** The customer's contact, as the platform's record has it: kept briefly; a refusal ('not-allowed') is kept for
   * less (REFUSAL_KEPT_MS), and given to every request that joined the read. */
  async contact(
    platform: string,
    shop: string,
    customerId: string,
    read: () => Promise<CustomerContact | 'not-allowed' | undefined>,
  ): Promise<CustomerContact | 'not-allowed' | undefined> {
    const key = `${platform}\u0000${shop}\u0000${customerId}`;
    const before = this.#contacts.fresh(key);
    if (before?.value.refused && this.#now() - before.at >= REFUSAL_KEPT_MS) this.#contacts.drop(key);
    const kept = await this.#contacts.read(key, async () => {
      const contact = await read();
      return contact === 'not-allowed'
        ? { platform, shop, contact: undefined, refused: true }
        : { platform, shop, contact, refused: false };
    });
    return kept.value.refused ? 'not-allowed' : kept.value.contact;
  }

  /** The contacts kept of the customer, for their export; with an account, those read in its shops only. */
  async exportCustomer(
    match: Match,
    account?: InAccount,
  ): Promise<Array<{ platform: string; shop: string; contact: CustomerContact; readAt: string }>> {
    const theirs = this.#contacts
      .entries()
      .filter(([, { value }]) => value.contact && inScope(value, match) && matches(value.contact, match));
    const owned = await Promise.all(
      theirs.map(([, { value }]) => (account ? account.owns(value.platform, value.shop) : Promise.resolve(true))),
    );
    return theirs
      .filter((_entry, at) => owned[at])
      .map(([, { value, at }]) => ({
        platform: value.platform,
        shop: value.shop,
        contact: value.contact!,
        readAt: new Date(at).toISOString(),
      }));
  }

  /** Forgets the customer's contacts. */
  eraseCustomer(match: Match): void {
    this.#contacts.dropWhere((_key, value) =>
      Boolean(value?.contact && inScope(value, match) && matches(value.contact, match)),
    );
  }

  /** Forgets every contact read of the shop (its erasure, its uninstall). */
  eraseShop(platform: string, shop: string): void {
    const prefix = `${platform}\u0000${shop}\u0000`;
    this.#contacts.dropWhere((key) => key.startsWith(prefix));
  }

  /** The platform now lets the app read the shop's customers (its scopes changed, or the merchant turned the
   * storefront on, which asks the platform first): refusals kept for the shop are not kept a moment longer. */
  forgetRefusals(platform: string, shop: string): void {
    const prefix = `${platform}\u0000${shop}\u0000`;
    this.#contacts.dropWhere((key, value) => key.startsWith(prefix) && value?.refused === true);
  }
}

const inScope = (value: { platform: string; shop: string }, match: Pick<CustomerMatch, 'platform' | 'shop'>) =>
  (match.platform === undefined || match.platform === value.platform) &&
  (match.shop === undefined || match.shop === value.shop);

export const contactOf = (customer: ServiceCustomer): CustomerContact =>
  'email' in customer ? { email: customer.email } : { phone: customer.mobile };

export function matches(contact: CustomerContact, match: Pick<CustomerMatch, 'emails' | 'phones'>): boolean {
  const { email, phone } = contact;
  if (email && match.emails.some((wanted) => normalEmail(wanted) === normalEmail(email))) return true;
  return Boolean(phone && match.phones.some((wanted) => samePhone(wanted, phone)));
}
