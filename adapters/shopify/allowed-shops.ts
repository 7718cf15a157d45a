// Which Shopify shops are this merchant's. A valid HMAC proves that Shopify sent a request, not that the
// shop is the merchant's: beyond one store, a stranger could install the app and earn points on this
// loyalty account (docs/shopify.md, "Only your shops"). The webhook route asks before it stores a delivery,
// so configured shops need no I/O and an allowed one is remembered; a shop not allowed is read again each
// time, so that an allowance made on another instance counts at once.
import { z } from 'zod';
import { recordType } from '../../src/core/store/roles/record-types.ts';
import type { RecordRole } from '../../src/core/store/roles/records.ts';

export interface AllowedShopsOptions {
  store: RecordRole;
  /** SHOPIFY_SHOP. */
  ownShop?: string | undefined;
  /** SHOPIFY_SHOPS. */
  listed?: readonly string[];
  /** SHOPIFY_OPEN_INSTALLS. */
  openInstalls?: boolean;
}

export type ShopAllowance =
  { allowed: true; why: 'own' | 'listed' | 'operator' | 'open' } | { allowed: false; reason: string };

/** What the operator's allowance records: who and when, nothing of the shop's (so erasing a shop's data keeps it). */
export interface OperatorAllowance {
  allowedBy: string;
  allowedAt: string;
}

const recordId = (shop: string) => `shopify:${shop}`;
const KIND = recordType<OperatorAllowance>(
  'allowed-shop',
  z.looseObject({ allowedBy: z.string(), allowedAt: z.string() }),
  'shopify:',
);

export class AllowedShops {
  readonly #o: AllowedShopsOptions;
  readonly #configured: Set<string>;
  readonly #byOperator = new Set<string>();

  constructor(options: AllowedShopsOptions) {
    this.#o = options;
    this.#configured = new Set([...(options.listed ?? []), ...(options.ownShop ? [options.ownShop] : [])]);
  }

  get openInstalls(): boolean {
    return Boolean(this.#o.openInstalls);
  }

  async check(shop: string): Promise<ShopAllowance> {
    if (shop === this.#o.ownShop) return { allowed: true, why: 'own' };
    if (this.#configured.has(shop)) return { allowed: true, why: 'listed' };
    if (this.#byOperator.has(shop)) return { allowed: true, why: 'operator' };
    if (await this.#o.store.getRecord(KIND, recordId(shop))) {
      this.#byOperator.add(shop);
      return { allowed: true, why: 'operator' };
    }
    if (this.#o.openInstalls) return { allowed: true, why: 'open' };
    return { allowed: false, reason: notAllowedReason(shop) };
  }

  /** A signed-in operator starts this shop's install from the dashboard. */
  async allowByOperator(shop: string, by: string): Promise<void> {
    await this.#o.store.putRecord(KIND, recordId(shop), {
      allowedBy: by,
      allowedAt: new Date().toISOString(),
    });
    this.#byOperator.add(shop);
  }

  /** The shops allowed by name (the own store, SHOPIFY_SHOPS, the operator's installs): open installs name none. */
  async named(): Promise<string[]> {
    const byOperator = (await this.#o.store.listRecords(KIND))
      .filter(({ id }) => id.startsWith('shopify:'))
      .map(({ id }) => id.slice('shopify:'.length));
    return [...new Set([...this.#configured, ...byOperator])];
  }

  /** The shops among these that are allowed, in the same order. */
  async filter(shops: readonly string[]): Promise<string[]> {
    const allowed: string[] = [];
    for (const shop of shops) if ((await this.check(shop)).allowed) allowed.push(shop);
    return allowed;
  }
}

/** The one explanation, for the page a merchant sees, the webhook's answer and the log. */
export const notAllowedReason = (shop: string) =>
  `${shop} is not one of this bridge's shops: its operator allows a shop by listing it in SHOPIFY_SHOPS or by starting its install from the bridge's dashboard (an App Store app sets SHOPIFY_OPEN_INSTALLS=true)`;
