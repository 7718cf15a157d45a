// What a shop's page reads of its own orders (and who is signed in), what needs its attention, and its dead
// letters, which it may send again. Each handler is a route of shop-admin-api.ts; another shop's is a 404.
import type { RequestHandler, Response } from 'express';
import { sameShop } from '../accounts/reach.ts';
import type { DeadLetter } from '../core/store/ledger-store.ts';
import { orderLabel, orderLine } from '../core/order-words.ts';
import { refuse } from './admin-accounts.ts';
import { orderQuery, read } from './admin-api.ts';
import { merchantReader, pointsOf, pointsSourceOf } from '../core/order-points-view.ts';
import { withDetailWords, withWords, wordsOfRecord } from './order-words-view.ts';
import type { ShopAdminContext } from './shop-admin-context.ts';
import { isLetterOfShop, shopAttention } from './shop-attention.ts';
import { byOf, shopRefOf } from './shop-ref.ts';
import { shopLetterView, shopOrderView } from './shop-views.ts';

/** A shop's query may narrow its own orders, never name a platform or shop. */
const shopOrderQuery = orderQuery.omit({ platform: true, shop: true });

function isOwnLetter(res: Response, letter: DeadLetter): boolean {
  return isLetterOfShop(letter, shopRefOf(res));
}

// storeName: what the page calls the shop, its own alone (the platform's module reads it; the shop's name otherwise).
export const readSession =
  ({ partsOf }: ShopAdminContext): RequestHandler =>
  async (_req, res) => {
    const ref = shopRefOf(res);
    const storeName = (await partsOf(ref.platform)?.shops?.storeName(ref.shop)) ?? ref.shop;
    res.json({ caller: 'shop', ...ref, storeName });
  };

/** GET /orders: a page of the shop's orders, with their words and points. */
export const listOrders =
  ({ store, accounts, wordsFor }: ShopAdminContext): RequestHandler =>
  async (req, res) => {
    const query = read(shopOrderQuery, req.query);
    const { total, orders } = await store.listOrders({ ...query, ...shopRefOf(res) });
    const parts = await wordsFor(res);
    const points = await pointsOf(orders, accounts, merchantReader(parts.mayChangeProgram));
    const worded = await withWords(parts, orders);
    // The fields points are read from stay here: which account an order went to is the operator's to read.
    const listed = worded.map(({ earnActivityId: _a, account: _b, redeemedPoints: _c, ...order }, i) => ({
      ...order,
      points: points[i],
    }));
    res.json({ total, page: query.page, limit: query.limit, orders: listed });
  };

/** GET /orders/:key: one of the shop's orders in full. */
export const readOrder =
  ({ store, accounts, wordsFor }: ShopAdminContext): RequestHandler =>
  async (req, res) => {
    const order = await store.getOrder(String(req.params.key));
    // Another shop's order is answered as if it did not exist.
    if (!order || !sameShop(order, shopRefOf(res)))
      return void res.status(404).json({ error: `no order ${req.params.key}` });
    const parts = await wordsFor(res);
    const [points] = await pointsOf([pointsSourceOf(order)], accounts, merchantReader(parts.mayChangeProgram));
    res.json({
      order: {
        ...withDetailWords(shopOrderView(order, shopRefOf(res))),
        points,
        words: await wordsOfRecord(parts, order),
        // The table's one line, and the state alone that heads the reason on the order's detail.
        line: orderLine(order.target ?? { state: 'new' }, Object.keys(order.work.held)),
        label: orderLabel(order.target ?? { state: 'new' }, Object.keys(order.work.held)),
      },
    });
  };

// Its own platform's installs alone, and only its own shop's access in them.
export const listShops =
  ({ partsOf }: ShopAdminContext): RequestHandler =>
  async (req, res) => {
    const { platform, shop } = shopRefOf(res);
    const installs = req.params.platform === platform ? partsOf(platform)?.installs : undefined;
    if (!installs) return void res.status(404).json({ error: 'not found' });
    res.json({ canInstall: false, shops: [await installs.describe(shop)] });
  };

/** GET /attention: what Home tells the merchant to look at. */
export const readAttention =
  ({ store, accounts, partsOf, spentSince, spentLongMs, reachOf }: ShopAdminContext): RequestHandler =>
  async (_req, res) => {
    const { allowed } = await reachOf(res);
    res.json({
      attention: await shopAttention(
        { store, accounts, partsOf, spentSince, spentLongMs },
        shopRefOf(res),
        allowed.change,
      ),
    });
  };

// What could not go on, of this shop: the merchant sees why, fixes the cause (a scope, the account's credentials),
// and sends it again. Discarding one stays the operator's: an order's points could go with it.
export const listDeadLetters =
  ({ store }: ShopAdminContext): RequestHandler =>
  async (_req, res) => {
    const own = (await store.listDeadLetters()).filter((letter) => isOwnLetter(res, letter)).reverse();
    // With the order's name as the store shows it (#1001), which the merchant knows; the id is in the admin's URLs only.
    const named = await Promise.all(
      own.map(async (letter) => {
        const orderName = letter.orderKey ? (await store.getOrder(letter.orderKey))?.snapshot.orderName : undefined;
        return shopLetterView(letter, shopRefOf(res), orderName);
      }),
    );
    res.json({ deadLetters: named });
  };

/** POST /dead-letters/:id/retry: one of the shop's dead letters sent again. */
export const retryLetter =
  ({ store, retryDeadLetter, logger }: ShopAdminContext): RequestHandler =>
  async (req, res) => {
    const letter = await store.getDeadLetter(String(req.params.id));
    if (!letter || !isOwnLetter(res, letter))
      return void res.status(404).json({ error: `no dead letter ${req.params.id}` });
    // A redeem in doubt may have been applied: whoever retries it first checks the customer's history, which is
    // the operator's to read. A manual adjustment is the operator's too.
    if (letter.operation === 'redeem' || letter.adjustmentId)
      return refuse(res, 409, [
        "a redeem or a manual adjustment is retried by the bridge's operator, who checks the customer's history first",
      ]);
    const result = await retryDeadLetter(letter);
    logger.info(
      { deadLetter: letter.id, kind: letter.kind, retried: result.retried, by: byOf(res) },
      'a shop retried a dead letter',
    );
    res.status(result.retried ? 200 : 409).json(result);
  };
