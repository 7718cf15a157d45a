// What a failed loyalty call does to its order: retried later with backoff,
// a dead letter for a person, or (refused credentials) a pause of every call.
// Documented refusals are dead letters at once; server and network trouble is
// retried for up to RETRY_MAX_AGE_HOURS; a failure in words the service does
// not document only LOYALTY_UNKNOWN_FAILURE_RETRIES times.
import { LoyaltyError } from '../../loyalty/errors.ts';
import { LimiterUnavailableError } from '../../loyalty/rate-limiter.ts';
import { backoffDelay, type BackoffOptions } from '../backoff.ts';
import type { Action } from '../lifecycle.ts';
import { recordCall, type CallRecord, type OrderRecord } from '../order-record.ts';
import { redemptionOf, setRedemption } from '../redeems.ts';

const HOUR = 60 * 60_000;

export type FailureDecision =
  /** The service refuses our credentials: nothing is counted against the order; every call waits. */
  | { kind: 'pause' }
  | { kind: 'retry'; delayMs: number; message: string }
  /** The failure itself answered the question (a reject found no conversion): plan the order again. */
  | { kind: 'settled'; message: string }
  | { kind: 'dead-letter'; reason: string; httpStatus: number | undefined };

export interface FailurePolicy {
  maxRetryAgeMs: number;
  /** Retries of a failure the service does not document, before it becomes a dead letter. */
  maxUnknownFailures: number;
  backoff: BackoffOptions;
}

/**
 * A call that certainly did not take effect (refused before it was served,
 * never left this machine, or never sent for want of budget): its intent is
 * undone, nothing in doubt, unless a try before this one may have taken
 * effect (`earlierTryInDoubt`): a try that timed out, here or in the client's
 * own retries, or one a crash cut off. That try's intent stays in doubt,
 * whatever a later try was told. An earn's activity goes with it unless
 * `keepActivity`: the next intent takes the activity the settings give then
 * (the merchant's fix of an activity the service refused, say).
 */
export function undoIntent(
  record: OrderRecord,
  action: Action,
  earlierTryInDoubt: boolean,
  { keepActivity = false }: { keepActivity?: boolean } = {},
): void {
  if (earlierTryInDoubt) return;
  const { upstream } = record;
  if (action.kind === 'earn' && upstream.points === 'earning') {
    upstream.points = 'none';
    if (!keepActivity) delete upstream.earnActivityId;
  }
  if (action.kind === 'conversion' && upstream.conversion === 'sending') upstream.conversion = 'none';
  if (action.kind === 'redeem' && redemptionOf(upstream, action.code) === 'sending')
    setRedemption(upstream, action.code, 'none');
}

/** Applies a failed call to the record (in place) and says what comes next. */
export function decideFailure(
  record: OrderRecord,
  action: Action,
  error: unknown,
  now: Date,
  policy: FailurePolicy,
  /** Whether a try of this intent before the one that failed may have taken effect (see undoIntent). */
  earlierTryInDoubt: boolean,
): FailureDecision {
  const failure = error instanceof LoyaltyError ? error : undefined;
  const message = failure?.summary ?? (error as Error).message ?? String(error);

  // An intent whose call certainly did not take effect is not in doubt any more: refused, or never sent because
  // the shared rate limit could not be read.
  const notSent = (failure?.certainlyNotApplied ?? false) || error instanceof LimiterUnavailableError;
  // The earn's activity goes when the service itself refused the try, or the try never left (the shared limit could
  // not be read); not after a network failure or a redirect, which can, rarely, follow a request the service served:
  // a later earn must then name the same activity (an earn is an upsert by activity and order; another adds points).
  const keepActivity = failure !== undefined && (failure.httpStatus === undefined || failure.kind === 'redirected');
  if (notSent) undoIntent(record, action, earlierTryInDoubt, { keepActivity });
  if (failure?.kind === 'invalid_auth') {
    if (action.kind === 'redeem') setRedemption(record.upstream, action.code, 'none');
    return { kind: 'pause' };
  }

  const call: CallRecord = {
    operation: action.kind,
    at: now.toISOString(),
    attempts: 1,
    outcome: 'failed',
    httpStatus: failure?.httpStatus,
    message,
  };
  // Nothing to reject: an add in doubt never landed, or the conversion is gone. Either way no referrer is rewarded for this order.
  if (failure?.kind === 'not_found' && action.kind === 'rejectConversion') {
    const { upstream } = record;
    if (upstream.conversion === 'sending') upstream.conversion = 'void';
    else upstream.conversionStatus = 'rejected';
    const { unknownFailures: _counted, ...work } = record.work;
    record.work = { ...work, attempts: 0, firstFailureAt: null, retryAt: null, lastError: null };
    recordCall(record, { ...call, message: `nothing to reject: ${message}` });
    return { kind: 'settled', message };
  }
  if (action.kind === 'redeem') {
    if (notSent || (failure && !failure.retryable)) {
      setRedemption(record.upstream, action.code, 'none');
    } else {
      // It may have been applied: sending it again could take the points twice.
      recordCall(record, call);
      return {
        kind: 'dead-letter',
        reason: `redeem of ${action.points} points may or may not have been applied (${message}); check the customer's history before retrying`,
        httpStatus: failure?.httpStatus,
      };
    }
  }

  const firstFailureAt = record.work.firstFailureAt ?? now.toISOString();
  const tooOld = now.getTime() - Date.parse(firstFailureAt) >= policy.maxRetryAgeMs;
  // An error that is not the service's answer is ours (the shared rate
  // limit's database was away, say): the service never judged the call, so
  // it is retried like a timeout rather than put before a person.
  const retryable = failure ? failure.retryable : true;
  const unknownFailures = (record.work.unknownFailures ?? 0) + (failure?.kind === 'unknown_failure' ? 1 : 0);
  const tooMany = unknownFailures > policy.maxUnknownFailures;
  if (retryable && !tooOld && !tooMany) {
    const attempts = record.work.attempts + 1;
    const delayMs = backoffDelay(attempts, policy.backoff, failure?.retryAfterMs);
    record.work = {
      ...record.work,
      attempts,
      firstFailureAt,
      retryAt: new Date(now.getTime() + delayMs).toISOString(),
      lastError: message,
      ...(unknownFailures > 0 ? { unknownFailures } : {}),
    };
    recordCall(record, { ...call, outcome: 'retry' });
    return { kind: 'retry', delayMs, message };
  }
  recordCall(record, call);
  const reason = tooMany
    ? `gave up after ${unknownFailures} failures the loyalty service does not document: ${message}`
    : tooOld
      ? `gave up after retrying for ${Math.round(policy.maxRetryAgeMs / HOUR)} h: ${message}`
      : message;
  return { kind: 'dead-letter', reason, httpStatus: failure?.httpStatus };
}

/** The retry state belonged to the dead-lettered call; the order's other calls start afresh, and these wait for a person. */
export function holdCalls(
  record: OrderRecord,
  operations: ReadonlyArray<CallRecord['operation']>,
  deadLetterId: string,
  reason: string,
): void {
  // A fresh count for the calls that go on; the one held starts afresh when a person retries it.
  record.work = {
    attempts: 0,
    firstFailureAt: null,
    retryAt: null,
    lastError: reason,
    held: { ...record.work.held, ...Object.fromEntries(operations.map((operation) => [operation, deadLetterId])) },
  };
}
