// The worker's options and their defaults, and what its parts read of it once it is made (WorkerHooks).
// Apart from worker.ts so that its parts can name them without importing the worker (no import cycle).
import { randomUUID } from 'node:crypto';
import type { CoverChecks } from '../storefront/cover-checks.ts';
import type { RewardCodes } from '../storefront/reward-codes.ts';
import type { CustomerCallListener } from '../customer-calls.ts';
import { LaneCalls } from '../lanes.ts';
import { BUDGET_SPENT_LONG_MS } from './account-budgets.ts';
import type { Logger } from '../../logger.ts';
import { DEFAULT_LEASE_MS } from '../leases.ts';
import type { OrderWorkRole, DeadLetterRole, RecordRole, LedgerLifecycle } from '../store/ledger-store.ts';
import type { Accounts } from '../accounts.ts';
import type { OrderIdPrefixes } from './lp-order-ids.ts';

export interface WorkerOptions {
  store: OrderWorkRole & DeadLetterRole & RecordRole & LedgerLifecycle;
  /** Each order's account: its client, rules and pause (accounts.ts). */
  accounts: Accounts;
  logger: Logger;
  /** Who leases orders, when several bridges share a store. */
  owner?: string;
  /** Orders worked on at once. The rate limiter, not this, sets the pace. */
  concurrency?: number;
  /** Retryable failures are retried until the first failure is this old, then dead-lettered. */
  maxRetryAgeMs?: number;
  /** Failures in words the service does not document are retried this many times, then dead-lettered. */
  maxUnknownFailures?: number;
  retryMinDelayMs?: number;
  retryMaxDelayMs?: number;
  orderIdPrefixes?: OrderIdPrefixes;
  /** How long an order of a shop linked to no account waits before it is looked at again; a link wakes it at once. */
  unlinkedRecheckMs?: number;
  /** Poll a shared store this often for orders other instances left. */
  pollMs?: number | undefined;
  /** How long an order stays with an instance that stopped renewing its lease (it died) before another takes it over. */
  leaseMs?: number;
  /** The part of the worker's slots kept for backfill while live work has them all busy (BACKFILL_MIN_SHARE). */
  backfillMinShare?: number;
  /** How long a budget is spent with no real break before it is a problem to show (tests hurry it). */
  budgetSpentLongMs?: number;
  /** Calls per lane, counted for status and metrics. */
  laneCalls?: LaneCalls;
  now?: () => Date;
  random?: () => number;
}

/** The options with every default filled in. */
export type WorkerSettings = Required<Omit<WorkerOptions, 'pollMs'>> & Pick<WorkerOptions, 'pollMs'>;

const HOUR = 60 * 60 * 1000;

export function withDefaults(options: WorkerOptions): WorkerSettings {
  return {
    owner: randomUUID(),
    concurrency: 32,
    leaseMs: DEFAULT_LEASE_MS,
    maxRetryAgeMs: 72 * HOUR,
    maxUnknownFailures: 5,
    retryMinDelayMs: 5_000,
    retryMaxDelayMs: 15 * 60_000,
    orderIdPrefixes: {},
    unlinkedRecheckMs: 6 * HOUR,
    backfillMinShare: 0.2,
    budgetSpentLongMs: BUDGET_SPENT_LONG_MS,
    laneCalls: new LaneCalls(),
    now: () => new Date(),
    random: Math.random,
    ...options,
  };
}

/**
 * The worker's public fields, set by whoever made it after it was made: its parts read them each time they
 * use them, never keep a copy.
 */
export interface WorkerHooks {
  readonly rewardCodes: Pick<RewardCodes, 'claimForOrder' | 'redeemFor' | 'settled'> | undefined;
  readonly coverChecks: Pick<CoverChecks, 'cancelling' | 'check'> | undefined;
  readonly customerCalls: ReadonlySet<CustomerCallListener>;
}

/** What an order of a paused account waits for (work.waitingFor): that account let in again. */
export const pauseOf = (account: string) => `pause:${account}`;
