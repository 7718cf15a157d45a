// Where the storefront's calls to the service take their place in an account's budget. Live orders come first:
// the storefront has only its share of the limit in a window (STOREFRONT_SHARE). Within it, redemptions' reads
// have REDEEM_PART and page views the rest. A page view waits for live orders; a customer's redemption does not
// (they wait for their code), and one customer reads only CUSTOMER_REDEEM_READS in a window, so no customer, however many tokens or
// clicks they have, spends the account's calls or the other customers' views; and one shop only SHOP_PART of the
// share, so the other shops on the account keep some (issue 64).
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

/** No place now; `until`: when there may be one (ms), if known. */
export class NoRoom extends Error {
  readonly until: number | undefined;
  constructor(until: number | undefined) {
    super('the storefront has no room in the budget now');
    this.until = until;
  }
}

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
    if (recent.length >= CUSTOMER_REDEEM_READS) throw new NoRoom(recent[0]! + windowMs);
    // Counted before the place is asked, and kept if it is refused: presses at once, or refused ones (which a
    // shared limiter counts too), still stop at the customer's own limit.
    this.#customers.set(key, [...recent, now]);
    this.#forgetOld(now, windowMs);
    return this.#withinShare(account, { redeem: true, shop });
  }

  /** A place for the bridge's own read of a customer's balance (a cover check): as an order's call takes one. */
  async forBridge(account: AccountRuntime): Promise<Place> {
    return this.#budget(account);
  }

  /**
   * A limiter every instance shares counts the share across instances (takeShare: a redemption asks for its part
   * of it); otherwise this process counts its own calls.
   */
  async #withinShare(account: AccountRuntime, asked: { redeem: boolean; shop: string }): Promise<Place> {
    const { share } = this.#o;
    const limiter = limiterOf(account.client);
    // Only page views keep to the storefront's part of a slice: a redemption's read waits for its place as an
    // order's call does (the customer waits for their code).
    const sliceShare = asked.redeem ? undefined : share;
    if (!limiter) return this.#budget(account, sliceShare);
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
      throw new NoRoom(ofShop[0]!.at + stats.windowMs);
    // Counted here only without a limiter every instance shares (which counts them itself, below).
    if (!limiter.takeShare && own.length >= room) throw new NoRoom((own[0]?.at ?? now) + stats.windowMs);
    // Counted before any wait, so calls at once see each other; taken back if the shared count refuses it.
    const call: Call = { at: now, redeem: asked.redeem, shop: asked.shop };
    this.#calls.set(budgetId, [...recent, call]);
    try {
      if (limiter.takeShare) {
        const taken = asked.redeem
          ? await limiter.takeShare(share * REDEEM_PART, 'redeems')
          : await limiter.takeShare(share * (1 - REDEEM_PART));
        if (!taken.taken) throw new NoRoom(taken.until);
      }
      return this.#budget(account, sliceShare);
    } catch (error) {
      this.#calls.set(
        budgetId,
        (this.#calls.get(budgetId) ?? []).filter((each) => each !== call),
      );
      throw error;
    }
  }

  /** `share`: the storefront's part of any slice of the budget (SliceShare), so live orders keep the rest of it. */
  #budget(account: AccountRuntime, share?: number): Place {
    const budget = account.reserveCall?.(share);
    if (budget?.spent) throw new NoRoom(budget.until);
    return budget?.place;
  }

  /** Customers who have not redeemed in a window take no memory. */
  #forgetOld(now: number, windowMs: number): void {
    if (this.#customers.size < 1_000) return;
    for (const [key, times] of this.#customers) if (now - (times.at(-1) ?? 0) >= windowMs) this.#customers.delete(key);
  }
}
