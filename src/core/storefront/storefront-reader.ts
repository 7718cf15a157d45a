// A customer's points for the store's pages: their contact (read from the platform on the bridge's side, kept
// briefly), and their balance from `transaction` through the account's own client and budget, kept briefly and
// dropped by the bridge's own calls for them. The storefront comes after live orders: it takes a place of the
// account's budget only while no live order of it waits and its own share of the budget (STOREFRONT_SHARE) is
// not used up (on every instance sharing the budget, where the limiter is shared: takeShare); otherwise it
// answers what it kept, with its age, or asks the customer to try again in a moment.
// Nothing here is written to the ledger: a customer's contact and balance live in this process's memory alone.
import { LoyaltyRejectedError } from '../../loyalty/errors.ts';
import { customerLedgerOrders, saysNeverSeen } from './customer-ledger.ts';
import { BudgetSpentError } from '../../loyalty/rate-limiter.ts';
import type { Logger } from '../../logger.ts';
import type { Accounts, AccountRuntime } from '../accounts.ts';
import type { CustomerContact } from '../platform-module.ts';
import type { InAccount, KeptInMemory } from '../privacy.ts';
import type { CustomerMatch, OperatorQueries, PrivacyRole } from '../store/ledger-store.ts';
import {
  customerKey,
  pointsFromLedger,
  pointsFromService,
  type CustomerPoints,
  type ServiceCustomer,
} from './customer-points.ts';
import { contactOf, CustomerContacts, matches } from './customer-contacts.ts';
import { ExpiringCache, type Kept } from './expiring-cache.ts';
import type { TakeBack } from './take-backs.ts';
import { NoRoom, noRoomUntil, StorefrontPlaces, type Place } from './storefront-places.ts';
import type { FreshPoints, PointsAnswer, RedeemPoints, ShopRef } from './points-answers.ts';

export type { FreshPoints, PointsAnswer, RedeemPoints, ShopRef } from './points-answers.ts';

/** A balance is fresh this long; the bridge's own calls for the customer drop it sooner. */
export const BALANCE_FRESH_MS = 30_000;
/** A balance older than fresh is still shown, with its age, for this long while the budget has no room. */
export const BALANCE_KEPT_MS = 10 * 60_000;
/** Said to a customer with nothing to show while the budget has no room. */
export const TRY_AGAIN_SECONDS = 30;
const MAX_ENTRIES = 20_000;

const shopKey = (from: ShopRef) => `${from.platform}\u0000${from.shop}`;

export interface StorefrontReaderParts {
  accounts: Pick<Accounts, 'forShop' | 'runtime'>;
  store: Pick<OperatorQueries & PrivacyRole, 'customerOrders'>;
  /** Whether the budget's live orders come first now (the worker's liveFirst). */
  liveFirst: (budgetId: string) => boolean;
  /** STOREFRONT_SHARE: the part of an account's limit the storefront may use in a window. */
  share: number;
  /**
   * Points held by the customer's reservations (reservations.ts, heldPoints) for a read that started at
   * `readStartedAt` whose figures come from `source`; 0 without rewards.
   */
  held?: (
    account: string,
    customer: ServiceCustomer,
    source: 'service' | 'ledger',
    readStartedAt: number,
  ) => Promise<number>;
  /** The customer's take-backs by hand on the account (customer-ledger.ts, takeBacksOf): named so in their history. */
  takeBacks?: (account: string, customer: ServiceCustomer) => Promise<TakeBack[]>;
  /** The customer's cover-check fence on the account now (cover-checks.ts, fenceOf); none without rewards. */
  fence?: (account: string, customer: ServiceCustomer) => Promise<string | null>;
  logger: Logger;
  now?: () => number;
}

interface KeptBalance {
  account: string;
  customer: ServiceCustomer;
  points: CustomerPoints;
  /** When its read started: what of the reservations' redeems its figures can have seen (heldPoints). */
  readStartedAt: number;
}

export class StorefrontReader implements KeptInMemory {
  readonly name = 'storefront';
  readonly #o: StorefrontReaderParts;
  readonly #now: () => number;
  readonly #contacts: CustomerContacts;
  readonly #balances: ExpiringCache<KeptBalance>;
  readonly #places: StorefrontPlaces;
  /** Per account and customer, a redemption's read under way. */
  readonly #redeemReads = new Map<string, Promise<FreshPoints>>();

  constructor(parts: StorefrontReaderParts) {
    this.#o = parts;
    this.#now = parts.now ?? Date.now;
    const now = this.#now;
    this.#places = new StorefrontPlaces({ liveFirst: parts.liveFirst, share: parts.share, now });
    this.#contacts = new CustomerContacts(now);
    this.#balances = new ExpiringCache({
      freshMs: BALANCE_FRESH_MS,
      keepMs: BALANCE_KEPT_MS,
      maxEntries: MAX_ENTRIES,
      now,
    });
  }

  /** The customer's contact, as the platform's record has it (customer-contacts.ts). */
  contact(
    platform: string,
    shop: string,
    customerId: string,
    read: () => Promise<CustomerContact | 'not-allowed' | undefined>,
  ): Promise<CustomerContact | 'not-allowed' | undefined> {
    return this.#contacts.contact(platform, shop, customerId, read);
  }

  /**
   * The customer's points on the account, for a page of `from`'s shop: fresh, or kept with its age when the budget
   * has no room now, or, with none kept, as the ledger counts them (marked so); "try again" only when nothing at all
   * is known of them.
   */
  async points(account: AccountRuntime, customer: ServiceCustomer, from: ShopRef): Promise<PointsAnswer> {
    // Decided from the ledger before anything is read: the service would answer that e-mail's customer.
    if (this.needsEmail(customer)) return { ok: false, needsEmail: true };
    const key = this.#keyOf(account, customer);
    try {
      const load = async () => {
        const place = () => this.#places.forView(account, shopKey(from));
        const { points, readStartedAt } = await this.#read(account, customer, { place, forRedeem: false });
        return { account: account.id, customer, points, readStartedAt };
      };
      let kept = await this.#balances.read(key, load);
      // A reward code's redeem went through after this read started (on any instance): its figures cannot show it,
      // so they are read again rather than kept showing those points as both spent and held.
      if (await this.#missesARedeem(kept.value)) {
        this.#balances.drop(key);
        kept = await this.#balances.read(key, load);
      }
      return await this.#answer(kept, false);
    } catch (error) {
      const last = this.#balances.kept(key);
      if (last) return await this.#answer(last, true);
      if (!(error instanceof NoRoom)) {
        // The service's words may quote what was sent: the error's kind only, never its text.
        this.#o.logger.warn(
          { account: account.id, kind: (error as { kind?: unknown })?.kind ?? (error as Error)?.name },
          "a customer's balance could not be read for the store",
        );
      }
      const known = await this.#fromLedger(account, customer);
      if (known) return known;
      const wait = error instanceof NoRoom ? (error.waitMs ?? 0) / 1000 : 0;
      return { ok: false, retryAfterSeconds: Math.max(TRY_AGAIN_SECONDS, Math.ceil(wait)) };
    }
  }

  /**
   * Whether the customer sees and spends nothing until their record in the shop has an e-mail: one known by a phone
   * alone. The service answers a phone with the customer of the e-mail last earned with it, and a guest types any
   * e-mail beside her phone; what paired them need not be in the ledger (an erased order, another account's, a
   * manual adjustment), so no phone is read at the service for a store page (issue 64, reviews H1 and I4).
   */
  needsEmail(customer: ServiceCustomer): boolean {
    return 'mobile' in customer;
  }

  /** The balance as the ledger counts it (its orders, the reservations), stale; none when it knows nothing of them. */
  async #fromLedger(account: AccountRuntime, customer: ServiceCustomer): Promise<PointsAnswer | undefined> {
    const now = this.#now();
    const [orders, held] = await Promise.all([
      customerLedgerOrders(this.#o, account, customer),
      this.#o.held?.(account.id, customer, 'ledger', now) ?? Promise.resolve(0),
    ]);
    if (orders.length === 0 && held === 0) return undefined;
    const points = pointsFromLedger(orders, held, account.policy.pendingDays);
    return { ok: true, points, asOf: new Date(now).toISOString(), stale: true };
  }

  /**
   * The customer's points read anew from the service, never from what was kept: what the bridge's own check of a
   * customer's reservations reads (cover-checks.ts). It takes a place of the account's budget as an order's call
   * does; a full slice is waited out briefly.
   */
  async pointsNow(account: AccountRuntime, customer: ServiceCustomer): Promise<FreshPoints> {
    const answer = await this.#readNow(account, customer, () => this.#places.forBridge(account));
    if (answer.ok) this.#balances.drop(this.#keyOf(account, customer));
    return answer;
  }

  /**
   * The customer's points for a redemption of `needed` points. A balance read in the last BALANCE_FRESH_MS that
   * cannot cover it answers at once, with no call: a customer pressing Redeem with too few points costs nothing
   * (the bridge's own calls for them drop it, so points they earn show at once). Otherwise read anew, in the
   * storefront's share as a redemption's read (storefront-places.ts), and kept for their next view.
   */
  async pointsToRedeem(
    account: AccountRuntime,
    customer: ServiceCustomer,
    asked: ShopRef & { needed: number },
  ): Promise<RedeemPoints> {
    const key = this.#keyOf(account, customer);
    const fresh = this.#balances.fresh(key);
    // A kept read that a redeem settled since cannot show (on any instance: one that did not settle it keeps it) counts
    // those points as both spent and held: it would refuse points the customer has, so it is read anew.
    if (fresh && !(await this.#missesARedeem(fresh.value))) {
      const shown = await this.#answer(fresh, false);
      // Kept figures only ever refuse: the reservation never sees them.
      if (shown.ok && shown.points.balance.available < asked.needed)
        return { ok: 'short', available: Math.max(0, shown.points.balance.available) };
    }
    // Presses at once share one read anew (each then takes its own reservation on it).
    const under = this.#redeemReads.get(key);
    if (under) return under;
    const reading = this.#readToRedeem(account, customer, key, shopKey(asked)).finally(() =>
      this.#redeemReads.delete(key),
    );
    this.#redeemReads.set(key, reading);
    return reading;
  }

  async #readToRedeem(
    account: AccountRuntime,
    customer: ServiceCustomer,
    key: string,
    shop: string,
  ): Promise<FreshPoints> {
    const load = async (): Promise<KeptBalance> => {
      const answer = await this.#readNow(
        account,
        customer,
        () => this.#places.forRedeem(account, customerKey(customer), shop),
        true,
      );
      if (!answer.ok) throw new NoRoom(answer.retryAfterSeconds * 1000);
      return { account: account.id, customer, points: answer.points, readStartedAt: answer.readStartedAt };
    };
    try {
      // Noted before the read: a cover check after it, which the reservation then finds, may follow a cancel the
      // read does not show (on any bridge of the ledger).
      const fence = await this.#o.fence?.(account.id, customer);
      const noted = fence === undefined ? {} : { fence };
      // Read anew, and what was kept stays until it succeeds: a press refused for want of room leaves the page its
      // balance, with its age. A read the bridge's own call for the customer dropped while it ran (an earning
      // cancelled) may not show that call: it is read once more, so no code is made on points just taken away.
      for (let tries = 1; ; tries++) {
        const { kept, dropped } = await this.#balances.readAnew(key, load);
        if (!dropped) return { ok: true, points: kept.value.points, readStartedAt: kept.value.readStartedAt, ...noted };
        if (tries === 2) return { ok: false, retryAfterSeconds: 5 };
      }
    } catch (error) {
      if (error instanceof NoRoom) return { ok: false, retryAfterSeconds: Math.ceil((error.waitMs ?? 0) / 1000) };
      throw error;
    }
  }

  /** A read anew, its place taken by `place` (which waits out a full slice briefly, storefront-places.ts). */
  async #readNow(
    account: AccountRuntime,
    customer: ServiceCustomer,
    place: () => Promise<Place>,
    forRedeem = false,
  ): Promise<FreshPoints> {
    try {
      const { points, readStartedAt } = await this.#read(account, customer, { place, forRedeem });
      return { ok: true, points, readStartedAt };
    } catch (error) {
      if (!(error instanceof NoRoom))
        this.#o.logger.warn(
          { account: account.id, kind: (error as { kind?: unknown })?.kind ?? (error as Error)?.name },
          "a customer's balance could not be read for a reward",
        );
      const wait = error instanceof NoRoom ? (error.waitMs ?? 0) / 1000 : 0;
      return { ok: false, retryAfterSeconds: Math.max(5, Math.ceil(wait)) };
    }
  }

  #keyOf(account: AccountRuntime, customer: ServiceCustomer): string {
    return `${account.id}\u0000${customerKey(customer)}`;
  }

  /** The bridge's own call for the customer went through: what was kept of their balance on the account is stale. */
  dropBalance(account: string, customer: { email?: string | undefined; mobile?: string | undefined }): void {
    const keys = [
      ...(customer.email ? [customerKey({ email: customer.email })] : []),
      ...(customer.mobile ? [customerKey({ mobile: customer.mobile })] : []),
    ].map((each) => `${account}\u0000${each}`);
    for (const key of keys) this.#balances.drop(key);
  }

  /** What is kept of the customer (their contact as read, their balances), for their export; with an account,
   * its balances and the contacts read in its shops only. */
  async exportCustomer(
    match: Pick<CustomerMatch, 'emails' | 'phones' | 'platform' | 'shop'>,
    account?: InAccount,
  ): Promise<{
    contacts: Array<{ platform: string; shop: string; contact: CustomerContact; readAt: string }>;
    balances: Array<{ account: string; points: CustomerPoints; readAt: string }>;
  }> {
    const contacts = await this.#contacts.exportCustomer(match, account);
    const balances = this.#balances
      .entries()
      .filter(([, { value }]) => matches(contactOf(value.customer), match))
      .filter(([, { value }]) => account === undefined || value.account === account.id)
      .map(([, { value, at }]) => ({
        account: value.account,
        points: value.points,
        readAt: new Date(at).toISOString(),
      }));
    return { contacts, balances };
  }

  /** Forgets what is kept of the customer. */
  eraseCustomer(match: Pick<CustomerMatch, 'emails' | 'phones' | 'platform' | 'shop'>): void {
    this.#contacts.eraseCustomer(match);
    this.#balances.dropWhere((_key, value) => Boolean(value && matches(contactOf(value.customer), match)));
  }

  /** Forgets every contact read of the shop (its erasure, its uninstall); balances are the account's, and go by their age. */
  eraseShop(platform: string, shop: string): void {
    this.#contacts.eraseShop(platform, shop);
  }

  /** The platform now lets the app read the shop's customers: refusals kept for the shop go at once. */
  forgetRefusals(platform: string, shop: string): void {
    this.#contacts.forgetRefusals(platform, shop);
  }

  /** Whether a redeem that a read starting now would see went through after the kept read started. */
  async #missesARedeem(kept: KeptBalance): Promise<boolean> {
    const held = this.#o.held;
    const { source } = kept.points.balance;
    if (!held || source !== 'service') return false;
    const [asRead, asNow] = await Promise.all([
      held(kept.account, kept.customer, source, kept.readStartedAt),
      held(kept.account, kept.customer, source, this.#now()),
    ]);
    return asRead !== asNow;
  }

  /**
   * What was kept, with what the customer's reservations hold counted now, not when it was read: a reservation
   * made, redeemed or released since, by this instance or another on the same ledger, shows at once. The figures
   * read from the service stay as read (heldPoints counts a redeem its read cannot have seen).
   */
  async #answer(kept: Kept<KeptBalance>, stale: boolean): Promise<PointsAnswer> {
    const { points, account, customer, readStartedAt } = kept.value;
    const held = this.#o.held
      ? await this.#o.held(account, customer, points.balance.source, readStartedAt)
      : points.balance.held;
    const { approved, redeemed } = points.balance;
    return {
      ok: true,
      points: { ...points, balance: { ...points.balance, held, available: approved - redeemed - held } },
      asOf: new Date(kept.at).toISOString(),
      stale: stale || this.#now() - kept.at >= BALANCE_FRESH_MS,
    };
  }

  /**
   * The customer's figures, and when their read started: after any wait for its place (a redeem settled during the
   * wait is in the service's figures, and must not count as held too), before the call (heldPoints counts a redeem
   * that lands during it twice at worst: less shown for a moment, never more).
   */
  async #read(
    account: AccountRuntime,
    customer: ServiceCustomer,
    how: { place: () => Promise<Place>; forRedeem: boolean },
  ): Promise<{ points: CustomerPoints; readStartedAt: number }> {
    // Read after the figures: a reservation or a redeem that lands meanwhile is counted (heldPoints).
    const held = async (source: 'service' | 'ledger', readStartedAt: number) =>
      (await this.#o.held?.(account.id, customer, source, readStartedAt)) ?? 0;
    const fromLedger = async (readStartedAt: number, neverSeen = false) => {
      const orders = await customerLedgerOrders(this.#o, account, customer);
      const points = pointsFromLedger(orders, await held('ledger', readStartedAt), account.policy.pendingDays, {
        neverSeen,
      });
      return { points, readStartedAt };
    };
    const transactions = account.client.transactions?.bind(account.client);
    if (!transactions) return fromLedger(this.#now());
    const place = await how.place();
    const readStartedAt = this.#now();
    let data: Record<string, unknown> = {};
    let neverSeen = false;
    try {
      // One attempt: a failure answers what was kept or "try again", never a retry outside the share.
      data = (await transactions({ type: 'all', ...customer }, { once: true, ...(place ? { place } : {}) })).data;
    } catch (error) {
      if (error instanceof BudgetSpentError) throw noRoomUntil(error.until);
      // Refused as such (the sandbox: "no customer found"; the service documents nothing): none of its figures,
      // so the ledger's, which say what the bridge itself sent for this customer.
      if (!(error instanceof LoyaltyRejectedError)) throw error;
      neverSeen = saysNeverSeen(error);
      // A redemption's read the service refused for another reason: the ledger misses what was spent elsewhere,
      // and a code must not be made on it (the customer is told to try again).
      if (how.forRedeem && !neverSeen) throw error;
    } finally {
      place?.release();
    }
    const takeBacks = (await this.#o.takeBacks?.(account.id, customer)) ?? [];
    const fromService = pointsFromService(data, await held('service', readStartedAt), takeBacks);
    return fromService ? { points: fromService, readStartedAt } : fromLedger(readStartedAt, neverSeen);
  }
}
