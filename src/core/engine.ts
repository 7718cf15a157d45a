// The core, assembled: a store (lowdb files under DATA_DIR, or PostgreSQL),
// ingestion (the acknowledgement path), intake (translation and folding
// after the answer), the worker (loyalty calls), privacy requests, and the
// pause that refused credentials bring.
import type { Lane } from './lanes.ts';
import { randomUUID } from 'node:crypto';
import type { PlatformAdapter } from './platform-adapter.ts';
import type { Logger } from '../logger.ts';
import { LoyaltyError } from '../loyalty/errors.ts';
import { Adjustments } from './adjustments.ts';
import { AckPressure } from './ack-pressure.ts';
import { ingest, type Ingest, type IngestResult } from './ingest.ts';
import { Intake } from './intake.ts';
import type { OrderEvent } from './order-event.ts';
import type { Policy } from './policy.ts';
import { Privacy } from './privacy.ts';
import { RedeemedPoints, type ReturnActivities } from './redeemed-points.ts';
import type { DeadLetter, LedgerStore, OpenReport, WaitingMatch } from './store/ledger-store.ts';
import { AuthPause } from './worker/auth-pause.ts';
import { DEFAULT_ACCOUNT, alone, singleAccount, type Accounts } from './accounts.ts';
import { limiterOf, type LoyaltyClient } from '../loyalty/client.ts';
import type { OrderIdPrefixes } from './worker/lp-order-ids.ts';
import { pauseOf, Worker, type LoyaltyOperations } from './worker/worker.ts';
import { waitAtMost } from './wait-at-most.ts';

export interface EngineOptions {
  /** The ledger, built by the caller (the composition root picks the backend; the core never does). */
  store: LedgerStore;
  /**
   * The loyalty accounts, each shop's and each order's (accounts.ts). Without
   * it, one account made of client, policy, earnActivityId, probe and
   * redeemReturnActivities serves every shop.
   */
  accounts?: Accounts;
  client?: LoyaltyOperations & Pick<LoyaltyClient, 'earn' | 'redeem'>;
  policy?: Policy;
  earnActivityId?: string;
  logger: Logger;
  dedupeWindowMs?: number;
  /** The store was opened already, by a caller that had to read it before the engine (what the client needs): its report. */
  opened?: OpenReport;
  /** Platform adapters, for translating stored deliveries and reading them for privacy requests. */
  adapterFor?: (platform: string) => PlatformAdapter<unknown> | undefined;
  /** A harmless read of the loyalty service, to learn when refused credentials work again. */
  probe?: () => Promise<unknown>;
  /** First wait before that read (it doubles, up to 5 minutes). */
  probeDelayMs?: number;
  orderIdPrefixes?: OrderIdPrefixes;
  /** Redeemed points to the activity that gives as many back (REDEEM_RETURN_ACTIVITIES). */
  redeemReturnActivities?: ReturnActivities;
  /** Who this instance is, when several share a store. */
  owner?: string;
  /** Poll a shared store this often (other instances' work); unset for a store only this process writes. */
  pollMs?: number;
  worker?: {
    concurrency?: number;
    backfillMinShare?: number;
    maxRetryAgeMs?: number;
    maxUnknownFailures?: number;
    retryMinDelayMs?: number;
    retryMaxDelayMs?: number;
    leaseMs?: number;
    budgetSpentLongMs?: number;
  };
  intake?: {
    concurrency?: number;
    maxRetryAgeMs?: number;
    retryMinDelayMs?: number;
    retryMaxDelayMs?: number;
    leaseMs?: number;
  };
  onPauseChange?: (paused: boolean) => void;
  now?: () => Date;
}

export type RetryOutcome = { retried: true } | { retried: false; reason: string };

export interface Engine {
  store: LedgerStore;
  ingest: Ingest;
  intake: Intake;
  worker: Worker;
  privacy: Privacy;
  adjustments: Adjustments;
  /** Orders whose redeemed points a cancellation left taken, and the click that gives them back. */
  redeemedPoints: RedeemedPoints;
  /** The loyalty accounts the worker calls, each with its own pause. */
  accounts: Accounts;
  openReport: OpenReport;
  /** Starts intake and the worker. openEngine() leaves this to the caller; startEngine() does it. */
  startWorker(): Promise<void>;
  /** Starts intake alone and waits until every accepted delivery is folded into its orders (the worker not yet calling). */
  foldInbox(): Promise<void>;
  /** Order events in neutral form (resync, tests): durable when it resolves. */
  accept(key: string, events: OrderEvent[], aliases?: string[]): Promise<IngestResult>;
  /** A person retries a dead letter: a call is sent again, a delivery read again. */
  /** A person's retry of one letter is live work; a bulk retry passes 'backfill'. */
  retryDeadLetter(letter: DeadLetter, lane?: Lane): Promise<RetryOutcome>;
  /**
   * Removes a dead letter a person gave up on; one of an order's redeems settles what it held (Worker.discarded).
   * Undefined when there is no such letter (retried or discarded meanwhile).
   */
  discardDeadLetter(id: string): Promise<DeadLetter | undefined>;
  /** Makes due now the orders waiting for what just happened (a shop linked, an account let in again), and wakes the worker. */
  wakeWaiting(match: WaitingMatch): Promise<number>;
  /** Waits until every accepted delivery is folded and nothing is due now (retries waiting for a time do not count). */
  drain(): Promise<void>;
  /** Stops taking work, waits up to timeoutMs for calls under way, flushes the store. */
  stop(timeoutMs?: number): Promise<void>;
}

/** Opens the store (refusing a damaged one) without making any call yet. */
export async function openEngine(options: EngineOptions): Promise<Engine> {
  const now = options.now ?? (() => new Date());
  const dedupeWindowMs = options.dedupeWindowMs ?? 7 * 24 * 60 * 60_000;
  const owner = options.owner ?? randomUUID();
  const store = options.store;
  const openReport = options.opened ?? (await store.open());
  reportOpening(openReport, options.logger);

  let worker: Worker | undefined;
  const wakeWaiting = async (match: WaitingMatch) => {
    const woken = await store.wakeWaiting(match);
    worker?.wake();
    return woken;
  };
  const accounts =
    options.accounts ?? singleAccountOf(options, () => void wakeWaiting({ waitingFor: pauseOf(DEFAULT_ACCOUNT) }));
  const parts = engineParts(options, store, accounts, owner, now);
  worker = parts.worker;
  const { adapterFor, privacy, intake, entry, adjustments, redeemedPoints } = parts;

  await store.pruneSeen(new Date(now().getTime() - dedupeWindowMs));
  // The ledger just opened whole: keep that picture as the last good copy, in the background.
  const backup = store
    .backUp()
    .catch((error: unknown) => options.logger.warn({ err: error }, 'could not back up the ledger'));
  const theWorker = worker;
  const running: Running = { intake: false, worker: false, pruner: undefined };
  const startIntake = () => {
    if (running.intake) return;
    running.intake = true;
    intake.start();
  };

  return {
    store,
    ingest: entry,
    intake,
    worker: theWorker,
    privacy,
    adjustments,
    redeemedPoints,
    accounts,
    openReport,
    async startWorker() {
      startIntake();
      running.worker = true;
      theWorker.start();
      running.pruner = pruneHourly(store, now, dedupeWindowMs, options.logger);
    },
    async foldInbox() {
      startIntake();
      await intake.idle();
    },
    accept: (key, events, aliases) => entry.events(key, events, aliases),
    wakeWaiting,
    retryDeadLetter: (letter, lane = 'live') =>
      retryLetter({ store, adjustments, worker: theWorker, adapterFor, entry }, letter, lane),
    discardDeadLetter: (id) => discardLetter(store, theWorker, id),
    drain: () => drainEngine(store, intake, theWorker, running, now),
    async stop(timeoutMs = 10_000) {
      clearInterval(running.pruner);
      running.intake = running.worker = false;
      accounts.stop();
      await backup;
      // A call still under way at the deadline is left: its intent is durable, and it is made again after restart.
      await waitAtMost(Promise.all([intake.stop(), theWorker.stop()]), timeoutMs);
      await store.close();
    },
  };
}

/** What of the engine has been started, and the hourly prune of seen deliveries. */
interface Running {
  intake: boolean;
  worker: boolean;
  pruner: NodeJS.Timeout | undefined;
}

/** What the store's opening found, told once a start. */
function reportOpening(openReport: OpenReport, logger: Logger): void {
  if (openReport.tornInboxFiles > 0) {
    logger.warn(
      { torn: openReport.tornInboxFiles },
      'inbox files cut short by a crash were dropped; their deliveries had not been acknowledged, so the platforms send them again',
    );
  }
  if (openReport.upgraded)
    logger.info({ upgraded: openReport.upgraded }, 'the ledger was brought up to date with this version');
  // Once a start: what was sealed, and what the operator must do (a key to make, a previous key to drop).
  for (const note of openReport.secrets?.notes ?? []) logger[note.level](`secrets at rest: ${note.message}`);
}

type AdapterFor = (platform: string) => PlatformAdapter<unknown> | undefined;

/** The engine's parts, built in this order around one store and its accounts. */
function engineParts(options: EngineOptions, store: LedgerStore, accounts: Accounts, owner: string, now: () => Date) {
  const adapterFor: AdapterFor = options.adapterFor ?? (() => undefined);
  const privacy = new Privacy({ store, adapterFor, logger: options.logger, accounts, now });
  const workerOptions = options.worker ?? {};
  const worker = new Worker({
    store,
    accounts,
    logger: options.logger,
    owner,
    orderIdPrefixes: options.orderIdPrefixes ?? {},
    pollMs: options.pollMs,
    now,
    ...workerOptions,
  });
  // Folding steps back while acknowledgements compete for a saturated event loop (ack-pressure.ts).
  const ackPressure = new AckPressure();
  const intake = new Intake({
    store,
    adapterFor,
    privacy,
    logger: options.logger,
    owner,
    pollMs: options.pollMs,
    now,
    ackPressure,
    ...options.intake,
  });
  const entry = ingest(store, now, ackPressure);
  const adjustments = new Adjustments(store, accounts, options.logger);
  const redeemedPoints = new RedeemedPoints({ store, adjustments, accounts, now });
  return { adapterFor, privacy, worker, intake, entry, adjustments, redeemedPoints };
}

/** Forgets seen deliveries past the dedupe window, every hour, without keeping the process alive. */
function pruneHourly(store: LedgerStore, now: () => Date, dedupeWindowMs: number, logger: Logger): NodeJS.Timeout {
  const pruner = setInterval(
    () =>
      void store
        .pruneSeen(new Date(now().getTime() - dedupeWindowMs))
        .catch((error: unknown) => logger.error({ err: error }, 'pruning seen deliveries failed')),
    60 * 60_000,
  );
  pruner.unref();
  return pruner;
}

/** What a person's retry of a dead letter uses. */
interface RetryParts {
  store: LedgerStore;
  adjustments: Adjustments;
  worker: Worker;
  adapterFor: AdapterFor;
  entry: Ingest;
}

async function retryLetter(parts: RetryParts, letter: DeadLetter, lane: Lane): Promise<RetryOutcome> {
  if (letter.adjustmentId) return retryAdjustment(parts, letter, letter.adjustmentId);
  if (letter.kind === 'call') return retryCall(parts, letter, lane);
  return readAgain(parts, letter, lane);
}

/** An adjustment's letter: the adjustment is sent again. */
async function retryAdjustment(
  { store, adjustments }: RetryParts,
  letter: DeadLetter,
  adjustmentId: string,
): Promise<RetryOutcome> {
  const result = await adjustments.resend(adjustmentId);
  if (!result) return { retried: false, reason: 'the adjustment it would send again is no longer kept (erased?)' };
  if (result.adjustment.outcome === 'success') {
    await store.removeDeadLetter(letter.id);
    return { retried: true };
  }
  if (result.deadLetter) await store.removeDeadLetter(letter.id);
  return { retried: false, reason: result.adjustment.message };
}

/** A call's letter: the worker makes the order's call again. */
async function retryCall({ store, worker }: RetryParts, letter: DeadLetter, lane: Lane): Promise<RetryOutcome> {
  if (!letter.orderKey) return { retried: false, reason: 'this dead letter names no order' };
  // Whoever removes it retries it: two retries at once (two tabs, the operator and the merchant) make one.
  if (!(await store.removeDeadLetter(letter.id)))
    return { retried: false, reason: 'this dead letter was retried or discarded meanwhile' };
  try {
    await worker.retry(letter.orderKey, letter.id, lane);
  } catch (error) {
    // The order still holds the call for this letter: the letter goes back, so it can be retried again.
    await store.addDeadLetter(letter);
    throw error;
  }
  // A sweeper's pass between the two put the letter back (refused-codes.ts): the order holds it no more.
  await store.removeDeadLetter(letter.id);
  return { retried: true };
}

/** A delivery's letter: the delivery is read again. */
async function readAgain(
  { store, adapterFor, entry }: RetryParts,
  letter: DeadLetter,
  lane: Lane,
): Promise<RetryOutcome> {
  const delivery = letter.delivery;
  const adapter = delivery ? adapterFor(delivery.platform) : undefined;
  if (!delivery || !adapter)
    return { retried: false, reason: `no ${letter.platform ?? 'platform'} adapter is configured to read it` };
  // Read again now, so that the person learns at once whether the cause is fixed.
  let reason: string;
  try {
    const translation = await adapter.translate(delivery);
    if (translation.kind !== 'unusable') {
      const key = `${letter.deliveryKey ?? letter.id}:retry:${letter.retries + 1}`;
      await (translation.kind === 'events'
        ? entry.events(key, translation.events, [], lane)
        : entry.delivery(key, delivery, [], lane));
      await store.removeDeadLetter(letter.id);
      return { retried: true };
    }
    reason = translation.reason;
  } catch (error) {
    reason = error instanceof LoyaltyError ? error.summary : (error as Error).message;
  }
  await store.updateDeadLetter({ ...letter, reason, retries: letter.retries + 1 });
  return { retried: false, reason };
}

async function discardLetter(store: LedgerStore, worker: Worker, id: string): Promise<DeadLetter | undefined> {
  // Whoever removes it handles it: two discards at once (two tabs) settle once.
  const letter = await store.removeDeadLetter(id);
  if (letter?.kind === 'call' && letter.operation === 'redeem' && letter.orderKey) {
    await worker.discarded(letter.orderKey, letter);
    // As a retry's: a letter put back meanwhile names a choice made.
    await store.removeDeadLetter(letter.id);
  }
  return letter;
}

/** Waits until every accepted delivery is folded and nothing is due now (Engine.drain). */
async function drainEngine(store: LedgerStore, intake: Intake, worker: Worker, running: Running, now: () => Date) {
  // Idle loops are not enough: one may not have been woken yet for work the store already holds.
  // 'now': work is due; 'budget': only orders let go while their account's budget was spent, due when it
  // returns (still this drain's to wait for, but not worth asking the store about every few milliseconds).
  const workWaiting = async (): Promise<'now' | 'budget' | undefined> => {
    const at = now().getTime();
    const [inbox, due] = await Promise.all([store.nextInboxAt(), store.nextDueAt()]);
    if (running.intake && inbox !== undefined && inbox <= at) return 'now';
    if (!running.worker || due === undefined) return undefined;
    if (due <= at) return 'now';
    return due <= Math.max(at, ...worker.spentBudgets.values()) ? 'budget' : undefined;
  };
  for (let calm = 0; calm < 2;) {
    await intake.idle();
    await worker.idle();
    await new Promise((resolve) => setImmediate(resolve));
    const waiting = intake.isIdle && worker.isIdle ? await workWaiting() : 'now';
    if (waiting) await new Promise((resolve) => setTimeout(resolve, waiting === 'budget' ? 50 : 5));
    calm = waiting ? 0 : calm + 1;
  }
}

/** The one account the legacy options describe, serving every shop. */
function singleAccountOf(options: EngineOptions, wake: () => void): Accounts {
  if (!options.client || !options.policy || options.earnActivityId === undefined)
    throw new Error('the engine needs accounts, or the client, policy and earnActivityId of its one account');
  const authPause = new AuthPause({
    account: { id: DEFAULT_ACCOUNT, name: 'default' },
    probe: options.probe ?? (() => Promise.resolve()),
    logger: options.logger,
    onResume: wake,
    ...(options.probeDelayMs ? { minProbeDelayMs: options.probeDelayMs } : {}),
    ...(options.onPauseChange ? { onChange: options.onPauseChange } : {}),
  });
  const limiter = limiterOf(options.client);
  return singleAccount({
    id: DEFAULT_ACCOUNT,
    name: 'default',
    pool: alone(DEFAULT_ACCOUNT),
    client: options.client,
    policy: options.policy,
    earnActivityId: options.earnActivityId,
    redeemReturnActivities: options.redeemReturnActivities ?? {},
    authPause,
    // A LoyaltyClient's limiter says when its budget is spent; a stand-in client without one never is.
    ...(limiter ? { reserveCall: (share?: number) => limiter.reserve(share) } : {}),
  });
}

export async function startEngine(options: EngineOptions): Promise<Engine> {
  const engine = await openEngine(options);
  await engine.startWorker();
  return engine;
}
