// The shared store: PostgreSQL, for any number of bridges behind one address. Every change is a transaction,
// durable when its promise resolves. An inbox entry or an order is leased to one claim at a time (FOR UPDATE
// SKIP LOCKED), so a killed instance's work is taken over within seconds; folding and the worker's progress
// write different columns of an order, so neither overwrites the other. This class only wires the concerns
// together, each in its own file.
import { TypedRecordStore, type RawRecords } from '../roles/record-types.ts';
import type { Lane, LaneCounts, ShopLaneCounts, SkippedShops } from '../../lanes.ts';
import type { EntryRetry, InboxEntry } from '../../delivery.ts';
import type { OrderRecord } from '../../order-record.ts';
import type { OrderCounts, OrderSummary } from '../../order-summary.ts';
import type {
  Claim,
  ClaimKind,
  CustomerData,
  CustomerMatch,
  DeadLetter,
  DeliveryRedactor,
  DeliveryTrimmer,
  ErasureReport,
  IntakeCommit,
  LedgerItem,
  LedgerStore,
  NewDeadLetter,
  OpenReport,
  OrderQuery,
  SaveResult,
  SecretsStatus,
  StoreStats,
  WaitingMatch,
} from '../ledger-store.ts';
import { RecordSecrets, type ResealReport } from '../record-secrets.ts';
import { PgDatabase, type PgConnections } from './database.ts';
import * as deadLetters from './dead-letters.ts';
import { exclusive } from './exclusive.ts';
import { GroupCommit, NO_DEADLINE_MS } from './group-commit.ts';
import * as inbox from './inbox.ts';
import { commitIntake } from './intake-commit.ts';
import { renewClaims } from './leases.ts';
import { WorkNotifications } from './notifications.ts';
import { compactCounts, countOrders } from './order-counts.ts';
import { listOrders, storeStats } from './order-list.ts';
import * as orders from './orders.ts';
import * as privacy from './privacy.ts';
import * as records from './records.ts';
import * as transfer from './transfer.ts';

export interface PostgresStoreOptions {
  connections: PgConnections;
  /** Runs the schema migrations, and the sealing of secrets at rest, under their own lock: one instance at a time. */
  migrate: () => Promise<ResealReport | void>;
  /** Seals and opens the secrets of records (SECRETS_KEY); by default, none and plain values allowed. */
  secrets?: RecordSecrets;
  /** How long an acknowledgement may wait for its commit before it is answered with an error (a 503). */
  ackDeadlineMs?: number;
  /** How often the order counts' deltas are folded in. */
  compactEveryMs?: number;
}

export class PostgresStore extends TypedRecordStore implements LedgerStore {
  readonly kind = 'postgres' as const;
  readonly #db: PgDatabase;
  readonly #migrate: () => Promise<ResealReport | void>;
  readonly #work: WorkNotifications;
  readonly #accepts: GroupCommit<inbox.AcceptItem, 'accepted' | 'duplicate'>;
  /**
   * The worker's saves: those made while others commit go together, one
   * statement and one commit for the lot (a drain made two saves an order,
   * each a transaction of its own: the statements' round trips and commits
   * were most of the bridge's and PostgreSQL's CPU on a 2-core machine). A
   * lone save commits at once. No deadline: a save waits as long as its
   * statement would have alone.
   */
  readonly #saves: GroupCommit<orders.ProgressSave, SaveResult | Error>;
  /** The worker's lp_orderid registrations, one before an order's first call: together, as the saves. */
  readonly #lpOrderIds: GroupCommit<orders.LpOrderIdClaim, string | Error>;
  readonly #compactEveryMs: number;
  #compactor: NodeJS.Timeout | undefined;

  constructor({
    connections,
    migrate,
    ackDeadlineMs = 3_000,
    compactEveryMs = 10_000,
    secrets = RecordSecrets.plain(),
  }: PostgresStoreOptions) {
    super();
    this.#db = new PgDatabase(connections, secrets);
    this.#migrate = migrate;
    this.#work = new WorkNotifications(connections.session);
    this.#compactEveryMs = compactEveryMs;
    this.#accepts = new GroupCommit({
      commit: (items) => inbox.acceptBatch(this.#db, items),
      keysOf: (item) => [item.entry.key, ...item.entry.aliases],
      weightOf: (item) => item.json.length,
      deadlineMs: ackDeadlineMs,
    });
    this.#saves = new GroupCommit({
      commit: (saves) => eachAloneWhenOneIsRefused((batch) => orders.saveProgressBatch(this.#db, batch), saves),
      keysOf: (save) => [save.record.key],
      weightOf: () => 1,
      maxItems: 64,
      deadlineMs: NO_DEADLINE_MS,
    });
    this.#lpOrderIds = new GroupCommit({
      commit: (claims) => eachAloneWhenOneIsRefused((batch) => orders.claimLpOrderIds(this.#db, batch), claims),
      keysOf: (claim) => [claim.lpOrderId],
      weightOf: () => 1,
      maxItems: 64,
      deadlineMs: NO_DEADLINE_MS,
    });
  }

  get database(): PgDatabase {
    return this.#db;
  }

  async open(): Promise<OpenReport> {
    const resealed = await this.#migrate();
    await this.#work.listen();
    this.#compactor = setInterval(() => void compactCounts(this.#db).catch(() => undefined), this.#compactEveryMs);
    this.#compactor.unref();
    const counts = await records.countSecrets(this.#db.reader, this.#db.secrets);
    return { tornInboxFiles: 0, secrets: this.#db.secrets.status(counts, resealed ?? undefined) };
  }

  async close(): Promise<void> {
    clearInterval(this.#compactor);
    await this.#work.close();
  }

  onWork(listener: () => void): void {
    this.#work.onWork(listener);
  }

  // --- The acknowledgement path.

  async accept(entry: InboxEntry): Promise<'accepted' | 'duplicate'> {
    const result = await this.#accepts.add(inbox.acceptItem(entry));
    if (result === 'accepted') this.#work.local();
    return result;
  }

  hasSeen = (key: string): Promise<boolean> => inbox.hasSeen(this.#db, key);
  pruneSeen = (before: Date): Promise<void> => inbox.pruneSeen(this.#db, before);

  // --- Intake.

  claimInbox = (owner: string, limit: number, leaseMs: number): Promise<InboxEntry[]> =>
    inbox.claimInbox(this.#db, owner, limit, leaseMs);
  inboxEntry = (key: string): Promise<InboxEntry | undefined> => inbox.inboxEntry(this.#db, key);
  nextInboxAt = (): Promise<number | undefined> => inbox.nextInboxAt(this.#db);
  deferInbox = (owner: string, key: string, retry: EntryRetry): Promise<void> =>
    inbox.deferInbox(this.#db, owner, key, retry);
  releaseEntry = (owner: string, key: string, retryAt: Date): Promise<void> =>
    inbox.releaseEntry(this.#db, owner, key, retryAt);

  async commitIntake(commits: IntakeCommit[]): Promise<string[]> {
    const changed = await commitIntake(this.#db, commits);
    if (changed.length > 0) this.#work.local();
    return changed;
  }

  // --- Orders.

  getOrder = (key: string): Promise<OrderRecord | undefined> => orders.getOrder(this.#db, key);
  listOrders = (query: OrderQuery): Promise<{ total: number; orders: OrderSummary[] }> => listOrders(this.#db, query);
  countOrders = (): Promise<OrderCounts> => countOrders(this.#db);
  /** Where each lane's turns between shops stand on this instance. */
  readonly #turns: orders.ShopTurns = { live: ['', ''], backfill: ['', ''] };
  claimDue = (
    owner: string,
    limit: number,
    leaseMs: number,
    lane?: Lane,
    skipShops?: ReadonlySet<string>,
  ): Promise<OrderRecord[]> => orders.claimDue(this.#db, owner, limit, leaseMs, lane, this.#turns, skipShops);
  renewClaims = (kind: ClaimKind, claims: Claim[], leaseMs: number): Promise<Claim[]> =>
    renewClaims(this.#db, kind, claims, leaseMs);
  saveProgress = async (
    record: OrderRecord,
    options: { owner: string; release: boolean; leaseMs: number },
  ): Promise<SaveResult> => {
    const result = await this.#saves.add({ record, ...options });
    if (result instanceof Error) throw result;
    return result;
  };
  releaseOrder = (owner: string, key: string, retryAt: Date): Promise<void> =>
    orders.releaseOrder(this.#db, owner, key, retryAt);
  nextDueAt = (skip?: SkippedShops): Promise<number | undefined> => orders.nextDueAt(this.#db, skip);
  laneCounts = (): Promise<Record<Lane, LaneCounts>> => orders.laneCounts(this.#db);
  laneCountsByShop = (): Promise<ShopLaneCounts[]> => orders.laneCountsByShop(this.#db);
  wakeWaiting = async ({ waitingFor, platform, shop }: WaitingMatch): Promise<number> => {
    const { rows } = await this.#db.query<{ key: string }>(
      `SELECT key FROM lb_orders
        WHERE (progress->'work'->>'waitingFor' = $1 OR ($3::text IS NOT NULL AND lease_until > now()))
          AND ($2::text IS NULL OR platform = $2) AND ($3::text IS NULL OR shop = $3)`,
      [waitingFor, platform ?? null, shop ?? null],
    );
    for (const { key } of rows) await this.updateProgress(key, () => undefined);
    return rows.length;
  };
  shopsWithUnfixedOrders = async (): Promise<Array<{ platform: string; shop: string }>> =>
    (
      await this.#db.query<{ platform: string; shop: string }>(
        "SELECT DISTINCT platform, shop FROM lb_orders WHERE progress->'upstream'->>'account' IS NULL",
      )
    ).rows;

  hasWorkFor = async (account: string): Promise<boolean> =>
    (
      await this.#db.query<{ found: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM lb_orders WHERE due_at IS NOT NULL AND progress->'upstream'->>'account' = $1) AS found`,
        [account],
      )
    ).rows[0]?.found === true;
  claimLpOrderId = async (lpOrderId: string, orderKey: string): Promise<string> => {
    const owner = await this.#lpOrderIds.add({ lpOrderId, key: orderKey });
    if (owner instanceof Error) throw owner;
    return owner;
  };

  async updateProgress(key: string, change: (record: OrderRecord) => void): Promise<OrderRecord | undefined> {
    const updated = await orders.updateProgress(this.#db, key, change);
    if (updated) this.#work.local();
    return updated;
  }

  // --- Dead letters.

  addDeadLetter = (letter: NewDeadLetter): Promise<DeadLetter> => deadLetters.addDeadLetter(this.#db, letter);
  updateDeadLetter = (letter: DeadLetter): Promise<void> => deadLetters.updateDeadLetter(this.#db, letter);
  removeDeadLetter = (id: string): Promise<DeadLetter | undefined> => deadLetters.removeDeadLetter(this.#db, id);
  getDeadLetter = (id: string): Promise<DeadLetter | undefined> => deadLetters.getDeadLetter(this.#db, id);
  listDeadLetters = (): Promise<DeadLetter[]> => deadLetters.listDeadLetters(this.#db);
  countDeadLetters = (): Promise<number> => deadLetters.countDeadLetters(this.#db);

  // --- Records: the methods are TypedRecordStore's, over the rows' raw values.
  protected rawRecords(): RawRecords {
    return {
      get: (kind, id) => records.getRecord<unknown>(this.#db, kind, id),
      put: (kind, id, value) => records.putRecord(this.#db.writer, this.#db.secrets, kind, id, value),
      add: (kind, id, value) => records.addRecord<unknown>(this.#db, kind, id, value),
      change: (kind, id, change) => records.changeRecord<unknown>(this.#db, kind, id, change),
      delete: (kind, id) => records.deleteRecord(this.#db, kind, id),
      list: (kind, under) => records.listRecords<unknown>(this.#db, kind, under),
    };
  }

  secretsStatus = async (): Promise<SecretsStatus> =>
    this.#db.secrets.status(await records.countSecrets(this.#db.reader, this.#db.secrets));

  customerOrders = (customer: { email: string } | { mobile: string }): Promise<OrderRecord[]> =>
    privacy.ordersOfCustomer(this.#db.reader, customer);

  // --- Privacy.

  exportCustomer = (match: CustomerMatch, redactor: DeliveryRedactor): Promise<CustomerData> =>
    privacy.exportCustomer(this.#db, match, redactor);
  eraseCustomer = (match: CustomerMatch, redactor: DeliveryRedactor, at: string): Promise<ErasureReport> =>
    privacy.eraseCustomer(this.#db, match, redactor, at);
  eraseShop = (platform: string, shop: string, keyPrefix?: string): Promise<ErasureReport> =>
    privacy.eraseShop(this.#db, platform, shop, keyPrefix);
  trimDeliveries = (trim: DeliveryTrimmer): Promise<{ inbox: number; deadLetters: number }> =>
    privacy.trimDeliveries(this.#db, trim);

  // --- Coordination.

  exclusive = <T>(name: string, fn: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }> =>
    exclusive(this.#db, name, fn);
  stats = (): Promise<StoreStats> => storeStats(this.#db);

  // --- Moving a ledger.

  exportAll = (): AsyncIterable<LedgerItem> => transfer.exportAll(this.#db);
  finishImport = (): Promise<void> => transfer.finishImport(this.#db);
  /** A database is backed up by its operator (pg_dump, docs/production.md), not by the bridge. */
  backUp = (): Promise<void> => Promise.resolve();

  async importItems(items: LedgerItem[]): Promise<void> {
    await transfer.importItems(this.#db, items);
    this.#work.local();
  }
}

/**
 * A batch (of saves, or of registrations) as one statement; when PostgreSQL
 * refuses that statement for what one item holds (its SQLSTATE says so: not a
 * lost connection, after which the batch may have committed), nothing of it
 * was written, and each item is tried again alone, so that only the one
 * PostgreSQL cannot take fails (a loyalty service's error text with a NUL,
 * say). Before this, one such item failed every other order's in its batch.
 */
async function eachAloneWhenOneIsRefused<T, R>(
  commit: (items: readonly T[]) => Promise<R[]>,
  items: readonly T[],
): Promise<Array<R | Error>> {
  try {
    return await commit(items);
  } catch (error) {
    if (items.length === 1 || !refusedByTheServer(error)) throw error;
    return Promise.all(
      items.map((item) =>
        commit([item]).then(
          ([result]) => result!,
          (alone: unknown) => (alone instanceof Error ? alone : new Error(String(alone))),
        ),
      ),
    );
  }
}

/** An error the server sent for the statement (it rolled back), not one of a connection that may have committed. */
function refusedByTheServer(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return false;
  // 08 connection, 53 resources, 57 operator intervention (a shutdown), 58 system, XX internal: the outcome is unknown.
  return !['08', '53', '57', '58', 'XX'].includes(code.slice(0, 2));
}
