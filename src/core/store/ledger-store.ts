// What the core needs from durable storage, and nothing lowdb-shaped: so a
// shared database can take the place of the lowdb files when a merchant
// outgrows one instance. Every method that changes something resolves only
// once the change is on disk.
import type { OrderEvent } from '../order-event.ts';
import type { OrderRecord, OrderSummary } from '../order-record.ts';

/** One accepted delivery, as it waits to be folded into its orders. */
export interface InboxEntry {
  /** The dedupe key of the delivery (platform-specific). */
  key: string;
  /** Other keys of the same delivery, remembered for dedupe as well. */
  aliases?: string[];
  receivedAt: string;
  events: OrderEvent[];
}

export interface DeadLetter {
  id: string;
  createdAt: string;
  /** delivery: an authentic delivery we could not use. call: a call the service refused for good. */
  kind: 'delivery' | 'call';
  reason: string;
  platform?: string | undefined;
  topic?: string | undefined;
  shop?: string | undefined;
  /** For deliveries: the dedupe key it arrived under. */
  deliveryKey?: string | undefined;
  orderKey?: string | undefined;
  operation?: string | undefined;
  httpStatus?: number | undefined;
  /** For deliveries: the body as received (truncated), so nothing is lost. */
  body?: string | undefined;
  retries: number;
}

export interface LoadedLedger {
  activeOrders: OrderRecord[];
  inbox: Array<{ segment: string; entries: InboxEntry[] }>;
  /** Inbox files found cut short: written when the process died, so never acknowledged. */
  tornSegments?: number;
  /** Delivery keys seen within the dedupe window, with when they were received. */
  seen: Array<[key: string, receivedAt: string]>;
  /** Settled orders live outside the hot files: only their summaries (keys included) are loaded. */
  settledSummaries: OrderSummary[];
  deadLetters: DeadLetter[];
  shops: ShopStates;
  reconciliation: ReconciliationState;
  adjustments: Adjustment[];
}

/** A manual earn or redeem asked for through the admin API: who, why, and what came of it. */
export interface Adjustment {
  id: string;
  at: string;
  kind: 'earn' | 'redeem';
  /** The label of the admin token used. */
  by: string;
  reason: string;
  customer: { email?: string | undefined; mobile?: string | undefined; name?: string | undefined };
  activityId?: string | undefined;
  points?: number | undefined;
  outcome: 'success' | 'failed';
  message: string;
}

/** Per platform, the last reconciliation: its high-water mark survives restarts. */
export type ReconciliationState = Record<
  string,
  {
    /** The end of the last window fetched without errors: the next window starts there, minus an overlap. */
    highWaterMark: string | null;
    lastRun: { startedAt: string; finishedAt: string; since: string; until: string; fetched: number; changed: number; unchanged: number; failed: number; errors: string[] } | null;
  }
>;

/** Per platform:shop, whether the merchant removed the app (its deliveries are then not processed). */
export type ShopStates = Record<string, { uninstalledAt: string | null }>;

export interface LedgerStore {
  load(): Promise<LoadedLedger>;

  /** The acknowledgement path: a batch of deliveries, on disk when this resolves. Returns its segment. */
  appendInbox(entries: InboxEntry[]): Promise<string>;
  /** Forgets inbox segments whose deliveries are folded into orders and saved. */
  dropInbox(segments: string[]): Promise<void>;

  saveActive(orders: OrderRecord[]): Promise<void>;
  /** Moves quiet, finished orders out of the hot files. */
  settle(orders: OrderRecord[]): Promise<void>;
  /** Brings a settled order back to the hot files (an event arrived for it), and returns it. */
  unsettle(key: string): Promise<OrderRecord | undefined>;
  readSettled(key: string): Promise<OrderRecord | undefined>;

  saveSeen(entries: Array<[key: string, receivedAt: string]>): Promise<void>;
  /** Drops seen delivery keys received before `before` (and may compact what it keeps). */
  pruneSeen(before: Date, now?: Date): Promise<void>;

  saveDeadLetters(deadLetters: DeadLetter[]): Promise<void>;
  saveShops(shops: ShopStates): Promise<void>;
  saveReconciliation(state: ReconciliationState): Promise<void>;
  saveAdjustments(adjustments: Adjustment[]): Promise<void>;

  /** Keeps a copy of the ledger as it is now, known good (it just loaded whole). Optional for stores with their own backups. */
  backUp?(): Promise<void>;

  /** Waits for every write under way. */
  close(): Promise<void>;
}

/** A ledger file that is torn, empty or not what we wrote: refuse to start on it. */
export class LedgerDamagedError extends Error {
  readonly path: string;
  readonly backup: string | undefined;
  constructor(path: string, why: string, backup?: string) {
    super(
      `The ledger file ${path} is damaged (${why}). loyalty-bridge will not start on it, so that no order is forgotten. ` +
        (backup
          ? `The copy from the last good start is ${backup}: check it and copy it over the damaged file (what changed since that start comes back from the platforms' retries and reconciliation), then start again.`
          : `Restore it from your own backup, or move it aside if you accept losing what it held, then start again.`),
    );
    this.name = 'LedgerDamagedError';
    this.path = path;
    this.backup = backup;
  }
}
