// Intake's settings, and what the steps of reading a delivery that live beside intake.ts (its acted-once
// records, its shops' installs, its dead letters and retries) reach of the Intake that runs them.
import type { Logger } from '../logger.ts';
import type { Lease } from './leases.ts';
import type { PlatformAdapter } from './platform-adapter.ts';
import type { Privacy } from './privacy.ts';
import type { IntakeCommit, IntakeRole, LedgerLifecycle, OrderWorkRole, RecordRole } from './store/ledger-store.ts';
import type { YieldTo } from './work-loop.ts';

export interface IntakeOptions {
  store: IntakeRole & OrderWorkRole & RecordRole & LedgerLifecycle;
  adapterFor: (platform: string) => PlatformAdapter<unknown> | undefined;
  privacy: Privacy;
  logger: Logger;
  /** Who leases entries, when several bridges share a store. */
  owner: string;
  concurrency?: number;
  maxRetryAgeMs?: number;
  retryMinDelayMs?: number;
  retryMaxDelayMs?: number;
  /** Poll the shared store this often for entries other instances left. */
  pollMs?: number | undefined;
  /** How long an entry stays with an instance that stopped answering before another takes it. */
  leaseMs?: number;
  /** When acknowledgements compete for the event loop: folding then runs at its minimum share (ack-pressure.ts). */
  ackPressure?: YieldTo;
  now?: () => Date;
  random?: () => number;
}

export const HOUR = 60 * 60_000;

/** The options with their defaults filled in. */
export type ResolvedIntakeOptions = Required<Omit<IntakeOptions, 'pollMs' | 'ackPressure'>> &
  Pick<IntakeOptions, 'pollMs' | 'ackPressure'>;

/** What a step reaches of its Intake: the settings, and the fenced, batched commit (one per Intake). */
export interface IntakeSteps {
  readonly o: ResolvedIntakeOptions;
  commit(commit: IntakeCommit & { ignore?: true }, lease: Lease): Promise<void>;
  stillHeld(lease: Lease): boolean;
}
