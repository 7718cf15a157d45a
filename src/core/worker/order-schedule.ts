// Which orders the worker claims, in what order, and when it looks for work next, by what it knows of its
// accounts' rate budgets (account-budgets.ts): each shop's and account's budget, and which are spent.
import { limiterOf } from '../../loyalty/client.ts';
import type { AccountRuntime } from '../accounts.ts';
import { shopGroupOf, type Lane, type SkippedShops } from '../lanes.ts';
import type { OrderRecord } from '../order-record.ts';
import type { AccountBudgets, BudgetOutlook } from './account-budgets.ts';
import { LaneClaims } from './lane-claims.ts';
import type { WorkerSettings } from './worker-options.ts';

export class OrderSchedule {
  readonly #o: WorkerSettings;
  readonly #claims: LaneClaims;
  /** Accounts whose budget was found spent, and live orders waiting for a place: claims pass over their shops. */
  readonly #budgets: AccountBudgets;
  /** The check of lapsed waits under way, if one is. */
  #checking: Promise<void> | undefined;
  /**
   * Each shop's budget, as last seen by a step (platform:shop → budget id), and each account's: accounts that
   * share one limiter (the same service, key and limit) share one budget, its places and its holds.
   */
  readonly #budgetOfShop = new Map<string, string>();
  readonly #budgetOfAccount = new Map<string, string>();
  /** Accounts whose own orders found their budget spent, and until when (what /metrics may show of each). */
  readonly #spentOfAccount = new Map<string, number>();

  constructor(o: WorkerSettings, budgets: AccountBudgets) {
    this.#o = o;
    this.#budgets = budgets;
    this.#claims = new LaneClaims(o.store, {
      concurrency: o.concurrency,
      minShare: o.backfillMinShare,
      leaseMs: o.leaseMs,
    });
  }

  /**
   * Up to `limit` orders for the free slots, in the order they will ask for their places. The orders under way
   * are read after the check of lapsed waits, as they are then.
   */
  async claim(limit: number, owner: string, inFlight: Readonly<Record<Lane, number>>): Promise<OrderRecord[]> {
    await this.#checkLapsedWaits();
    const claimed = await this.#claims.claim({
      owner,
      limit,
      backfillInFlight: inFlight.backfill,
      skip: this.#shopsToSkip(),
    });
    return this.#inAskingOrder(claimed);
  }

  /**
   * Accounts whose own orders found their budget spent, with when it returns (the budget's earliest return known,
   * as spentBudgets says it): not the other accounts on the same budget.
   */
  get spentAccounts(): ReadonlyMap<string, number> {
    const now = this.#o.now().getTime();
    const spent = this.#budgets.spent;
    const own = new Map<string, number>();
    for (const [account, until] of this.#spentOfAccount) {
      const budgetUntil = spent.get(this.#budgetOfAccount.get(account) ?? account);
      if (until <= now || budgetUntil === undefined) this.#spentOfAccount.delete(account);
      else own.set(account, budgetUntil);
    }
    return own;
  }

  /**
   * The budget an order's turn counts against, as far as known before its step looks its account up: an account
   * not seen yet counts as its own (corrected by accountFound once looked up).
   */
  budgetOfOrder(record: OrderRecord): string | undefined {
    const account = record.upstream.account;
    if (account === undefined) return this.#budgetOfShop.get(shopGroupOf(record.key));
    return this.#budgetOfAccount.get(account) ?? account;
  }

  /** A step found the order's account: its shop and account count against the account's budget from now on. */
  accountFound(record: OrderRecord, account: AccountRuntime): string {
    // Almost always the shop's account too; an order fixed to an account its shop has left can mislead this until the shop's next order.
    const budgetId = account.budgetId ?? account.id;
    this.#budgetOfShop.set(shopGroupOf(record.key), budgetId);
    this.#budgetOfAccount.set(account.id, budgetId);
    this.#budgets.accountFound(record.key, budgetId);
    return budgetId;
  }

  /**
   * The account's budget is spent until `until`: the order is due then, to be let go by the caller's save
   * (waiting in the limiter would hold a slot another account could use).
   */
  budgetSpent(record: OrderRecord, account: AccountRuntime, until: number): void {
    // Claims look at the shops of the budget's accounts again at the earliest return known.
    const budgetId = account.budgetId ?? account.id;
    this.#budgets.noteSpent(budgetId, until);
    this.#spentOfAccount.set(account.id, until);
    record.dueAt = new Date(until).toISOString();
    // Noted before the save lets the order go: a claim meanwhile holds the account's backfill back.
    if ((record.lane ?? 'live') === 'live') {
      this.#budgets.noteLiveWait(record.key, budgetId, until);
      // Every instance's storefront comes after it too, where the budget is shared (the limiter throttles the mark).
      limiterOf(account.client)?.markLiveWaiting?.();
    }
  }

  /** The shops claims pass over: those of accounts whose budget is spent, and, in backfill, those holding it back. */
  #shopsToSkip({ spent, holding }: BudgetOutlook = this.#budgets.outlook()): SkippedShops {
    if (spent.size === 0 && holding.size === 0) return {};
    const all = new Set<string>();
    const backfill = new Set<string>();
    for (const [shop, budget] of this.#budgetOfShop) {
      if (spent.has(budget)) all.add(shop);
      else if (holding.has(budget)) backfill.add(shop);
    }
    return { all, backfill };
  }

  /**
   * A claim's orders in the order they will ask for their places (each
   * order's turn starts in this order, and under a spent budget the first to
   * ask gets the place that frees): backfill owed its share first, then live
   * orders, then the other backfill (account-budgets.ts).
   */
  #inAskingOrder(claimed: OrderRecord[]): OrderRecord[] {
    const owed = (record: OrderRecord) => {
      if (record.lane !== 'backfill') return false;
      const budget = this.budgetOfOrder(record);
      return budget !== undefined && this.#budgets.shareDue(budget);
    };
    return [...claimed.filter(owed), ...claimed.filter((record) => !owed(record))];
  }

  /**
   * Live orders let go whose waits lapsed hold their account's backfill back
   * only while the store has one of them due: per account, read until one is.
   * One check at a time (claims and nextAt share it).
   */
  #checkLapsedWaits(): Promise<void> {
    this.#checking ??= this.#readLapsedWaits().finally(() => (this.#checking = undefined));
    return this.#checking;
  }

  async #readLapsedWaits(): Promise<void> {
    for (const waits of this.#budgets.lapsed()) {
      for (const wait of waits) {
        let stillDue = false;
        try {
          const record = await this.#o.store.getOrder(wait.key);
          stillDue =
            record !== undefined &&
            (record.lane ?? 'live') === 'live' &&
            record.dueAt !== null &&
            Date.parse(record.dueAt) <= this.#o.now().getTime();
        } catch {
          // Unread: the wait ends rather than hold backfill on a guess.
        }
        this.#budgets.lapseChecked(wait, stillDue);
        if (stillDue) break;
      }
    }
  }

  /**
   * When to look for work next: the next due work of the shops claims do
   * not pass over, the first spent budget's return, or when a live order
   * waiting for a place falls due. Work due now that claims pass over is not
   * looked at before then: the loop would only spin, claiming nothing. A
   * slot freeing or new work wakes it sooner.
   */
  async nextAt(): Promise<number | undefined> {
    await this.#checkLapsedWaits();
    // The shops passed over, and when that ends, as of one instant (BudgetOutlook): a return falling during the
    // store's read would otherwise be both passed over there and forgotten here, and the loop would sleep past it.
    const outlook = this.#budgets.outlook();
    const times = [await this.#o.store.nextDueAt(this.#shopsToSkip(outlook)), outlook.changesAt].filter(
      (at) => at !== undefined,
    );
    return times.length > 0 ? Math.min(...times) : undefined;
  }
}
