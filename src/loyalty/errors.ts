// One small hierarchy for everything the loyalty service (or the way to it)
// can do wrong. Callers decide with `retryable`; people read `message`, which
// says what to fix and never carries a credential.

export type LoyaltyErrorKind =
  | 'invalid_source' // 400: a parameter is missing or malformed
  | 'invalid_auth' // 401: wrong or missing credentials
  | 'invalid_url' // 402: unknown path or activity
  | 'rejected' // any other 4xx, or a failure envelope we cannot classify
  | 'rate_limited' // 429
  | 'unavailable' // 5xx, or a reply that is not the service's envelope
  | 'network'; // timeout, refused, reset

export interface LoyaltyErrorDetails {
  operation: string;
  httpStatus?: number;
  serviceMessage?: string;
  detail?: string;
  retryAfterMs?: number;
  cause?: unknown;
}

export class LoyaltyError extends Error {
  readonly kind: LoyaltyErrorKind;
  readonly retryable: boolean;
  readonly operation: string;
  readonly httpStatus: number | undefined;
  readonly serviceMessage: string | undefined;
  readonly detail: string | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(kind: LoyaltyErrorKind, retryable: boolean, message: string, details: LoyaltyErrorDetails) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.kind = kind;
    this.retryable = retryable;
    this.operation = details.operation;
    this.httpStatus = details.httpStatus;
    this.serviceMessage = details.serviceMessage;
    this.detail = details.detail;
    this.retryAfterMs = details.retryAfterMs;
  }

  /**
   * True when the call certainly did not take effect: the service refused to
   * serve it (429) or it never left this machine (connection refused, no such
   * host). Anything else that failed may have been applied before it failed.
   */
  get certainlyNotApplied(): boolean {
    if (this.kind === 'rate_limited' || this.kind === 'invalid_auth' || this.kind === 'invalid_url' || this.kind === 'invalid_source') return true;
    return this.kind === 'network' && NOT_SENT_CODES.has(this.detail ?? '');
  }

  /** What the service said, in one line, for ledgers and dead letters. */
  get summary(): string {
    const status = this.httpStatus === undefined ? '' : `${this.httpStatus} `;
    const said = [this.serviceMessage, this.detail].filter(Boolean).join(': ');
    return `${status}${said || this.message}`;
  }
}

/** The service understood the request and refused it; sending it again will not help. */
export class LoyaltyRejectedError extends LoyaltyError {}

/** The credentials are wrong. Every call will fail until the configuration is fixed. */
export class LoyaltyAuthError extends LoyaltyError {}

/** Worth trying again later: rate limit, server trouble, network trouble. */
export class LoyaltyRetryableError extends LoyaltyError {}

const describe = (details: LoyaltyErrorDetails) =>
  [details.serviceMessage, details.detail].filter(Boolean).join(': ') || 'no message';

/** Builds the right error for an HTTP status (or a failure envelope on 200) and the service's words. */
export function errorForResponse(details: LoyaltyErrorDetails & { httpStatus: number }): LoyaltyError {
  const { httpStatus, operation } = details;
  const said = describe(details);
  const failureOnOk = httpStatus < 400;
  const kindFromMessage = kindOfMessage(details.serviceMessage);

  if (httpStatus === 401 || (failureOnOk && kindFromMessage === 'invalid_auth')) {
    return new LoyaltyAuthError(
      'invalid_auth',
      false,
      `${operation}: the loyalty service refused our credentials (${httpStatus} ${said}). Check LOYALTY_API_KEY and LOYALTY_BRAND_ID.`,
      details,
    );
  }
  if (httpStatus === 429 || (failureOnOk && kindFromMessage === 'rate_limited')) {
    const wait = details.retryAfterMs === undefined ? '' : `; it asked us to wait ${Math.ceil(details.retryAfterMs / 1000)} s`;
    return new LoyaltyRetryableError('rate_limited', true, `${operation}: rate limited by the loyalty service (${said})${wait}`, details);
  }
  if (httpStatus >= 500) {
    return new LoyaltyRetryableError('unavailable', true, `${operation}: the loyalty service failed (${httpStatus} ${said})`, details);
  }
  // A failure envelope on HTTP 200 whose message is none of the documented
  // refusals says nothing certain: tried again with backoff (and dead-lettered
  // after RETRY_MAX_AGE_HOURS), rather than given up on at once.
  if (failureOnOk && kindFromMessage === 'rejected') {
    return new LoyaltyRetryableError('unavailable', true, `${operation}: the loyalty service answered ${httpStatus} with a failure (${said})`, details);
  }
  const kind = httpStatus === 400 ? 'invalid_source' : httpStatus === 402 ? 'invalid_url' : failureOnOk ? kindFromMessage : 'rejected';
  return new LoyaltyRejectedError(kind, false, `${operation}: the loyalty service rejected the call (${httpStatus} ${said})`, details);
}

function kindOfMessage(message: string | undefined): LoyaltyErrorKind {
  switch (message?.trim().toLowerCase()) {
    case 'invalid source':
      return 'invalid_source';
    case 'invalid auth':
      return 'invalid_auth';
    case 'invalid url':
      return 'invalid_url';
    case 'rate limit exceeded':
      return 'rate_limited';
    default:
      return 'rejected';
  }
}

/** A reply we could not read as the service's envelope: most likely a proxy or an outage page. */
export const unreadableResponse = (operation: string, httpStatus: number, why: string): LoyaltyError =>
  new LoyaltyRetryableError(
    'unavailable',
    true,
    `${operation}: the loyalty service answered ${httpStatus} with a body that is not its JSON envelope (${why})`,
    { operation, httpStatus },
  );

// No `cause` here on purpose: the HTTP library's error carries the request
// options, headers and credentials included, and a logger would print them.
export const networkError = (operation: string, code: string): LoyaltyError =>
  new LoyaltyRetryableError('network', true, `${operation}: could not reach the loyalty service (${code})`, { operation, detail: code });

/** Network failures that happen before a request is sent. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
