// A shop's customers' data requests (a platform's compliance webhook): listed, exported and answered from its
// page, its own alone (another shop's is null: as if it did not exist).
import type { ShopRef } from '../../accounts/account-records.ts';
import { sameShop } from '../../accounts/reach.ts';
import type { DataRequestRecord, Privacy } from '../../core/privacy.ts';
import type { MerchantAsker, MerchantContext } from './parts.ts';
import { isLetterOfShop } from './shop-words.ts';
import { shopLetterView, shopOrderView } from './views.ts';

const isOwn = (shop: ShopRef, request: Pick<DataRequestRecord, 'platform' | 'shop'>) =>
  sameShop({ platform: request.platform, shop: request.shop }, shop);

/** The shop's own data request by id; another shop's, or none, is undefined alike. */
async function ownRequest(privacy: Privacy, shop: ShopRef, id: string): Promise<DataRequestRecord | undefined> {
  const request = (await privacy.dataRequests()).find((each) => each.id === id);
  return request && isOwn(shop, request) ? request : undefined;
}

// Customers' data requests (a platform's compliance webhook), which the merchant must answer within 30 days.
export async function listDataRequests({ privacy }: MerchantContext, { shop }: MerchantAsker) {
  return { dataRequests: (await privacy.dataRequests()).filter((request) => isOwn(shop, request)) };
}

/** What the bridge keeps of the request's customer, in this shop, and the file name it is saved as; null: none. */
export async function exportDataRequest({ privacy, logger }: MerchantContext, { shop, by }: MerchantAsker, id: string) {
  const request = await ownRequest(privacy, shop, id);
  if (!request) return null;
  const match = {
    platform: request.platform,
    shop: request.shop,
    emails: request.customer.email ? [request.customer.email] : [],
    phones: request.customer.phone ? [request.customer.phone] : [],
    orderIds: request.orderIds,
  };
  // Manual adjustments the operator made are the loyalty account's, for a customer by e-mail or phone in any shop:
  // not this shop's to read (a data request names whatever contact the merchant gave their customer). Those the
  // shop's own page made are its own.
  const { adjustments: all, orders, deadLetters, inbox, dataRequests } = await privacy.exportCustomer(match);
  // Views, as every answer to a shop: an order's errors may name another store's order (an lp_orderid collision).
  const data = {
    orders: orders.filter((order) => sameShop(order, shop)).map((order) => shopOrderView(order, shop)),
    deadLetters: deadLetters
      .filter((letter) => isLetterOfShop(letter, shop))
      .map((letter) => ({ ...shopLetterView(letter, shop), delivery: letter.delivery ?? null })),
    inbox,
    adjustments: all.filter((each) => each.platform === request.platform && each.shop === request.shop),
    dataRequests,
  };
  await privacy.noteExport(match, 'shop');
  logger.info({ shop: request.shop, request: request.id, by }, 'a shop exported a customer’s data');
  return {
    fileName: `data-request-${request.requestId ?? request.id}.json`,
    data: {
      exportedAt: new Date().toISOString(),
      request: { id: request.id, requestId: request.requestId ?? null, platform: request.platform, shop: request.shop },
      ...data,
    },
  };
}

/** The merchant answered the request; null: no such request of the shop's. */
export async function closeDataRequest({ privacy, logger }: MerchantContext, { shop, by }: MerchantAsker, id: string) {
  const request = await ownRequest(privacy, shop, id);
  if (!request || !(await privacy.closeDataRequest(request.id))) return null;
  logger.info({ shop: request.shop, request: request.id, by }, 'a shop answered a customer’s data request');
  return { closed: request.id };
}
