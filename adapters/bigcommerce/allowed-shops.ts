// Which BigCommerce stores are this merchant's. A valid signature proves that BigCommerce sent a request,
// not that the store is the merchant's: any store with the app's install link could earn points on this
// loyalty account (docs/bigcommerce.md, "Only your stores"). The webhook route asks before it stores a
// delivery, so configured stores need no I/O, and a store allowed by record is read once and remembered.
import { z } from 'zod';
import { recordType } from '../../src/core/store/roles/record-types.ts';
import type { RecordRole } from '../../src/core/store/roles/records.ts';

export interface AllowedStoresOptions {
  store: RecordRole;
  /** BIGCOMMERCE_STORE_HASH. */
  ownStore?: string | undefined;
  /** BIGCOMMERCE_STORES. */
  listed?: readonly string[];
  /** BIGCOMMERCE_OPEN_INSTALLS. */
  openInstalls?: boolean;
}

export type StoreAllowance =
  { allowed: true; why: 'own' | 'listed' | 'earlier' | 'open' } | { allowed: false; reason: string };

/** What an allowance record says: why and when, nothing of the store's (so erasing a store's data keeps it). */
export interface RecordedAllowance {
  allowedBy: string;
  allowedAt: string;
}

export const allowanceId = (storeHash: string) => `bigcommerce:${storeHash}`;

const ALLOWANCE = recordType<RecordedAllowance>(
  'allowed-shop',
  z.looseObject({ allowedBy: z.string(), allowedAt: z.string() }),
  'bigcommerce:',
);

export class AllowedStores {
  readonly #o: AllowedStoresOptions;
  readonly #listed: Set<string>;
  readonly #recorded = new Set<string>();

  constructor(options: AllowedStoresOptions) {
    this.#o = options;
    this.#listed = new Set(options.listed ?? []);
  }

  /** Whether any store could be allowed by configuration alone (else only earlier installs earn). */
  get configured(): boolean {
    return Boolean(this.#o.ownStore || this.#listed.size > 0 || this.#o.openInstalls);
  }

  async check(storeHash: string): Promise<StoreAllowance> {
    if (storeHash === this.#o.ownStore) return { allowed: true, why: 'own' };
    if (this.#listed.has(storeHash)) return { allowed: true, why: 'listed' };
    if (this.#o.openInstalls) return { allowed: true, why: 'open' };
    if (this.#recorded.has(storeHash)) return { allowed: true, why: 'earlier' };
    if (await this.#o.store.getRecord(ALLOWANCE, allowanceId(storeHash))) {
      this.#recorded.add(storeHash);
      return { allowed: true, why: 'earlier' };
    }
    return { allowed: false, reason: storeNotAllowedReason(storeHash) };
  }

  /**
   * Whether the store is one the operator chose (own, listed, or installed
   * under an earlier release), open installs aside: such a store earns on the
   * default loyalty account; a store let in only by open installs earns on
   * the account it is linked to, or none.
   */
  async chosenByOperator(storeHash: string): Promise<boolean> {
    if (storeHash === this.#o.ownStore || this.#listed.has(storeHash) || this.#recorded.has(storeHash)) return true;
    return (await this.#o.store.getRecord(ALLOWANCE, allowanceId(storeHash))) !== undefined;
  }

  /** For the webhook route: a reason when the store's deliveries are not this bridge's to keep. */
  readonly admit = async (storeHash: string): Promise<string | undefined> => {
    const allowance = await this.check(storeHash);
    return allowance.allowed ? undefined : allowance.reason;
  };

  /** The stores among these that are allowed, in the same order. */
  async filter(storeHashes: readonly string[]): Promise<string[]> {
    const allowed: string[] = [];
    for (const storeHash of storeHashes) if ((await this.check(storeHash)).allowed) allowed.push(storeHash);
    return allowed;
  }

  /** Records an allowance that is not in the configuration. */
  async allow(storeHash: string, by: string): Promise<void> {
    await this.#o.store.putRecord(ALLOWANCE, allowanceId(storeHash), {
      allowedBy: by,
      allowedAt: new Date().toISOString(),
    });
    this.#recorded.add(storeHash);
  }
}

/** The one explanation, for the page a merchant sees, the webhook's answer and the log. */
export const storeNotAllowedReason = (storeHash: string) =>
  `BigCommerce store ${storeHash} is not one of this bridge's stores: its operator allows a store ` +
  'by listing its hash in BIGCOMMERCE_STORES (an app any store may install sets BIGCOMMERCE_OPEN_INSTALLS=true)';
