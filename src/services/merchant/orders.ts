// What a shop's page reads of its own orders (and who is signed in), what needs its attention, and its dead
// letters, which it may send again. Another shop's order, shop or letter is null: as if it did not exist.
import { sameShop } from '../../accounts/reach.ts';
import { orderLabel, orderLine } from '../../core/order-words.ts';
import { merchantReader, pointsOf, pointsSourceOf } from '../../core/order-points-view.ts';
import { withDetailWords, withWords, wordsOfRecord } from '../../core/order-words-view.ts';
import type { OrderQuery } from '../../core/store/ledger-store.ts';
import { Refused } from '../refused.ts';
import { shopAttention } from './attention.ts';
import type { MerchantAsker, MerchantContext } from './parts.ts';
import { isLetterOfShop } from './shop-words.ts';
import { shopLetterView, shopOrderView } from './views.ts';

/** A page of the shop's own orders: a shop's query never names a platform or shop. */
export type ShopOrderQuery = Omit<OrderQuery, 'platform' | 'shop'> & { page: number; limit: number };

// storeName: what the page calls the shop, its own alone (the platform's module reads it; the shop's name otherwise).
export async function readSession({ partsOf }: MerchantContext, { shop }: MerchantAsker) {
  const storeName = (await partsOf(shop.platform)?.shops?.storeName(shop.shop)) ?? shop.shop;
  return { caller: 'shop' as const, ...shop, storeName };
}

/** A page of the shop's orders, with their words and points. */
export async function listOrders(ctx: MerchantContext, { shop }: MerchantAsker, query: ShopOrderQuery) {
  const { total, orders } = await ctx.store.listOrders({ ...query, ...shop });
  const parts = await ctx.wordsFor(shop);
  const points = await pointsOf(orders, ctx.accounts, merchantReader(parts.mayChangeProgram));
  const worded = await withWords(parts, orders);
  // The fields points are read from stay here: which account an order went to is the operator's to read.
  const listed = worded.map(({ earnActivityId: _a, account: _b, redeemedPoints: _c, ...order }, i) => ({
    ...order,
    points: points[i],
  }));
  return { total, page: query.page, limit: query.limit, orders: listed };
}

/** One of the shop's orders in full; null where it is none of the shop's. */
export async function readOrder(ctx: MerchantContext, { shop }: MerchantAsker, key: string) {
  const order = await ctx.store.getOrder(key);
  if (!order || !sameShop(order, shop)) return null;
  const parts = await ctx.wordsFor(shop);
  const [points] = await pointsOf([pointsSourceOf(order)], ctx.accounts, merchantReader(parts.mayChangeProgram));
  return {
    order: {
      ...withDetailWords(shopOrderView(order, shop)),
      points,
      words: await wordsOfRecord(parts, order),
      // The table's one line, and the state alone that heads the reason on the order's detail.
      line: orderLine(order.target ?? { state: 'new' }, Object.keys(order.work.held)),
      label: orderLabel(order.target ?? { state: 'new' }, Object.keys(order.work.held)),
    },
  };
}

// Its own platform's installs alone, and only its own shop's access in them; null for any other platform.
export async function listShops({ partsOf }: MerchantContext, { shop }: MerchantAsker, platform: string) {
  const installs = platform === shop.platform ? partsOf(platform)?.installs : undefined;
  if (!installs) return null;
  return { canInstall: false, shops: [await installs.describe(shop.shop)] };
}

/** What Home tells the merchant to look at. */
export async function readAttention(ctx: MerchantContext, { shop }: MerchantAsker) {
  const { store, accounts, partsOf, spentSince, spentLongMs } = ctx;
  const { allowed } = await ctx.reachOf(shop);
  const parts = {
    store,
    accounts,
    partsOf,
    ...(spentSince ? { spentSince } : {}),
    ...(spentLongMs !== null ? { spentLongMs } : {}),
  };
  return { attention: await shopAttention(parts, shop, allowed.change) };
}

// What could not go on, of this shop: the merchant sees why, fixes the cause (a scope, the account's credentials),
// and sends it again. Discarding one stays the operator's: an order's points could go with it.
export async function listDeadLetters({ store }: MerchantContext, { shop }: MerchantAsker) {
  const own = (await store.listDeadLetters()).filter((letter) => isLetterOfShop(letter, shop)).reverse();
  // With the order's name as the store shows it (#1001), which the merchant knows; the id is in the admin's URLs only.
  const named = await Promise.all(
    own.map(async (letter) => {
      const orderName = letter.orderKey ? (await store.getOrder(letter.orderKey))?.snapshot.orderName : undefined;
      return shopLetterView(letter, shop, orderName);
    }),
  );
  return { deadLetters: named };
}

/** One of the shop's dead letters sent again; null where it is none of the shop's. */
export async function retryLetter(
  { store, retryDeadLetter, logger }: MerchantContext,
  asker: MerchantAsker,
  id: string,
) {
  const letter = await store.getDeadLetter(id);
  if (!letter || !isLetterOfShop(letter, asker.shop)) return null;
  // A redeem in doubt may have been applied: whoever retries it first checks the customer's history, which is
  // the operator's to read. A manual adjustment is the operator's too.
  if (letter.operation === 'redeem' || letter.adjustmentId)
    throw new Refused(409, [
      "a redeem or a manual adjustment is retried by the bridge's operator, who checks the customer's history first",
    ]);
  const result = await retryDeadLetter(letter);
  logger.info(
    { deadLetter: letter.id, kind: letter.kind, retried: result.retried, by: asker.by },
    'a shop retried a dead letter',
  );
  return result;
}
