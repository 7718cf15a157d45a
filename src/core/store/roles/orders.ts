// The orders role: the worker's side of the ledger, due orders leased, their progress saved, waiting orders woken.
import type { Lane, SkippedShops } from '../../lanes.ts';
import type { OrderRecord } from '../../order-record.ts';
import type { ClaimRenewal } from './claims.ts';

export type SaveResult =
  /** Saved; nothing changed meanwhile. */
  | 'saved'
  /** Saved, and new facts were folded in while the worker called: look again. */
  | 'refolded'
  /** The lease was lost (another instance took the order over): stop working on it. */
  | 'lost';

export interface WaitingMatch {
  waitingFor: string;
  platform?: string | undefined;
  shop?: string | undefined;
}

export interface OrderWorkRole extends ClaimRenewal {
  getOrder(key: string): Promise<OrderRecord | undefined>;
  /**
   * Due orders, leased to `owner`: of one lane, or of both with live first.
   * Within a lane, shops take turns (round-robin, one order each per turn).
   * The shops in `skipShops` (platform:shop) are passed over and keep their
   * turn: their account's rate budget is spent for now.
   */
  claimDue(
    owner: string,
    limit: number,
    leaseMs: number,
    lane?: Lane,
    skipShops?: ReadonlySet<string>,
  ): Promise<OrderRecord[]>;
  /** Saves what the worker did (the progress fields, target and due time) under its lease. */
  saveProgress(record: OrderRecord, options: { owner: string; release: boolean; leaseMs: number }): Promise<SaveResult>;
  /** Lets go of an order without saving (the worker's step failed): due again from retryAt. As releaseEntry, for orders. */
  releaseOrder(owner: string, key: string, retryAt: Date): Promise<void>;
  /** Changes an order's progress outside the worker (a person retried a dead letter) and makes it due now. */
  updateProgress(key: string, change: (record: OrderRecord) => void): Promise<OrderRecord | undefined>;
  /** When the earliest order not due yet becomes due, if the store can tell; of shops claims do not pass over in its lane. */
  nextDueAt(skip?: SkippedShops): Promise<number | undefined>;
  /**
   * Makes due now the orders waiting for what just happened (work.waitingFor:
   * 'account' for a shop just linked, 'pause:<account>' for an account let in
   * again), of one shop when it says so. Returns how many. With a shop, the
   * shop's orders a worker holds now are woken too, once it lets go: it may
   * have looked before the change and be about to save the order waiting.
   */
  wakeWaiting(match: WaitingMatch): Promise<number>;
  /**
   * Registers an lp_orderid for an order; returns the order it belongs to
   * (this one, unless another claimed it first). With `durable: false` a
   * store may keep the registration with the order's next saveProgress
   * rather than make it durable on its own: the worker saves its intent
   * before the call anyway, and one write costs less than two.
   */
  claimLpOrderId(lpOrderId: string, orderKey: string, options?: { durable?: boolean }): Promise<string>;
  /** Whether an order whose calls go to this loyalty account still has work to do (an account is not removed under it). */
  hasWorkFor(account: string): Promise<boolean>;
  /**
   * The shops of orders whose account is not fixed yet (no call made, so no
   * account named): at the upgrade to accounts, what the default account
   * keeps serving. lowdb looks at orders still moving; PostgreSQL at all.
   */
  shopsWithUnfixedOrders(): Promise<Array<{ platform: string; shop: string }>>;
}
