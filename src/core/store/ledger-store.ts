// What the core needs from durable storage, shaped by transactions rather
// than files, so that the lowdb files (one bridge) and PostgreSQL (many
// bridges behind one address) are interchangeable. Every method that changes
// something resolves only once the change is durable (fsynced, or committed).
import type { Lane, LaneCounts, ShopLaneCounts, SkippedShops } from '../lanes.ts';
import type { InboxEntry, EntryRetry, StoredDelivery } from '../delivery.ts';
import type { OrderEvent } from '../order-event.ts';
import type { OrderRecord } from '../order-record.ts';
import type { OrderCounts, OrderSummary } from '../order-summary.ts';
import { BridgeError } from '../../errors.ts';

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
  /** For deliveries: the delivery as received, so nothing is lost and it can be read again. */
  delivery?: StoredDelivery | undefined;
  /** For a manual earn or redeem whose outcome is unknown: the adjustment to send again. */
  adjustmentId?: string | undefined;
  retries: number;
}

export type NewDeadLetter = Omit<DeadLetter, 'createdAt' | 'retries'> & { createdAt?: string };

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
  /** The loyalty account it was sent to (accounts.ts); adjustments of earlier releases went to the default account. */
  account?: string | undefined;
  /** The shop whose own page made it; none for the operator's. */
  platform?: string | undefined;
  shop?: string | undefined;
  outcome: 'success' | 'failed' | 'unknown';
  message: string;
}

/** Per platform, the last reconciliation: its high-water mark survives restarts. */
export interface ReconciliationState {
  /** The end of the last window fetched without errors: the next window starts there, minus an overlap. */
  highWaterMark: string | null;
  lastRun: {
    startedAt: string;
    finishedAt: string;
    since: string;
    until: string;
    fetched: number;
    changed: number;
    unchanged: number;
    failed: number;
    errors: string[];
  } | null;
}

/** Whether the merchant removed the app from a shop (its older deliveries are then not processed). */
export interface ShopState {
  platform: string;
  shop: string;
  uninstalledAt: string | null;
  installedAt?: string | null | undefined;
}

/**
 * Record kinds a platform's module keeps of its own, named after it ("<platform>-<what>"): the module adds
 * each here (`declare module` on this file) and names its secret fields in PlatformModule.records.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the modules' declarations
export interface PlatformRecordKinds {}

/**
 * Small collections kept as records by kind and id: the store keeps them,
 * the core gives them meaning. Sessions hold platform access tokens: the
 * secret fields of each kind are sealed by the store (record-secrets.ts).
 */
export type RecordKind =
  | keyof PlatformRecordKinds
  | 'shop'
  | 'session'
  | 'reconciliation'
  | 'adjustment'
  | 'resync-job'
  | 'data-request'
  | 'privacy-log'
  | 'platform-health'
  | 'migration'
  | 'allowed-shop'
  /** A destructive delivery's body (an uninstall, a redaction) that was acted on: never acted on again. Names no shop, so erasure keeps it. */
  | 'acted-once'
  /** A topic a platform was seen delivering to a shop through the app's own configuration (not a subscription of the shop's). Names no person. */
  | 'declared-delivery'
  /** A signed callback payload (by its id) and the callback it was used at, until it expires: used once. */
  | 'callback-payload'
  /** A user of a store's admin its owner removed: their sessions and earlier signed payloads open nothing. */
  | 'removed-user'
  /** A test order a shop's page sent (core/test-order.ts): counted for the shop's hourly cap, erased with the shop. */
  | 'test-order'
  /** The key of the sessions the bridge hands a store's page (src/composition/kept-page-key.ts). A secret. */
  | 'page-key'
  /** The credentials of the sandbox the bridge serves in sandbox mode, made once (src/composition/kept-sandbox-credentials.ts). A secret. */
  | 'sandbox-credentials'
  /** A loyalty account (src/accounts/account-records.ts); its apiKey is a secret, sealed like the others (record-secrets.ts). */
  | 'account'
  /** Which loyalty account a shop (platform:shop) earns on. */
  | 'shop-link'
  /** Every change to accounts and links: who, when, what (never a secret). */
  | 'audit'
  /** Whether a shop (platform:shop) shows its customers their points in the store (core/storefront/storefront-switch.ts). */
  | 'storefront'
  /** The rewards a shop (platform:shop) offers its customers for their points (core/storefront/rewards.ts). */
  | 'rewards'
  /** One customer's reservations on one account (core/storefront/reservations.ts): id account:digest of the customer. */
  | 'reward-holder'
  /** An open reward code (platform:shop:code) and the reservation it spends: the sweeper's list, the worker's lookup. */
  | 'reward-code'
  /** A customer's codes to check against their balance after an earning of theirs was cancelled (core/storefront/cover-checks.ts): by the holder's id. */
  | 'reward-check'
  /** An open code of a shop whose data was erased, by a digest of shop and text, until it can pay no more (core/storefront/erased-codes.ts). */
  | 'reward-erased-code'
  /** The pools' firsts whose holders an account's reservations went under (core/storefront/pool-firsts.ts): by the account's id. */
  | 'pool-firsts'
  /** A code made in a store after its points were let go, whose removal failed: the sweeper removes it (core/storefront/orphan-codes.ts). */
  | 'reward-orphan'
  /** When a cover check last looked at a holder (cover-checks.ts): a reservation on a read begun before lets go. */
  | 'reward-fence'
  /** Whether a shop's storefront widget (platform:shop) is on its store, as last put or checked (core/storefront/widget-keeper.ts). */
  | 'storefront-widget'
  /** The next order id of the bridge's built-in demo store (src/composition/first-run.ts). Names no shop. */
  | 'demo-order-ids';

export interface WaitingMatch {
  waitingFor: string;
  platform?: string | undefined;
  shop?: string | undefined;
}

/** What a change of a record asks for: a new value, its deletion, or (undefined) nothing. */
export type RecordChange<T> = { put: T } | { delete: true } | undefined;

/** One step of intake: an inbox entry consumed, and what came of it, committed together. */
export interface IntakeCommit {
  entryKey: string;
  /** Order events to fold into their orders. */
  events?: OrderEvent[];
  /** The lane of the work the events make (absent: live). */
  lane?: Lane | undefined;
  /** The delivery could not be used: kept with its reason (an upsert by id, so a repeat makes no second one). */
  deadLetter?: NewDeadLetter;
  /** The shop's install state changes with this delivery. */
  shop?: ShopState;
  /** Records kept in the same step (a destructive body acted on: kept with the act, never apart from it). */
  records?: Array<{ kind: RecordKind; id: string; value: unknown }>;
}

/**
 * What of an intake step still applies once its entry is no longer in the
 * inbox: taken by its shop's erasure while intake read it, or consumed by
 * another instance that took it over. Its events, dead letter and install
 * state would bring back what the erasure took (or repeat what the other
 * instance did); its records, the act of a destructive body, are kept, so
 * that the body sent again does not act twice.
 */
export function withoutEntryGone(commit: IntakeCommit, inInbox: boolean): IntakeCommit {
  if (inInbox) return commit;
  return { entryKey: commit.entryKey, ...(commit.records ? { records: commit.records } : {}) };
}

export interface OrderQuery {
  platform?: string | undefined;
  shop?: string | undefined;
  state?: string | undefined;
  reason?: string | undefined;
  since?: Date | undefined;
  until?: Date | undefined;
  /** Part of the order id, number or the customer's e-mail. */
  q?: string | undefined;
  page: number;
  limit: number;
}

export type SaveResult =
  /** Saved; nothing changed meanwhile. */
  | 'saved'
  /** Saved, and new facts were folded in while the worker called: look again. */
  | 'refolded'
  /** The lease was lost (another instance took the order over): stop working on it. */
  | 'lost';

/** Who a privacy request is about. Any order, delivery or record that matches one of these is the customer's. */
export interface CustomerMatch {
  platform?: string | undefined;
  shop?: string | undefined;
  emails: string[];
  phones: string[];
  /** Platform order ids named by the request (a platform's list of orders to redact). */
  orderIds: string[];
  /**
   * The platform's own ids of the customer (with platform and shop): what the bridge keeps under the platform's id
   * (a reward code's reservation) is theirs even when their contact changed since.
   */
  customerIds?: readonly string[] | undefined;
  /** Orders never matched, whoever's they look like: another loyalty account's, in a request limited to one. */
  exceptOrderKeys?: readonly string[] | undefined;
}

/** A delivery with only the fields translation reads; undefined when it has nothing more (or cannot be read). */
export type DeliveryTrimmer = (delivery: StoredDelivery) => StoredDelivery | undefined;

/** Reads a raw delivery for a privacy request: whether it is about the customer, and the delivery with their data removed. */
export type DeliveryRedactor = (delivery: StoredDelivery) => { about: boolean; redacted: StoredDelivery };

export interface CustomerData {
  orders: OrderRecord[];
  deadLetters: DeadLetter[];
  inbox: InboxEntry[];
  adjustments: Adjustment[];
  dataRequests: unknown[];
  /** What the bridge keeps of the customer in memory alone, by what keeps it (privacy.ts, KeptInMemory). */
  inMemory?: Record<string, unknown>;
}

export interface ErasureReport {
  orders: number;
  deadLetters: number;
  inbox: number;
  /** Records of every kind (adjustments, data requests, a shop's own records). */
  records: number;
  /** Of the records, manual adjustments: a shop's request reaches those made for that shop alone. */
  adjustments: number;
}

/** Everything a store holds, one item at a time: for moving a ledger from one backend to another. */
export type LedgerItem =
  | { type: 'order'; record: OrderRecord }
  | { type: 'inbox'; entry: InboxEntry }
  | { type: 'seen'; key: string; receivedAt: string }
  | { type: 'dead-letter'; letter: DeadLetter }
  | { type: 'record'; kind: RecordKind; id: string; value: unknown }
  | { type: 'lp-order-id'; lpOrderId: string; orderKey: string };

/** What a lease is on: an order (the worker) or an inbox entry (intake). */
export type ClaimKind = 'orders' | 'inbox';

/** One claimed order or inbox entry, and the owner token it was claimed under (one per claim, so that two claims of one key are told apart). */
export interface Claim {
  key: string;
  owner: string;
}

export interface StoreStats {
  inboxBacklog: number;
  activeOrders: number;
}

export interface OpenReport {
  /** Inbox files found cut short: written when the process died, so never acknowledged. */
  tornInboxFiles: number;
  /** A one-time rebuild of indexes from an older ledger layout. */
  upgraded?: string | undefined;
  /** Secrets at rest once open: what the open sealed, what the ledger holds, and what the operator should know. */
  secrets?: SecretsStatus | undefined;
}

/** The secret values a ledger holds (record-secrets.ts lists the fields), by how they are kept, as this instance sees them. */
export interface SecretCounts {
  plain: number;
  /** Under SECRETS_KEY. */
  current: number;
  /** Under SECRETS_KEY_PREVIOUS. */
  previous: number;
  /** Under a key this instance does not hold (or sealed, while no key is set). */
  unknown: number;
}

export interface SecretsNote {
  level: 'info' | 'warn';
  message: string;
}

/** Secrets at rest as status and the start show them: key ids (digests, never keys), counts, and what to do. */
export interface SecretsStatus {
  keyId: string | null;
  previousKeyId: string | null;
  counts: SecretCounts;
  notes: SecretsNote[];
}

export type { OrderCounts };

export interface LedgerStore {
  readonly kind: 'lowdb' | 'postgres';
  /** Opens (and, for a database, migrates) the store; a damaged one is refused with a message that names what is wrong. */
  open(): Promise<OpenReport>;
  /** Waits for every write under way, then lets go of the store. */
  close(): Promise<void>;

  // --- The acknowledgement path.
  /**
   * Durably accepts a delivery. 'duplicate' when any of its keys was accepted
   * within the dedupe window, and only once that first copy is durable.
   */
  accept(entry: InboxEntry): Promise<'accepted' | 'duplicate'>;
  hasSeen(key: string): Promise<boolean>;
  pruneSeen(before: Date): Promise<void>;

  // --- Intake: what happens after the answer.
  /** Inbox entries due for translation, leased to `owner` so that no other instance takes them meanwhile. */
  claimInbox(owner: string, limit: number, leaseMs: number): Promise<InboxEntry[]>;
  /** Consumes inbox entries, folds their events, keeps dead letters and install states, in one step. Returns the orders that changed. */
  commitIntake(commits: IntakeCommit[]): Promise<string[]>;
  /** An entry whose platform did not answer: tried again at retry.retryAt. Lets go of the claim, whether or not the write succeeded. */
  deferInbox(key: string, retry: EntryRetry): Promise<void>;
  /**
   * Lets go of an inbox entry without committing anything (its handling
   * failed): it may be taken again from retryAt. Called in intake's `finally`,
   * so that no failure strands an entry; a store that cannot be reached lets
   * the lease expire instead.
   */
  releaseEntry(owner: string, key: string, retryAt: Date): Promise<void>;
  inboxEntry(key: string): Promise<InboxEntry | undefined>;
  /** When the earliest deferred entry is due again, if the store can tell. */
  nextInboxAt(): Promise<number | undefined>;
  /** Called when something became due: new inbox entries, folded orders. */
  onWork(listener: () => void): void;

  // --- Orders.
  getOrder(key: string): Promise<OrderRecord | undefined>;
  listOrders(query: OrderQuery): Promise<{ total: number; orders: OrderSummary[] }>;
  countOrders(): Promise<OrderCounts>;
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
  /**
   * The heartbeat of work under way: extends by leaseMs the leases of these
   * claims (orders from claimDue, or inbox entries from claimInbox) and
   * returns those still held. A claim missing from the answer was released,
   * or claimed anew (by another instance, or another claim of this one) after
   * its lease expired: its holder must stop working on it.
   */
  renewClaims(kind: ClaimKind, claims: Claim[], leaseMs: number): Promise<Claim[]>;
  /** Saves what the worker did (the progress fields, target and due time) under its lease. */
  saveProgress(record: OrderRecord, options: { owner: string; release: boolean; leaseMs: number }): Promise<SaveResult>;
  /** Lets go of an order without saving (the worker's step failed): due again from retryAt. As releaseEntry, for orders. */
  releaseOrder(owner: string, key: string, retryAt: Date): Promise<void>;
  /** Changes an order's progress outside the worker (a person retried a dead letter) and makes it due now. */
  updateProgress(key: string, change: (record: OrderRecord) => void): Promise<OrderRecord | undefined>;
  /** When the earliest order not due yet becomes due, if the store can tell; of shops claims do not pass over in its lane. */
  nextDueAt(skip?: SkippedShops): Promise<number | undefined>;
  /** Per lane: orders with work pending, how many are due now, and since when the oldest waits. */
  laneCounts(): Promise<Record<Lane, LaneCounts>>;
  /** The same, per shop with work pending: each account's figures are the sum of its shops'. */
  laneCountsByShop(): Promise<ShopLaneCounts[]>;
  /** Whether an order whose calls go to this loyalty account still has work to do (an account is not removed under it). */
  hasWorkFor(account: string): Promise<boolean>;
  /**
   * The shops of orders whose account is not fixed yet (no call made, so no
   * account named): at the upgrade to accounts, what the default account
   * keeps serving. lowdb looks at orders still moving; PostgreSQL at all.
   */
  shopsWithUnfixedOrders(): Promise<Array<{ platform: string; shop: string }>>;
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

  // --- Dead letters.
  addDeadLetter(letter: NewDeadLetter): Promise<DeadLetter>;
  updateDeadLetter(letter: DeadLetter): Promise<void>;
  removeDeadLetter(id: string): Promise<DeadLetter | undefined>;
  /** One dead letter, whole: with the delivery it keeps. */
  getDeadLetter(id: string): Promise<DeadLetter | undefined>;
  /** Every dead letter, oldest first; a store may leave the deliveries' bodies out (getDeadLetter has them). */
  listDeadLetters(): Promise<DeadLetter[]>;
  countDeadLetters(): Promise<number>;

  // --- Records.
  getRecord<T>(kind: RecordKind, id: string): Promise<T | undefined>;
  putRecord<T>(kind: RecordKind, id: string, value: T): Promise<void>;
  /**
   * Keeps the record only if there is none under this id, atomically across
   * instances: the first caller wins. Returns the record there is now, and
   * whether it is the one given.
   */
  addRecord<T>(kind: RecordKind, id: string, value: T): Promise<{ added: boolean; value: T }>;
  /**
   * Changes one record by what it holds now, atomically across instances (a
   * compare-and-set): no other write to the record lands between the read
   * `change` is given and the write it answers with. `change` only decides,
   * and may be called more than once (a transaction tried again), so it must
   * not act. Returns whether a value was written or a record deleted (deleting
   * one that is not there changes nothing), and the record as it is after.
   */
  changeRecord<T>(
    kind: RecordKind,
    id: string,
    change: (current: T | undefined) => RecordChange<T>,
  ): Promise<{ changed: boolean; value: T | undefined }>;
  deleteRecord(kind: RecordKind, id: string): Promise<void>;
  listRecords<T>(kind: RecordKind): Promise<Array<{ id: string; value: T }>>;

  /** The secrets the ledger holds, by the key that sealed them, and what the operator should know (status). */
  secretsStatus(): Promise<SecretsStatus>;

  /**
   * A customer's orders, on every platform and shop, by their e-mail (any case) or their phone (E.164): read
   * through what indexes them (lowdb: each settled chunk's customer filter, PostgreSQL: lb_orders_email and
   * lb_orders_mobile), never the whole ledger. The storefront's count where the service gives no figures.
   */
  customerOrders(customer: { email: string } | { mobile: string }): Promise<OrderRecord[]>;

  // --- Privacy.
  exportCustomer(match: CustomerMatch, redactor: DeliveryRedactor): Promise<CustomerData>;
  /** Erases the customer's personal data from everything the store keeps, copies and backups included; orders keep their facts and points. */
  eraseCustomer(match: CustomerMatch, redactor: DeliveryRedactor, at: string): Promise<ErasureReport>;
  /** Erases everything of one shop. */
  /** Everything of one shop; `keyPrefix`: the dedupe keys that name it (PlatformAdapter.shopKeyPrefix), forgotten too. */
  eraseShop(platform: string, shop: string, keyPrefix?: string): Promise<ErasureReport>;
  /**
   * Rewrites the deliveries kept in the inbox and in dead letters through
   * `trim` (undefined: unchanged), backups included: for bodies kept whole by
   * releases before the ledger kept only what translation reads.
   */
  trimDeliveries(trim: DeliveryTrimmer): Promise<{ inbox: number; deadLetters: number }>;

  // --- Coordination.
  /** Runs fn only if no other holder (another instance) runs the same name now; 'busy' otherwise. */
  exclusive<T>(name: string, fn: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }>;
  stats(): Promise<StoreStats>;

  // --- Moving a ledger.
  exportAll(): AsyncIterable<LedgerItem>;
  importItems(items: LedgerItem[]): Promise<void>;
  /** After a large import: a database brings its planner's statistics up to date, so the first queries do not scan. */
  finishImport?(): Promise<void>;

  /** Keeps a copy of the store as it is now, known good. For stores without backups of their own. */
  backUp?(): Promise<void>;
}

/** A ledger file that is torn, empty or not what we wrote: refuse to start on it. */
export class LedgerDamagedError extends BridgeError<'ledger_damaged'> {
  readonly path: string;
  readonly backup: string | undefined;
  constructor(path: string, why: string, backup?: string) {
    const fix = backup
      ? `The copy from the last good start is ${backup}: check it and copy it over the damaged file (what changed since that start comes back from the platforms' retries and reconciliation), then start again.`
      : `Restore it from your own backup, or move it aside if you accept losing what it held, then start again.`;
    super(
      'ledger_damaged',
      `The ledger file ${path} is damaged (${why}). loyalty-bridge will not start on it, so that no order is forgotten. ${fix}`,
      { fix },
    );
    this.path = path;
    this.backup = backup;
  }
}

/**
 * A ledger file the system would not let us read (permissions, a failing
 * disk, no file handles left). The file may be perfectly good: the advice is
 * about the cause, never "restore the backup", since an older copy would roll
 * progress back and calls already made would be made again.
 */
export class LedgerUnreadableError extends BridgeError {
  readonly path: string;
  /** `code` is the system's (EACCES, EIO, EMFILE, ...). */
  constructor(path: string, code: string, advice: string, cause?: unknown) {
    super(
      code,
      `The ledger file ${path} could not be read (${code}): ${advice}. The file itself is not known to be damaged: do not replace it with a backup, which would roll progress back. Then start again.`,
      { fix: advice, cause },
    );
    this.path = path;
  }
}
