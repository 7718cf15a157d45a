// The embedded store: lowdb files under DATA_DIR, for one bridge (the layout: docs/ledger.md). Every write
// is fdatasynced, with its directory, before it resolves; the folder is its owner's only, since it holds
// customers' contact details and platform access tokens. Each kind's operations live in their own files;
// this one puts the parts together. What keeps it right under concurrency: one object per file, the writes
// of a file in order, and every claim released in the worker's or intake's `finally`.
import { filterKey, mayHold, orderKeys } from './customer-filter.ts';
import { asRecord, kindOf, type KindOrType } from '../roles/record-types.ts';
import type { Lane, LaneCounts, ShopLaneCounts, SkippedShops } from '../../lanes.ts';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readdir, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import PQueue from 'p-queue';
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
  RecordChange,
  SaveResult,
  SecretsStatus,
  ShopState,
  StoreStats,
  WaitingMatch,
} from '../ledger-store.ts';
import { LEDGER_FORMAT } from '../format/ledger-format.ts';
import { noSecrets, RecordSecrets } from '../record-secrets.ts';
import { ActiveOrders } from './active-orders.ts';
import { backUp, BACKUP, backUpFiles } from './backup.ts';
import { DeadLetterFiles } from './dead-letters.ts';
import { checkFormatFile, writeFormatFile } from './format-file.ts';
import { GroupCommit } from './group-commit.ts';
import { HashedMap } from './hashed-map.ts';
import { Inbox } from './inbox.ts';
import { IntakeOperations } from './intake-operations.ts';
import type { LedgerIo } from './ledger-io.ts';
import { exportAll, importItems } from './ledger-transfer.ts';
import { OrderOperations } from './order-operations.ts';
import type { LowdbParts } from './parts.ts';
import { PrivacyOperations } from './privacy-operations.ts';
import { RecordFiles } from './record-files.ts';
import { SettledOrders } from './settled-orders.ts';

/** Written by a clean stop, removed at start: its absence means the last run crashed. */
const CLEAN_STOP = 'stopped-cleanly';

export interface LowdbStoreOptions {
  dataDir: string;
  /** For status and listing by the CLI while a bridge runs: reads, never writes or deletes. */
  readOnly?: boolean;
  dedupeWindowMs?: number;
  /** An order with nothing due, quiet this long, leaves memory for the settled chunks. */
  settleAfterMs?: number;
  activePartitionSize?: number;
  /** The active orders' journal size (characters) from which a round writes their partitions instead (tests make it tiny). */
  activeJournalLimit?: number;
  settledChunkSize?: number;
  /** Files kept open when nobody uses them: settled chunks and index files. Tests make them tiny, so that files are let go of all the time. */
  openFiles?: { chunks?: number; indexFiles?: number };
  /** Off only for a bulk load that acknowledges nothing (seeding a benchmark). */
  fsync?: boolean;
  /** The file I/O: node:fs, or a test's that schedules and fails it. */
  io?: LedgerIo;
  now?: () => Date;
  /** Seals and opens the secrets of records (SECRETS_KEY); by default, none and plain values allowed. */
  secrets?: RecordSecrets;
}

export class LowdbStore implements LedgerStore {
  readonly kind = 'lowdb' as const;
  readonly #p: LowdbParts;
  readonly #dedupeWindowMs: number;
  readonly #settleAfterMs: number;
  readonly #orders: OrderOperations;
  readonly #intake: IntakeOperations;
  readonly #privacy: PrivacyOperations;
  readonly #secrets: RecordSecrets;
  readonly #exclusive = new Set<string>();
  readonly #listeners: Array<() => void> = [];
  #sweeper: NodeJS.Timeout | undefined;

  constructor({
    dataDir,
    readOnly = false,
    dedupeWindowMs = 7 * 24 * 60 * 60_000,
    settleAfterMs = 2 * 60_000,
    activePartitionSize,
    activeJournalLimit,
    settledChunkSize,
    openFiles = {},
    fsync = true,
    io,
    now = () => new Date(),
    secrets = RecordSecrets.plain(),
  }: LowdbStoreOptions) {
    this.#dedupeWindowMs = dedupeWindowMs;
    this.#secrets = secrets;
    this.#settleAfterMs = settleAfterMs;
    const commit = new GroupCommit({ sync: fsync, ...(io ? { io } : {}) });
    const backupOf = (path: string): string | undefined => {
      const backup = join(dataDir, BACKUP, relative(dataDir, path));
      return existsSync(backup) ? backup : undefined;
    };
    const inbox = new Inbox(dataDir, commit, { readOnly, now });
    inbox.onAccepted = () => this.#notify();
    const active = new ActiveOrders(join(dataDir, 'orders'), commit, {
      ...(activePartitionSize ? { partitionSize: activePartitionSize } : {}),
      ...(activeJournalLimit !== undefined ? { journalLimit: activeJournalLimit } : {}),
      readOnly,
      backupOf,
    });
    this.#p = {
      dir: dataDir,
      readOnly,
      now,
      commit,
      inbox,
      active,
      settled: new SettledOrders(join(dataDir, 'orders'), commit, {
        ...(settledChunkSize ? { chunkSize: settledChunkSize } : {}),
        ...(openFiles.chunks ? { openChunks: openFiles.chunks } : {}),
        ...(openFiles.indexFiles ? { openIndexFiles: openFiles.indexFiles } : {}),
        readOnly,
        backupOf,
      }),
      lpOrderIds: new HashedMap(join(dataDir, 'lp-order-ids'), commit, {
        readOnly,
        journalLimit: activeJournalLimit ?? 2_000_000,
        ...(openFiles.indexFiles ? { cachedFiles: openFiles.indexFiles } : {}),
      }),
      records: new RecordFiles(dataDir, commit, backupOf, secrets),
      deadLetters: new DeadLetterFiles(dataDir, commit, now),
      serial: new PQueue({ concurrency: 1 }),
      flush: () => commit.flush(),
      notify: () => this.#notify(),
    };
    this.#orders = new OrderOperations(this.#p, settleAfterMs);
    this.#intake = new IntakeOperations(this.#p, this.#orders);
    this.#privacy = new PrivacyOperations(this.#p, () => this.backUp());
  }

  #path(...parts: string[]) {
    return join(this.#p.dir, ...parts);
  }

  async open(): Promise<OpenReport> {
    const { readOnly, inbox, active, settled, lpOrderIds, records, deadLetters } = this.#p;
    // Before anything is touched: a ledger of a newer format is refused as it is.
    const upgradeFrom = existsSync(this.#p.dir) ? await checkFormatFile(this.#p.commit.io, this.#p.dir) : 0;
    const hadLedger = existsSync(this.#path('orders'));
    if (!readOnly) {
      for (const sub of ['', 'inbox', 'orders', 'seen']) await mkdir(this.#path(sub), { recursive: true, mode: 0o700 });
      await chmod(this.#p.dir, 0o700);
      await this.#removeStrayTemporaries();
    } else if (!existsSync(this.#path('orders'))) {
      throw new Error(`${this.#p.dir} holds no loyalty-bridge ledger`);
    }
    const tornInboxFiles = await inbox.open(this.#dedupeWindowMs);
    let secrets: SecretsStatus | undefined;
    await active.open();
    const notes = [await settled.open()];
    await lpOrderIds.init();
    await records.open(readOnly);
    notes.push(await deadLetters.open(readOnly));
    if (!readOnly) {
      if (!(await this.#stoppedCleanly())) await this.#orders.mendAfterCrash();
      const moved = await records.upgradeOldFiles();
      if (moved.length > 0) notes.push(`moved ${moved.join(', ')} into records/`);
      // Format 2: secrets sealed, those of earlier releases at the first start with a key. The
      // backups of the files rewritten follow at once, so that no plain copy outlives the start.
      const resealed = records.reseal();
      if (resealed.files.length > 0) {
        await this.#p.commit.flush();
        await backUpFiles(this.#p.dir, resealed.files);
      }
      secrets = this.#secrets.status(records.countSecrets(noSecrets()), resealed);
      // Every record kind reads older formats where it is read (format/upgrade-records.ts): the mark can say current now.
      if (upgradeFrom !== undefined) {
        await writeFormatFile(this.#p.commit.io, this.#p.dir, this.#p.commit.sync);
        if (hadLedger) notes.push(`ledger format ${upgradeFrom} upgraded to format ${LEDGER_FORMAT}`);
      }
      this.#sweeper = setInterval(
        () => void this.settleQuiet().catch(() => undefined),
        Math.max(1_000, Math.min(30_000, this.#settleAfterMs)),
      );
      this.#sweeper.unref();
    }
    const upgraded = notes.filter(Boolean);
    return {
      tornInboxFiles,
      ...(upgraded.length > 0 ? { upgraded: upgraded.join('; ') } : {}),
      secrets: secrets ?? (await this.secretsStatus()),
    };
  }

  /** A write cut short leaves a temporary file with what it was writing: none may outlive a crash (they may hold erased data). */
  async #removeStrayTemporaries(): Promise<void> {
    for (const sub of [
      '',
      'inbox',
      'orders',
      join('orders', 'index'),
      'lp-order-ids',
      'records',
      'seen',
      'dead-letters',
    ]) {
      const names = await readdir(this.#path(sub)).catch(() => [] as string[]);
      for (const name of names.filter((file) => /^\..+\.tmp$/.test(file)))
        await rm(this.#path(sub, name), { force: true });
    }
  }

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    if (this.#p.readOnly) return;
    await this.#p.inbox.settled();
    await this.#p.serial.onIdle();
    await this.#p.deadLetters.idle();
    // The base files whole on disk, the journals empty: what a person or an earlier release reads is all there.
    const journals = [this.#p.active.journal, this.#p.lpOrderIds.journal];
    for (const journal of journals) if (journal?.holdsChanges) journal.compactSoon();
    try {
      await this.#p.flush();
    } finally {
      // The files they held open: emptied journals hold none, but a round that failed may have left one.
      for (const journal of journals) await journal?.release();
    }
    // Everything is on disk: the next start need not look for orders a crash left in two places.
    await this.#p.commit.io.writeNewFile(this.#path(CLEAN_STOP), new Date().toISOString(), this.#p.commit.sync);
    await this.#p.commit.io.syncDirectory(this.#p.dir);
  }

  /** Whether the last process stopped cleanly; the mark is taken away (durably) for this run. */
  async #stoppedCleanly(): Promise<boolean> {
    if (!existsSync(this.#path(CLEAN_STOP))) return false;
    await this.#p.commit.io.remove(this.#path(CLEAN_STOP));
    await this.#p.commit.io.syncDirectory(this.#p.dir);
    return true;
  }

  #notify(): void {
    for (const listener of this.#listeners) listener();
  }

  onWork(listener: () => void): void {
    this.#listeners.push(listener);
  }

  // --- The acknowledgement path.

  accept(entry: InboxEntry): Promise<'accepted' | 'duplicate'> {
    return this.#p.inbox.accept(entry);
  }

  async hasSeen(key: string): Promise<boolean> {
    return this.#p.inbox.hasSeen(key);
  }

  pruneSeen(before: Date): Promise<void> {
    return this.#p.inbox.pruneSeen(before);
  }

  // --- Intake.

  async claimInbox(owner: string, limit: number, _leaseMs?: number): Promise<InboxEntry[]> {
    return this.#intake.claim(limit, owner);
  }

  async inboxEntry(key: string): Promise<InboxEntry | undefined> {
    const entry = this.#p.inbox.entry(key);
    return entry && structuredClone(entry);
  }

  async nextInboxAt(): Promise<number | undefined> {
    return this.#p.inbox.nextRetryAt();
  }

  deferInbox(owner: string, key: string, retry: EntryRetry): Promise<void> {
    return this.#intake.defer(owner, key, retry);
  }

  async releaseEntry(owner: string, key: string, retryAt: Date): Promise<void> {
    this.#intake.releaseEntry(owner, key, retryAt);
  }

  commitIntake(commits: IntakeCommit[]): Promise<string[]> {
    return this.#intake.commit(commits);
  }

  // --- Orders.

  getOrder(key: string): Promise<OrderRecord | undefined> {
    return this.#orders.get(key);
  }

  async claimDue(
    _owner: string,
    limit: number,
    _leaseMs?: number,
    lane?: Lane,
    skipShops?: ReadonlySet<string>,
  ): Promise<OrderRecord[]> {
    return this.#orders.claimDue(limit, lane, skipShops);
  }

  // --- Leases (the heartbeat of the shared worker loop). This store's claims
  // live in this process until saved with release or let go, and do not
  // expire: a claim is held while the due queue holds its order, or the
  // inbox holds its entry for this claim's token.
  async renewClaims(kind: ClaimKind, claims: Claim[], _leaseMs: number): Promise<Claim[]> {
    return claims.filter((claim) =>
      kind === 'orders' ? this.#p.active.due.isHeld(claim.key) : this.#p.inbox.holds(claim.key, claim.owner),
    );
  }

  saveProgress(
    record: OrderRecord,
    { release }: { owner: string; release: boolean; leaseMs: number },
  ): Promise<SaveResult> {
    return this.#orders.saveProgress(record, release);
  }

  async releaseOrder(_owner: string, key: string, retryAt: Date): Promise<void> {
    this.#orders.releaseOrder(key, retryAt);
  }

  updateProgress(key: string, change: (record: OrderRecord) => void): Promise<OrderRecord | undefined> {
    return this.#orders.updateProgress(key, change);
  }

  async hasWorkFor(account: string): Promise<boolean> {
    // An order with work left stays active (in memory); settled ones have none.
    for (const order of this.#p.active.values())
      if (order.dueAt !== null && order.upstream.account === account) return true;
    return false;
  }

  async shopsWithUnfixedOrders(): Promise<Array<{ platform: string; shop: string }>> {
    const shops = new Map<string, { platform: string; shop: string }>();
    for (const { platform, shop, upstream } of this.#p.active.values())
      if (upstream.account === undefined) shops.set(`${platform}:${shop}`, { platform, shop });
    return [...shops.values()];
  }

  async wakeWaiting({ waitingFor, platform, shop }: WaitingMatch): Promise<number> {
    // Orders waiting keep a due time (a late look), so they stay active, in memory.
    const keys = [...this.#p.active.values()]
      .filter(
        (order) =>
          (order.work.waitingFor === waitingFor || (shop !== undefined && this.#p.active.due.isHeld(order.key))) &&
          (platform === undefined || order.platform === platform) &&
          (shop === undefined || order.shop === shop),
      )
      .map((order) => order.key);
    for (const key of keys) await this.updateProgress(key, () => undefined);
    return keys.length;
  }

  async laneCounts(): Promise<Record<Lane, LaneCounts>> {
    return this.#p.active.due.counts(this.#p.now().getTime());
  }

  async laneCountsByShop(): Promise<ShopLaneCounts[]> {
    return this.#p.active.due.countsByShop(this.#p.now().getTime());
  }

  async nextDueAt(skip?: SkippedShops): Promise<number | undefined> {
    return this.#orders.nextDueAt(skip);
  }

  claimLpOrderId(lpOrderId: string, key: string, options?: { durable?: boolean }): Promise<string> {
    return this.#orders.claimLpOrderId(lpOrderId, key, options);
  }

  listOrders(query: OrderQuery): Promise<{ total: number; orders: OrderSummary[] }> {
    return this.#orders.list(query);
  }

  countOrders(): Promise<OrderCounts> {
    return this.#orders.count();
  }

  settleQuiet(): Promise<number> {
    return this.#orders.settleQuiet();
  }

  // --- Dead letters.

  async addDeadLetter(letter: NewDeadLetter): Promise<DeadLetter> {
    const created = await this.#p.deadLetters.upsert(letter);
    await this.#p.flush();
    return created;
  }

  async updateDeadLetter(letter: DeadLetter): Promise<void> {
    await this.#p.deadLetters.update(letter);
    await this.#p.flush();
  }

  async removeDeadLetter(id: string): Promise<DeadLetter | undefined> {
    const letter = await this.#p.deadLetters.remove(id);
    if (letter) await this.#p.flush();
    return letter;
  }

  getDeadLetter(id: string): Promise<DeadLetter | undefined> {
    return this.#p.deadLetters.get(id);
  }

  async listDeadLetters(): Promise<DeadLetter[]> {
    return this.#p.deadLetters.list();
  }

  async countDeadLetters(): Promise<number> {
    return this.#p.deadLetters.size;
  }

  // --- Records.

  async getRecord<T>(kind: KindOrType<T>, id: string): Promise<T | undefined> {
    return asRecord(kind, id, this.#p.records.get(kindOf(kind), id));
  }

  async putRecord<T>(kind: KindOrType<T>, id: string, value: T): Promise<void> {
    this.#p.records.put(kindOf(kind), id, value);
    await this.#p.flush();
  }

  async addRecord<T>(kind: KindOrType<T>, id: string, value: T): Promise<{ added: boolean; value: T }> {
    // One process holds the data directory, and get-then-put runs without a turn of the event loop between them.
    const existing = asRecord(kind, id, this.#p.records.get(kindOf(kind), id));
    if (existing !== undefined) return { added: false, value: existing };
    this.#p.records.put(kindOf(kind), id, value);
    await this.#p.flush();
    return { added: true, value };
  }

  async changeRecord<T>(
    kind: KindOrType<T>,
    id: string,
    change: (current: T | undefined) => RecordChange<T>,
  ): Promise<{ changed: boolean; value: T | undefined }> {
    const result = this.#p.records.change<unknown>(kindOf(kind), id, (current) => change(asRecord(kind, id, current)));
    if (result.changed) await this.#p.flush();
    return { changed: result.changed, value: asRecord(kind, id, result.value) };
  }

  async deleteRecord<T>(kind: KindOrType<T>, id: string): Promise<void> {
    this.#p.records.delete(kindOf(kind), id);
    await this.#p.flush();
  }

  async listRecords<T>(kind: KindOrType<T>): Promise<Array<{ id: string; value: T }>> {
    return this.#p.records.list(kindOf(kind)).map(({ id, value }) => ({ id, value: asRecord(kind, id, value)! }));
  }

  async secretsStatus(): Promise<SecretsStatus> {
    return this.#secrets.status(this.#p.records.countSecrets(noSecrets()));
  }

  async customerOrders(customer: { email: string } | { mobile: string }): Promise<OrderRecord[]> {
    const { active, settled } = this.#p;
    const key = filterKey(customer);
    const theirs = (record: OrderRecord) => orderKeys(record).includes(key);
    const orders: OrderRecord[] = [];
    const seen = new Set<string>();
    const take = (record: OrderRecord) => {
      if (seen.has(record.key) || !theirs(record)) return;
      seen.add(record.key);
      orders.push(structuredClone(record));
    };
    // Active orders are in memory; settled ones are read from the chunks whose filter may hold the customer.
    // The chunks are read outside the serial queue, so orders move meanwhile: one settled after the first pass is
    // taken once (seen), and one an event brought back before its chunk was read left that chunk and is active
    // now, so active orders are looked at again after the chunks. An active copy is the newer one.
    for (const record of active.values()) take(record);
    for await (const record of settled.scan((summary) => mayHold(summary.customers, key)))
      take(active.get(record.key) ?? record);
    for (const record of active.values()) take(record);
    return orders;
  }

  // --- Privacy.

  exportCustomer(match: CustomerMatch, redactor: DeliveryRedactor): Promise<CustomerData> {
    return this.#privacy.exportCustomer(match, redactor);
  }

  eraseCustomer(match: CustomerMatch, redactor: DeliveryRedactor, at: string): Promise<ErasureReport> {
    return this.#privacy.eraseCustomer(match, redactor, at);
  }

  trimDeliveries(trim: DeliveryTrimmer): Promise<{ inbox: number; deadLetters: number }> {
    return this.#privacy.trimDeliveries(trim);
  }

  eraseShop(platform: string, shop: string, keyPrefix?: string): Promise<ErasureReport> {
    return this.#privacy.eraseShop(platform, shop, keyPrefix);
  }

  // --- Coordination.

  async exclusive<T>(name: string, fn: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }> {
    if (this.#exclusive.has(name)) return { ran: false };
    this.#exclusive.add(name);
    try {
      return { ran: true, value: await fn() };
    } finally {
      this.#exclusive.delete(name);
    }
  }

  async stats(): Promise<StoreStats> {
    return { inboxBacklog: this.#p.inbox.size, activeOrders: this.#p.active.size };
  }

  // --- Moving a ledger.

  exportAll(): AsyncIterable<LedgerItem> {
    return exportAll(this.#p);
  }

  importItems(items: LedgerItem[]): Promise<void> {
    return importItems(this.#p, items);
  }

  /** The files hold what was imported as they are: nothing to bring up to date. */
  finishImport(): Promise<void> {
    return Promise.resolve();
  }

  /** Copies every file rewritten in place to DATA_DIR/backup (see backup.ts). */
  async backUp(): Promise<void> {
    if (!this.#p.readOnly) await backUp(this.#p.dir);
  }
}

export type { ShopState };
