// The merchant's actions: what a shop's own page may do with the bridge, as use cases that know no HTTP. Each
// takes who asks (the shop a door let in, and who that is in the audit) and plain input, judges the shop's reach
// anew (src/accounts/reach.ts: its own account only), applies the caps on a shop's page (caps.ts), and answers
// plain data; it refuses with Refused or BadInput (refused.ts). Null is "none of this shop's": the routes answer
// it 404 as if it did not exist. The routes over it: src/http/shop-admin-api.ts.
import type { RetryOutcome } from '../core/engine.ts';
import * as account from './merchant/account.ts';
import { shopCaps } from './merchant/caps.ts';
import * as orders from './merchant/orders.ts';
import { merchantContext, type MerchantAsker, type MerchantParts, type ReadLater } from './merchant/parts.ts';
import * as points from './merchant/points.ts';
import * as privacy from './merchant/privacy.ts';
import * as resync from './merchant/resync.ts';
import { testOrders } from './merchant/test-orders.ts';

export type { MerchantAsker, MerchantParts, ReadLater } from './merchant/parts.ts';
export type { ShopOrderQuery } from './merchant/orders.ts';
export type { ByHandOutcome, CustomerPointsQuery, EarnByHand, RedeemByHand } from './merchant/points.ts';
export type { ShopResyncWindow } from './merchant/resync.ts';
export { isLetterOfShop, reasonForShop } from './merchant/shop-words.ts';

type Answer<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;
type Body = Record<string, unknown>;

/**
 * The merchant's use cases. Input a refusal must come before (the shop's reach: a shop refused is told 403,
 * whatever it sent) is handed as ReadLater: read, and its own refusals thrown, only once the reach allows.
 */
export interface MerchantService {
  /** Who is signed in, and what the page calls the shop. */
  session(asker: MerchantAsker): Promise<Answer<typeof orders.readSession>>;
  orders(asker: MerchantAsker, query: orders.ShopOrderQuery): Promise<Answer<typeof orders.listOrders>>;
  order(asker: MerchantAsker, key: string): Promise<Answer<typeof orders.readOrder>>;
  /** The shop's own access on its platform's installs; null for another platform. */
  shops(asker: MerchantAsker, platform: string): Promise<Answer<typeof orders.listShops>>;
  account(asker: MerchantAsker): Promise<Answer<typeof account.readAccount>>;
  makeAccount(asker: MerchantAsker, body: ReadLater<Body>): Promise<Answer<typeof account.makeAccount>>;
  changeAccount(asker: MerchantAsker, body: ReadLater<Body>): Promise<Answer<typeof account.changeAccount>>;
  settings(asker: MerchantAsker): Promise<Answer<typeof account.readSettings>>;
  changeSettings(asker: MerchantAsker, body: ReadLater<Body>): Promise<Answer<typeof account.changeSettings>>;
  usage(asker: MerchantAsker): Promise<Answer<typeof account.readUsage>>;
  customerPoints(
    asker: MerchantAsker,
    query: ReadLater<points.CustomerPointsQuery>,
  ): Promise<Answer<typeof points.customerPoints>>;
  earnByHand(asker: MerchantAsker, body: ReadLater<points.EarnByHand>): Promise<points.ByHandOutcome>;
  redeemByHand(asker: MerchantAsker, body: ReadLater<points.RedeemByHand>): Promise<points.ByHandOutcome>;
  dataRequests(asker: MerchantAsker): Promise<Answer<typeof privacy.listDataRequests>>;
  exportDataRequest(asker: MerchantAsker, id: string): Promise<Answer<typeof privacy.exportDataRequest>>;
  closeDataRequest(asker: MerchantAsker, id: string): Promise<Answer<typeof privacy.closeDataRequest>>;
  startResync(asker: MerchantAsker, window: resync.ShopResyncWindow): Promise<Answer<typeof resync.startResync>>;
  resyncs(asker: MerchantAsker): Promise<Answer<typeof resync.listResyncs>>;
  resync(asker: MerchantAsker, id: string): Promise<Answer<typeof resync.readResync>>;
  sendTestOrder(asker: MerchantAsker): Promise<Answer<ReturnType<typeof testOrders>['send']>>;
  cancelTestOrder(asker: MerchantAsker, id: string): Promise<Answer<ReturnType<typeof testOrders>['cancel']>>;
  /** What Home tells the merchant to look at. */
  attention(asker: MerchantAsker): Promise<Answer<typeof orders.readAttention>>;
  deadLetters(asker: MerchantAsker): Promise<Answer<typeof orders.listDeadLetters>>;
  /** One of the shop's dead letters sent again: retried or not (a 409 to the page); null: none of the shop's. */
  retryLetter(asker: MerchantAsker, id: string): Promise<RetryOutcome | null>;
}

export function merchantService(parts: MerchantParts): MerchantService {
  const ctx = merchantContext(parts, shopCaps(parts.store));
  const tests = testOrders(ctx);
  return {
    session: (asker) => orders.readSession(ctx, asker),
    orders: (asker, query) => orders.listOrders(ctx, asker, query),
    order: (asker, key) => orders.readOrder(ctx, asker, key),
    shops: (asker, platform) => orders.listShops(ctx, asker, platform),
    account: (asker) => account.readAccount(ctx, asker),
    makeAccount: (asker, body) => account.makeAccount(ctx, asker, body),
    changeAccount: (asker, body) => account.changeAccount(ctx, asker, body),
    settings: (asker) => account.readSettings(ctx, asker),
    changeSettings: (asker, body) => account.changeSettings(ctx, asker, body),
    usage: (asker) => account.readUsage(ctx, asker),
    customerPoints: (asker, query) => points.customerPoints(ctx, asker, query),
    earnByHand: (asker, body) => points.earnByHand(ctx, asker, body),
    redeemByHand: (asker, body) => points.redeemByHand(ctx, asker, body),
    dataRequests: (asker) => privacy.listDataRequests(ctx, asker),
    exportDataRequest: (asker, id) => privacy.exportDataRequest(ctx, asker, id),
    closeDataRequest: (asker, id) => privacy.closeDataRequest(ctx, asker, id),
    startResync: (asker, window) => resync.startResync(ctx, asker, window),
    resyncs: (asker) => resync.listResyncs(ctx, asker),
    resync: (asker, id) => resync.readResync(ctx, asker, id),
    sendTestOrder: (asker) => tests.send(asker),
    cancelTestOrder: (asker, id) => tests.cancel(asker, id),
    attention: (asker) => orders.readAttention(ctx, asker),
    deadLetters: (asker) => orders.listDeadLetters(ctx, asker),
    retryLetter: (asker, id) => orders.retryLetter(ctx, asker, id),
  };
}
