// What the worker knows of its accounts' rate budgets: which are spent and until when, and which live orders
// were let go to wait for a place. Under a spent budget the account's places are scarce, not the slots, so
// live-first holds on places too: while a live order waits for one, that account's backfill takes a place
// only when its share is due. This instance knows only its own waits: once they have been due WAIT_GRACE_MS
// with no turn, the store is asked which still wait, so backfill is never held for ever (docs/accounts.md).
import type { Lane } from '../lanes.ts';

/** How long a live order let go may be due with no turn here before the store is asked whether it still waits. */
export const WAIT_GRACE_MS = 2_000;
/** How long after its budget was last found spent an account's places count as scarce. */
export const SCARCE_MS = 2_000;
/** A budget spent this long with no real break is a problem, not a busy minute (the engine may be given another). */
export const BUDGET_SPENT_LONG_MS = 3 * 60_000;
/** A budget found spent again within this long of its last return has been spent all along (spentSince). */
const SPENT_RUN_GAP_MS = 15_000;
/** A lapsed wait not read for this long is forgotten unread (its account was held by another meanwhile). */
const FORGET_LAPSED_MS = 60_000;

interface Turns {
  /** Unknown until a step looks the order's account up (its shop's first order this instance sees): holds nothing. */
  account: string | undefined;
  /** In the live lane: it waits for a place (a backfill order lifted to live mid-turn becomes one). */
  live: boolean;
  /** When the order is due again (when it was claimed, while it has not been let go). */
  dueAt: number;
  /** Its turns under way on this instance (two, when its lease ran out and this instance claimed it again). */
  turns: number;
  /** Let go to wait for a place (by a turn under way, or one that ended). */
  letGo: boolean;
  /** Waits no more: given a place, or its step found nothing to send now (unless let go again). */
  done: boolean;
  /** With no turn under way: when to ask the store whether it still waits. */
  lapsesAt: number;
  /** Changed by every turn and let-go: a store read made before a change says nothing of the wait after it. */
  version: number;
}

/** A lapsed wait to check against the store, as of its version. */
export interface LapsedWait {
  key: string;
  version: number;
}

/**
 * What claims pass over, and when that may next change by itself, all as of
 * one instant: the worker's read of when work is due is the store's answer
 * under `spent` and `holding`, or `changesAt` if sooner. Read at two instants,
 * a budget returning between them was both passed over in the store's answer
 * and forgotten from this one, and the loop slept past its return.
 */
export interface BudgetOutlook {
  /** Budgets spent, with when each returns. */
  spent: ReadonlyMap<string, number>;
  /** Budgets whose backfill is held back. */
  holding: ReadonlySet<string>;
  /** The first time either may change (a return, a wait falling due or lapsing, places no longer scarce). */
  changesAt: number | undefined;
}

export class AccountBudgets {
  readonly #now: () => number;
  /** Live places an account must give between two backfill places while live orders wait (Infinity: none). */
  readonly #livePerBackfill: number;
  /** Accounts whose budget was found spent, and until when. */
  readonly #spent = new Map<string, number>();
  /** When each account's budget was last found spent: its places are scarce for SCARCE_MS after. */
  readonly #lastSpentAt = new Map<string, number>();
  /** Since when each budget has been spent with no real break, and its latest return known (a budget spent for long). */
  readonly #spentRuns = new Map<string, { since: number; until: number }>();
  /** Orders with a turn under way here, and live orders let go to wait for a place (order key → its turns). */
  readonly #orders = new Map<string, Turns>();
  /** Per account, live places given since its backfill was last given one. */
  readonly #liveSinceBackfill = new Map<string, number>();
  #versions = 0;

  constructor({ now, minShare }: { now: () => number; minShare: number }) {
    this.#now = now;
    this.#livePerBackfill = minShare <= 0 ? Infinity : Math.max(0, Math.ceil(1 / minShare) - 1);
  }

  /** Accounts whose budget is spent, with when it returns (those returned forgotten). */
  get spent(): ReadonlyMap<string, number> {
    return this.#spentAt(this.#now());
  }

  /** Budgets spent now, with since when they have been spent with no real break (status: a budget spent for long). */
  get spentSince(): ReadonlyMap<string, number> {
    const now = this.#now();
    const spent = this.#spentAt(now);
    const since = new Map<string, number>();
    for (const [account, run] of this.#spentRuns)
      if (run.until + SPENT_RUN_GAP_MS < now) this.#spentRuns.delete(account);
      else if (spent.has(account)) since.set(account, run.since);
    return since;
  }

  /** What claims pass over now, and when that may change (BudgetOutlook): every part as of this one instant. */
  outlook(): BudgetOutlook {
    const now = this.#now();
    const spent = new Map(this.#spentAt(now));
    const times = [...spent.values(), this.#nextChangeAt(now)].filter((at) => at !== undefined);
    return { spent, holding: this.#holding(now), changesAt: times.length > 0 ? Math.min(...times) : undefined };
  }

  /** The account's budget is spent until `until`; the earliest return known is kept. */
  noteSpent(account: string, until: number): void {
    const now = this.#now();
    const known = this.#spent.get(account);
    this.#spent.set(account, known !== undefined && known > now ? Math.min(known, until) : until);
    this.#lastSpentAt.set(account, now);
    const run = this.#spentRuns.get(account);
    const going = run !== undefined && run.until + SPENT_RUN_GAP_MS >= now;
    this.#spentRuns.set(account, { since: going ? run.since : now, until: going ? Math.max(run.until, until) : until });
  }

  /** A claimed order's turn begins: a live one waits for a place from now (its account as far as known). */
  turnStarted(key: string, lane: Lane, account: string | undefined): void {
    let order = this.#orders.get(key);
    if (!order) {
      order = {
        account,
        live: false,
        dueAt: this.#now(),
        turns: 0,
        letGo: false,
        done: false,
        lapsesAt: Infinity,
        version: 0,
      };
      this.#orders.set(key, order);
    }
    order.turns++;
    order.letGo = false;
    order.done = false;
    order.version = ++this.#versions;
    if (lane === 'live') order.live = true;
  }

  /** A step looked the order's account up: its wait, if it has one, holds that account's backfill. */
  accountFound(key: string, account: string): void {
    const order = this.#orders.get(key);
    if (order) order.account = account;
  }

  /** A live order let go until `dueAt`, when its account's budget should have a place for it. */
  noteLiveWait(key: string, account: string, dueAt: number): void {
    const order = this.#orders.get(key);
    const waiting = { account, dueAt, live: true, letGo: true, done: false, version: ++this.#versions };
    if (order) Object.assign(order, waiting);
    // Not in a turn here (the worker notes waits only within one): waits as if its turn just ended.
    else this.#orders.set(key, { ...waiting, turns: 0, lapsesAt: this.#lapseOf(dueAt) });
  }

  /** The order's step sends nothing now (nothing due, a retry later, no account): it waits for no place. */
  needsNoPlace(key: string): void {
    const order = this.#orders.get(key);
    if (order) order.done = true;
  }

  /** The order's turn ended: its wait is over, unless the turn let it go to wait again. */
  turnEnded(key: string): void {
    const order = this.#orders.get(key);
    if (!order) return;
    order.turns = Math.max(0, order.turns - 1);
    if (order.turns > 0) return;
    if (order.live && order.letGo && !order.done) order.lapsesAt = this.#lapseOf(order.dueAt);
    else this.#orders.delete(key);
  }

  /**
   * A place was given to an order of the account (or it needs none: the
   * account has no budget to ask): counted towards backfill's share, and a
   * live order waits no more. True when that lets the account's backfill
   * take places again.
   */
  placeGiven(account: string, lane: Lane, key: string): boolean {
    if (lane === 'backfill') {
      this.#liveSinceBackfill.set(account, 0);
      return false;
    }
    const now = this.#now();
    const held = this.#holding(now).has(account);
    const order = this.#orders.get(key);
    if (order) order.done = true;
    this.#liveSinceBackfill.set(account, (this.#liveSinceBackfill.get(account) ?? 0) + 1);
    return held && !this.#holding(now).has(account);
  }

  /** Whether the account's backfill is owed a place before its live orders: its share is due. */
  shareDue(account: string): boolean {
    return (this.#liveSinceBackfill.get(account) ?? 0) >= this.#livePerBackfill;
  }

  /**
   * Whether the account's live orders come first now: its budget is spent, its places are scarce (found spent
   * lately), or a live order of it was let go to wait for a place. The storefront, below live orders and backfill's
   * share, takes no place then (src/core/storefront/storefront-reader.ts).
   */
  liveFirst(account: string): boolean {
    const now = this.#now();
    if (this.#spentAt(now).has(account)) return true;
    if (now - (this.#lastSpentAt.get(account) ?? -Infinity) < SCARCE_MS) return true;
    for (const order of this.#orders.values())
      if (order.account === account && order.live && order.letGo && !order.done) return true;
    return false;
  }

  /** Whether backfill of the account may take a place now: no live order of it waits, or backfill's share is due. */
  backfillMayTakePlace(account: string): boolean {
    return !this.#holding(this.#now()).has(account);
  }

  /** Accounts whose backfill is held back now: claims pass over their backfill. */
  holdingBackfill(): ReadonlySet<string> {
    return this.#holding(this.#now());
  }

  /**
   * Per account whose every wait has lapsed, those waits, in the order they
   * lapsed: the worker reads them from the store until one still waits (one
   * is enough to hold the account's backfill). Lapsed waits long unread are
   * forgotten.
   */
  lapsed(): LapsedWait[][] {
    return this.#lapsedAt(this.#now());
  }

  #lapsedAt(now: number): LapsedWait[][] {
    const byAccount = new Map<string, Array<LapsedWait & { at: number }>>();
    const current = new Set<string>();
    for (const [key, order] of this.#orders) {
      if (order.account === undefined || !order.live || order.done) continue;
      if (!this.#waitsHere(order) || order.lapsesAt > now) {
        current.add(order.account);
        continue;
      }
      if (order.lapsesAt + FORGET_LAPSED_MS <= now) {
        this.#orders.delete(key);
        continue;
      }
      const list = byAccount.get(order.account) ?? [];
      list.push({ key, version: order.version, at: order.lapsesAt });
      byAccount.set(order.account, list);
    }
    return [...byAccount]
      .filter(([account]) => !current.has(account))
      .map(([, list]) => list.sort((a, b) => a.at - b.at).map(({ key, version }) => ({ key, version })));
  }

  /** What the store said of a lapsed wait, as of its version: still due (kept another while), or not (ended). */
  lapseChecked({ key, version }: LapsedWait, stillDue: boolean): void {
    const order = this.#orders.get(key);
    if (!order || order.version !== version || order.turns > 0) return;
    if (stillDue) order.lapsesAt = this.#now() + WAIT_GRACE_MS;
    else this.#orders.delete(key);
  }

  /**
   * When what is held back may change next, if nothing else happens: a live
   * order let go falls due (and should be claimed), its wait lapses, or an
   * account's places stop being scarce; now, while an account's every wait
   * has lapsed unchecked (the next look checks them, and ends or renews
   * each). (A turn under way ends with a slot freeing, which looks for work
   * anyway.)
   */
  nextChangeAt(): number | undefined {
    return this.#nextChangeAt(this.#now());
  }

  #nextChangeAt(now: number): number | undefined {
    // Lapsed since the last check (one that ran just before this read, say): a hold with no time of its own left.
    if (this.#lapsedAt(now).length > 0) return now;
    let next: number | undefined;
    const consider = (at: number) => {
      if (at > now && (next === undefined || at < next)) next = at;
    };
    for (const order of this.#orders.values()) {
      if (this.#waitsHere(order)) consider(order.dueAt > now ? order.dueAt : order.lapsesAt);
      else if (order.live && !order.done && order.account !== undefined)
        consider((this.#lastSpentAt.get(order.account) ?? 0) + SCARCE_MS);
    }
    return next;
  }

  /** A live order let go, with no turn here now. */
  #waitsHere(order: Turns): boolean {
    return order.live && order.letGo && order.turns === 0 && !order.done;
  }

  #lapseOf(dueAt: number): number {
    return Math.max(dueAt, this.#now()) + WAIT_GRACE_MS;
  }

  #spentAt(now: number): ReadonlyMap<string, number> {
    for (const [account, until] of this.#spent) if (until <= now) this.#spent.delete(account);
    return this.#spent;
  }

  /** Accounts whose live orders wait for places that are scarce, and whose backfill's share is not due. */
  #holding(now: number): Set<string> {
    const letGo = new Set<string>();
    const claimed = new Set<string>();
    for (const order of this.#orders.values()) {
      if (!order.live || order.done || order.account === undefined) continue;
      (order.letGo ? letGo : claimed).add(order.account);
    }
    const held = new Set<string>();
    for (const account of new Set([...letGo, ...claimed])) {
      const scarce = letGo.has(account) || now - (this.#lastSpentAt.get(account) ?? -Infinity) < SCARCE_MS;
      if (scarce && !this.shareDue(account)) held.add(account);
    }
    return held;
  }
}
