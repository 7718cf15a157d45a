// Where the storefront's calls to the service take their place in an account's budget. Live orders come first:
// the storefront has only its share of the limit in a window (STOREFRONT_SHARE). Within it, redemptions' reads
// have REDEEM_PART and page views the rest. A page view waits for live orders; a customer's redemption does not
// (they wait for their code), and one customer reads only CUSTOMER_REDEEM_READS in a window, so no customer, however many tokens or
// clicks they have, spends the account's calls or the other customers' views; and one shop only SHOP_PART of the
// share, so the other shops on the account keep some (issue 64).
import { setTimeout as sleep } from 'node:timers/promises';
import { limiterOf } from '../../loyalty/client.ts';
import type { Place as RatePlace } from '../../loyalty/places.ts';
import type { AccountRuntime } from '../accounts.ts';

/**
 * Of the storefront's share in a window, the part kept for redemptions' reads (a customer waiting for their code);
 * page views have the rest, and answer from what is known beyond it (storefront-reader.ts).
 */
export const REDEEM_PART = 0.75;
/** A customer's redemptions read their balance at most this many times in the limiter's window, per instance. */
export const CUSTOMER_REDEEM_READS = 6;
/**
 * Of the storefront's share, the part one shop's customers may take in a window while another shop's customers
 * use it too (counted per instance): alone, a shop may use the whole share.
 */
export const SHOP_PART = 0.75;

/**
 * How long a redemption's read, or the bridge's own, waits for a place in the budget's next slices before the
 * customer is asked to try again. A page view does not wait: it answers what is known.
 */
export const PLACE_WAITS_MS = 3_000;

/**
 * No place now; `waitMs`: how long until there may be one, if known. A wait, not a time: the limiter keeps the
 * machine's clock and the storefront may be given another (a test's), so a time from one read on the other's
 * clock would wait for nothing, or for ever.
 */
export class NoRoom extends Error {
  readonly waitMs: number | undefined;
  constructor(waitMs: number | undefined) {
    super('the storefront has no room in the budget now');
    this.waitMs = waitMs === undefined ? undefined : Math.max(0, waitMs);
  }
}

/** NoRoom for a time the account's limiter gave (it keeps the machine's clock). */
export const noRoomUntil = (until: number | undefined) =>
  new NoRoom(until === undefined ? undefined : until - Date.now());

/** A place in the account's budget for one call; none where the account's client has no budget. */
export type Place = RatePlace | undefined;

export interface StorefrontPlacesParts {
  /** Whether the budget's live orders come first now (the worker's liveFirst). */
  liveFirst: (budgetId: string) => boolean;
  /** STOREFRONT_SHARE: the part of an account's limit the storefront may use in a window. */
  share: number;
  now: () => number;
}

const WINDOW_MS = 60_000;

interface Call {
  at: number;
  redeem: boolean;
  /** The platform and shop whose customer asked. */
  shop: string;
}

export class StorefrontPlaces {
  readonly #o: StorefrontPlacesParts;
  /** Per budget, the storefront's calls in the last window: when, whether a redemption's, and for which shop. */
  readonly #calls = new Map<string, Call[]>();
  /** Per account and customer, when their redemptions' reads in the last window were made. */
  readonly #customers = new Map<string, number[]>();

  constructor(parts: StorefrontPlacesParts) {
    this.#o = parts;
  }

  /** A place for a page view's read, or NoRoom: after live orders, within the share. */
  async forView(account: AccountRuntime, shop: string): Promise<Place> {
    if (this.#o.liveFirst(account.budgetId ?? account.id)) throw new NoRoom(undefined);
    return this.#withinShare(account, { redeem: false, shop });
  }

  /**
   * A place for a customer's redemption's read (`customer`: their key on the account), or NoRoom: beside live
   * orders, within REDEEM_PART of the share, and within the customer's own CUSTOMER_REDEEM_READS.
   */
  async forRedeem(account: AccountRuntime, customer: string, shop: string): Promise<Place> {
    const key = `${account.id}\u0000${customer}`;
    const now = this.#o.now();
    const windowMs = limiterOf(account.client)?.stats().windowMs ?? WINDOW_MS;
    const recent = (this.#customers.get(key) ?? []).filter((at) => now - at < windowMs);
    if (recent.length >= CUSTOMER_REDEEM_READS) throw new NoRoom(recent[0]! + windowMs - now);
    // Counted before the place is asked, and kept if it is refused: presses at once, or refused ones (which a
    // shared limiter counts too), still stop at the customer's own limit.
    this.#customers.set(key, [...recent, now]);
    this.#forgetOld(now, windowMs);
    return this.#withinShare(account, { redeem: true, shop });
  }

  /** A place for the bridge's own read of a customer's balance (a cover check): as an order's call takes one. */
  async forBridge(account: AccountRuntime): Promise<Place> {
    return this.#budgetWithin(account, undefined, PLACE_WAITS_MS);
  }

  /**
   * A limiter every instance shares counts the share across instances (takeShare: a redemption asks for its part
   * of it); otherwise this process counts its own calls.
   */
  async #withinShare(account: AccountRuntime, asked: { redeem: boolean; shop: string }): Promise<Place> {
    const { share } = this.#o;
    const limiter = limiterOf(account.client);
    // Both keep to the storefront's part of a slice, so live orders keep the rest of it; a redemption's read waits
    // a moment for the next slice (the customer waits for their code), counted once however long it waits.
    const slice = (): Promise<Place> =>
      asked.redeem ? this.#budgetWithin(account, share, PLACE_WAITS_MS) : this.#budgetWithin(account, share, 0);
    if (!limiter) return slice();
    const stats = limiter.stats();
    const now = this.#o.now();
    const budgetId = account.budgetId ?? account.id;
    const recent = (this.#calls.get(budgetId) ?? []).filter(({ at }) => now - at < stats.windowMs);
    // Views and redemptions each have their part of the share (a redemptions' part of at least one call a window,
    // so a small plan still lets a customer redeem): neither crowds the other out.
    const room = asked.redeem
      ? Math.max(1, Math.floor(stats.effectiveLimit * share * REDEEM_PART))
      : Math.floor(stats.effectiveLimit * share * (1 - REDEEM_PART));
    const own = recent.filter((call) => call.redeem === asked.redeem);
    // A shop alone on the budget in the window may use all of its kind's part; beside another, SHOP_PART of it.
    const ofShop = own.filter((call) => call.shop === asked.shop);
    if (ofShop.length < own.length && ofShop.length >= Math.max(1, Math.floor(room * SHOP_PART)))
      throw new NoRoom(ofShop[0]!.at + stats.windowMs - now);
    // Counted here only without a limiter every instance shares (which counts them itself, below).
    if (!limiter.takeShare && own.length >= room) throw new NoRoom((own[0]?.at ?? now) + stats.windowMs - now);
    // Counted before any wait, so calls at once see each other; taken back if the shared count refuses it.
    const call: Call = { at: now, redeem: asked.redeem, shop: asked.shop };
    this.#calls.set(budgetId, [...recent, call]);
    try {
      if (limiter.takeShare) {
        const taken = asked.redeem
          ? await limiter.takeShare(share * REDEEM_PART, 'redeems')
          : await limiter.takeShare(share * (1 - REDEEM_PART));
        if (!taken.taken) throw noRoomUntil(taken.until);
      }
      return await slice();
    } catch (error) {
      this.#calls.set(
        budgetId,
        (this.#calls.get(budgetId) ?? []).filter((each) => each !== call),
      );
      throw error;
    }
  }

  /**
   * A place of the account's budget, or NoRoom. `share`: the storefront's part of any slice (SliceShare), so live
   * orders keep the rest of it. A full slice is waited out while the waits come to no more than `waitMs`, on the
   * limiter's own clock (the machine's), in one wait per slice.
   */
  async #budgetWithin(account: AccountRuntime, share: number | undefined, waitMs: number): Promise<Place> {
    let waited = 0;
    for (;;) {
      const budget = account.reserveCall?.(share);
      if (!budget?.spent) return budget?.place;
      const wait = Math.max(1, budget.until - Date.now());
      if (waited + wait > waitMs) throw noRoomUntil(budget.until);
      waited += wait;
      await sleep(wait);
    }
  }

  /** Customers who have not redeemed in a window take no memory. */
  #forgetOld(now: number, windowMs: number): void {
    if (this.#customers.size < 1_000) return;
    for (const [key, times] of this.#customers) if (now - (times.at(-1) ?? 0) >= windowMs) this.#customers.delete(key);
  }
}
