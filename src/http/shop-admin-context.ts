// What a shop's admin API (shop-admin-api.ts) is given: the merchant's service (src/services/merchant.ts), whose
// use cases its routes call, and what the storefront's routes beside them read; and who asks, from the door.
import type { Response } from 'express';
import type { Logger } from '../logger.ts';
import type { MerchantAsker, MerchantService } from '../services/merchant.ts';
import { Refused } from '../services/refused.ts';
import { NOT_AN_OBJECT, objectBody } from './admin-accounts.ts';
import { byOf, shopRefOf } from './shop-ref.ts';
import type { shopStorefrontApi } from './shop-storefront-api.ts';

type StorefrontParts = Parameters<typeof shopStorefrontApi>[0];

export interface ShopAdminApiParts {
  /** The merchant's use cases: every route of the shop's own admin API but the storefront's calls one. */
  merchant: MerchantService;
  store: StorefrontParts['store'];
  partsOf: StorefrontParts['partsOf'];
  accounts: StorefrontParts['accounts'];
  /** The shop's storefront was turned on (the storefront reader forgets the contacts refused for the shop). */
  storefrontTurnedOn?: (platform: string, shop: string) => void;
  /** The shop's rewards or its storefront changed: open codes of what is no longer offered go now, not at the next sweep. */
  rewardsChanged?: () => void;
  /** The storefront's widget where the bridge puts it on the store (shop-storefront-api.ts). */
  storefrontWidget?: StorefrontParts['widget'];
  logger: Logger;
}

/** Who asks: the shop its door let in, and who that is in the audit. */
export const askerOf = (res: Response): MerchantAsker => ({ shop: shopRefOf(res), by: byOf(res) });

/** A body that must be a JSON object, read when the service asks for it: 400 otherwise. */
export const objectOf = (body: unknown) => (): Record<string, unknown> => {
  const read = objectBody(body);
  if (!read.ok) throw new Refused(400, [NOT_AN_OBJECT]);
  return read.value;
};

/** What is none of the shop's, answered as if it did not exist. */
export const notFound = (res: Response, error: string): void => void res.status(404).json({ error });
