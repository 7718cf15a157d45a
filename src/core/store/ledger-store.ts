// What the core needs from durable storage, shaped by transactions rather
// than files, so that the lowdb files (one bridge) and PostgreSQL (many
// bridges behind one address) are interchangeable. Every method that changes
// something resolves only once the change is durable (fsynced, or committed).
import { BridgeError } from '../../errors.ts';
import type { ClaimRenewal } from './roles/claims.ts';
import type { DeadLetterRole } from './roles/dead-letters.ts';
import type { IntakeRole } from './roles/intake.ts';
import type { LedgerLifecycle, LedgerTransfer } from './roles/lifecycle.ts';
import type { OrderWorkRole } from './roles/orders.ts';
import type { PrivacyRole } from './roles/privacy.ts';
import type { OperatorQueries } from './roles/queries.ts';
import type { RecordRole } from './roles/records.ts';

export type { Claim, ClaimKind, ClaimRenewal } from './roles/claims.ts';
export type { DeadLetter, DeadLetterRole, NewDeadLetter } from './roles/dead-letters.ts';
export { withoutEntryGone, type IntakeCommit, type IntakeRole } from './roles/intake.ts';
export type { LedgerItem, LedgerLifecycle, LedgerTransfer, OpenReport } from './roles/lifecycle.ts';
export type { OrderWorkRole, SaveResult, WaitingMatch } from './roles/orders.ts';
export type {
  CustomerData,
  CustomerMatch,
  DeliveryRedactor,
  DeliveryTrimmer,
  ErasureReport,
  PrivacyRole,
} from './roles/privacy.ts';
export type {
  OperatorQueries,
  OrderQuery,
  SecretCounts,
  SecretsNote,
  SecretsStatus,
  StoreStats,
} from './roles/queries.ts';
export type {
  Adjustment,
  PlatformRecordKinds,
  ReconciliationState,
  RecordChange,
  RecordKind,
  RecordRole,
  RecordType,
  ShopState,
} from './roles/records.ts';
export type { OrderCounts } from '../order-summary.ts';

/**
 * The whole ledger, every role at once: what a backend implements, and what the composition root opens and hands out
 * role by role (issue 69). A part of the bridge names the roles it uses (`roles/`), not this.
 */
export type LedgerStore = IntakeRole &
  OrderWorkRole &
  ClaimRenewal &
  OperatorQueries &
  DeadLetterRole &
  RecordRole &
  PrivacyRole &
  LedgerLifecycle &
  LedgerTransfer;

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
