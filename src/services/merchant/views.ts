// What a shop's session is shown of the ledger: views built from the records,
// never the records themselves. A field added to a record later stays out
// until someone decides a merchant may read it: lists it in SHOP_ORDER_FIELDS
// (order-record.ts), shown as stored, or writes it here. Any text that may
// name another store (an lp_orderid collision) is told as "an order".
import type { ShopRef } from '../../accounts/account-records.ts';
import {
  SHOP_ORDER_FIELDS,
  type CallRecord,
  type ConversionStatus,
  type OrderRecord,
} from '../../core/order-record.ts';
import type { DeadLetter } from '../../core/store/ledger-store.ts';
import { letterCallWords } from '../../core/order-words.ts';
import { redemptionSummary } from '../../core/redeems.ts';
import { reasonForShop } from './shop-words.ts';

type ShopOrderField = (typeof SHOP_ORDER_FIELDS)[number];
/** The record's fields a shop reads as they are stored; one the record may lack, as null. */
type StoredAsShown = {
  [K in ShopOrderField]-?: undefined extends OrderRecord[K]
    ? Exclude<OrderRecord[K], undefined> | null
    : OrderRecord[K];
};

export interface ShopOrderView extends StoredAsShown {
  orderName: string;
  customer: { name: string | null; email: string | null; mobile: string | null };
  total: { amount: string; currency: string };
  test: boolean;
  source: string | null;
  discountCodes: Array<{ code: string; amount: string }>;
  target: { state: string; reason?: string | undefined } | null;
  upstream: {
    points: OrderRecord['upstream']['points'];
    earnedAt: string | null;
    conversion: OrderRecord['upstream']['conversion'];
    conversionStatus: ConversionStatus | null;
    redemption: OrderRecord['upstream']['redemption'];
    redeemedPoints: number | null;
    /** Points of a cancelled order given back by hand: how many, and when. */
    redemptionReturn: { state: string; points: number; at: string } | null;
  };
  work: {
    attempts: number;
    retryAt: string | null;
    lastError: string | null;
    /** Calls held by a dead letter, by operation. */
    held: string[];
    /** What the order waits for, in a word: its shop's account, or that account's credentials. */
    waitingFor: 'account' | 'credentials' | null;
  };
  calls: Array<
    Pick<CallRecord, 'operation' | 'at' | 'attempts' | 'outcome' | 'message'> & { httpStatus: number | null }
  >;
}

/** One order as its own shop's page reads it. */
export function shopOrderView(record: OrderRecord, shop: ShopRef): ShopOrderView {
  const { snapshot, upstream, work } = record;
  const words = (text: string | null | undefined) => (text ? reasonForShop(text, shop) : null);
  const stored = Object.fromEntries(SHOP_ORDER_FIELDS.map((field) => [field, record[field] ?? null])) as StoredAsShown;
  return {
    ...stored,
    orderName: snapshot.orderName,
    customer: { name: snapshot.customer.name, email: snapshot.customer.email, mobile: snapshot.customer.mobile },
    total: { amount: snapshot.total.amount, currency: snapshot.total.currency },
    test: snapshot.test,
    source: snapshot.source,
    // A reward's code as the customer was given it, where the store keeps its codes in another case (lower case,
    // as some platforms do): the same code, to the merchant, as on the customer's screen.
    discountCodes: snapshot.discountCodes.map(({ code, amount }) => ({
      code: upstream.redeemCodes?.find((each) => each.code.toUpperCase() === code.toUpperCase())?.code ?? code,
      amount,
    })),
    target: record.target ? { state: record.target.state, reason: record.target.reason } : null,
    upstream: {
      points: upstream.points,
      earnedAt: upstream.earnedAt,
      conversion: upstream.conversion,
      conversionStatus: upstream.conversionStatus ?? null,
      // Every redeem of the order at once: its own and its reward codes'.
      redemption: redemptionSummary(upstream).redemption,
      redeemedPoints: redemptionSummary(upstream).redeemedPoints ?? null,
      redemptionReturn: upstream.redemptionReturn
        ? {
            state: upstream.redemptionReturn.state,
            points: upstream.redemptionReturn.points,
            at: upstream.redemptionReturn.at,
          }
        : null,
    },
    work: {
      attempts: work.attempts,
      retryAt: work.retryAt,
      lastError: words(work.lastError),
      held: Object.keys(work.held),
      waitingFor: !work.waitingFor ? null : work.waitingFor === 'account' ? 'account' : 'credentials',
    },
    calls: record.calls.map((call) => ({
      operation: call.operation,
      at: call.at,
      attempts: call.attempts,
      outcome: call.outcome,
      httpStatus: call.httpStatus ?? null,
      message: words(call.message) ?? '',
    })),
  };
}

export interface ShopLetterView {
  id: string;
  /** The shop's own, whom the letter is of. */
  platform: string;
  shop: string;
  createdAt: string;
  kind: DeadLetter['kind'];
  reason: string;
  topic: string | null;
  operation: string | null;
  /** The call in words (order-words.ts letterCallWords). */
  callWords: string | null;
  httpStatus: number | null;
  orderKey: string | null;
  /** The order's name as the store shows it (#1001), when the letter is about an order. */
  orderName: string | null;
  retries: number;
  /** A manual adjustment's letter: retried by the operator only. */
  byHand: boolean;
}

/** A dead letter of the shop's (isLetterOfShop) as its page reads it: no kept body, key or other store's names. */
export function shopLetterView(letter: DeadLetter, shop: ShopRef, orderName?: string): ShopLetterView {
  return {
    id: letter.id,
    platform: shop.platform,
    shop: shop.shop,
    createdAt: letter.createdAt,
    kind: letter.kind,
    reason: reasonForShop(letter.reason, shop),
    topic: letter.topic ?? null,
    operation: letter.operation ?? null,
    callWords: letterCallWords(letter),
    httpStatus: letter.httpStatus ?? null,
    orderKey: letter.orderKey ?? null,
    orderName: orderName ?? null,
    retries: letter.retries,
    byHand: letter.adjustmentId !== undefined,
  };
}
