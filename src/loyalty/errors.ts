// One small hierarchy for everything the loyalty service (or the way to it)
// can do wrong. Callers decide with `retryable`; people read `message`, which
// says what to fix and never carries a credential.
import { refusalText, shownUrl, type Refusal } from '../net/refusal.ts';
import { BridgeError } from '../errors.ts';
import { trimTrailing } from '../trim-trailing.ts';

export type LoyaltyErrorKind =
  | 'invalid_source' // 400, "Invalid Source", "Parameters missing", "<field> is required": a parameter is missing or malformed
  | 'invalid_auth' // 401: wrong or missing credentials
  | 'invalid_url' // 402: unknown path or activity
  | 'not_found' // "conversion does not exist": confirm found nothing to approve or reject
  | 'rejected' // any other 4xx
  | 'unknown_failure' // a failure on 2xx in words we do not know: retried a bounded number of times, never for days
  | 'redirected' // 3xx: LOYALTY_BASE_URL is not the service's address
  | 'refused_address' // plain http to another machine, or a user's address on a private network: never sent
  | 'rate_limited' // 429
  | 'unavailable' // 5xx, or a reply that is not JSON
  | 'network'; // timeout, refused, reset

export interface LoyaltyErrorDetails {
  operation: string;
  httpStatus?: number;
  serviceMessage?: string;
  detail?: string;
  retryAfterMs?: number;
  cause?: unknown;
}

export class LoyaltyError extends BridgeError<LoyaltyErrorKind> {
  /** The same as `code`: the name this hierarchy had first. */
  readonly kind: LoyaltyErrorKind;
  readonly retryable: boolean;
  readonly operation: string;
  readonly httpStatus: number | undefined;
  readonly serviceMessage: string | undefined;
  readonly detail: string | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(kind: LoyaltyErrorKind, retryable: boolean, message: string, details: LoyaltyErrorDetails) {
    super(kind, message, { cause: details.cause });
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
    if (REFUSED_KINDS.has(this.kind)) return true;
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

/** Worth trying again later: rate limit, server trouble, network trouble, a failure we cannot read. */
export class LoyaltyRetryableError extends LoyaltyError {}

/** Our configuration points at the wrong place: nothing sent will work until it is changed. */
export class LoyaltyConfigError extends LoyaltyError {}

/** Kinds whose call the service refused without applying it. */
const REFUSED_KINDS = new Set<LoyaltyErrorKind>([
  'rate_limited',
  'invalid_auth',
  'invalid_url',
  'invalid_source',
  'not_found',
  'redirected',
  'refused_address',
]);

/** The service's words, without NUL characters: they reach the order's record, and PostgreSQL's jsonb refuses them. */
const describe = (details: LoyaltyErrorDetails) =>
  [details.serviceMessage, details.detail].filter(Boolean).join(': ').replaceAll('\u0000', '') || 'no message';

/**
 * Builds the right error for a failure: an HTTP status, or a failure reply on
 * a 2xx (which the service sends), with the service's words. Its documented
 * refusals are permanent wherever they come; server trouble is retried; a
 * failure on a 2xx in words nobody documented is retried, but only a few
 * times (the worker counts them), since it says nothing certain.
 */
export function errorForResponse(
  details: LoyaltyErrorDetails & { httpStatus: number; replyStatus?: number | undefined },
): LoyaltyError {
  const { operation } = details;
  // A flat reply can carry its own status beside HTTP's 200.
  const status =
    details.httpStatus < 300 && details.replyStatus !== undefined && details.replyStatus >= 400
      ? details.replyStatus
      : details.httpStatus;
  const said = describe(details);
  const known = documentedFailure(details.serviceMessage, details.detail);

  if (status === 401 || known === 'invalid_auth') {
    return new LoyaltyAuthError(
      'invalid_auth',
      false,
      `${operation}: the loyalty service refused our credentials (${details.httpStatus} ${said}). Check the account's API key and brand id (LOYALTY_API_KEY and LOYALTY_BRAND_ID for the default account).`,
      details,
    );
  }
  if (status === 429 || known === 'rate_limited') {
    const wait =
      details.retryAfterMs === undefined ? '' : `; it asked us to wait ${Math.ceil(details.retryAfterMs / 1000)} s`;
    return new LoyaltyRetryableError(
      'rate_limited',
      true,
      `${operation}: rate limited by the loyalty service (${said})${wait}`,
      details,
    );
  }
  if (status >= 500) {
    return new LoyaltyRetryableError(
      'unavailable',
      true,
      `${operation}: the loyalty service failed (${details.httpStatus} ${said})`,
      details,
    );
  }
  if (known) {
    return new LoyaltyRejectedError(
      known,
      false,
      `${operation}: the loyalty service refused the call (${details.httpStatus} ${said})`,
      details,
    );
  }
  if (status >= 400) {
    const kind = status === 400 ? 'invalid_source' : status === 402 ? 'invalid_url' : 'rejected';
    return new LoyaltyRejectedError(
      kind,
      false,
      `${operation}: the loyalty service rejected the call (${details.httpStatus} ${said})`,
      details,
    );
  }
  return new LoyaltyRetryableError(
    'unknown_failure',
    true,
    `${operation}: the loyalty service answered ${details.httpStatus} with a failure it does not document (${said})`,
    details,
  );
}

/** The service's documented failure texts, and what they mean. */
const DOCUMENTED_FAILURES: ReadonlyArray<[RegExp, LoyaltyErrorKind]> = [
  [/^invalid source$/i, 'invalid_source'],
  [/^invalid auth$/i, 'invalid_auth'],
  [/^invalid url$/i, 'invalid_url'],
  [/^rate limit exceeded$/i, 'rate_limited'],
  [/^parameters? missing$/i, 'invalid_source'],
  [/^conversion does not exist$/i, 'not_found'],
];

/** A required field missing, in the words services use: "lp_email is required", "Missing required field order_id". */
const MISSING_FIELD = /\b(is required|are required|required field|missing)\b/i;

export function documentedFailure(
  message: string | undefined,
  detail: string | undefined,
): LoyaltyErrorKind | undefined {
  const said = trimTrailing(message?.trim() ?? '', '.!');
  const match = DOCUMENTED_FAILURES.find(([pattern]) => pattern.test(said));
  if (match) return match[1];
  if (MISSING_FIELD.test(said) || (detail !== undefined && MISSING_FIELD.test(detail) && said === ''))
    return 'invalid_source';
  return undefined;
}

/**
 * The base URL answered with a redirect: the service lives elsewhere (the
 * real one at https://www.ref-r.com). Our calls are POSTs with credentials,
 * so one to another host, port or scheme is never followed (src/net/
 * outbound.ts); the merchant is told where to point instead.
 */
export function redirectError(
  operation: string,
  httpStatus: number,
  requestUrl: string,
  location: string | undefined,
  path: string,
): LoyaltyError {
  // Both addresses as origin and path only, the call's own path taken off:
  // this message goes into dead letters and logs, and a user name, password
  // or query string in either could hold a key.
  const baseOf = (url: string, otherwise: (shown: string) => string) => {
    const shown = shownUrl(url, requestUrl);
    return shown.endsWith(path) ? shown.slice(0, -path.length) : otherwise(shown);
  };
  const from = baseOf(requestUrl, (shown) => shown);
  // An unreadable Location still tells us the address is wrong.
  const suggestion =
    location && URL.canParse(location, requestUrl)
      ? baseOf(location, () => new URL(location, requestUrl).origin)
      : 'the address the service gives in its documentation (https://www.ref-r.com)';
  return new LoyaltyConfigError(
    'redirected',
    false,
    `${operation}: LOYALTY_BASE_URL ${from} answers ${httpStatus}, a redirect${location ? ` to ${shownUrl(location, requestUrl)}` : ''}. Set LOYALTY_BASE_URL=${suggestion} and restart`,
    // Origin and path only: a query string or a user name in a Location can hold a key.
    { operation, httpStatus, detail: location ? shownUrl(location, requestUrl) : undefined },
  );
}

/** The outbound policy kept the call on this machine: nothing was sent, and nothing will be until the address is changed. */
export const refusedAddressError = (operation: string, refusal: Exclude<Refusal, { kind: 'redirect' }>): LoyaltyError =>
  new LoyaltyConfigError(
    'refused_address',
    false,
    // Every account's calls come here: the default account's address is LOYALTY_BASE_URL, another's is its own.
    `${operation}: ${refusalText(refusal)}. Give the account the service's https address (https://www.ref-r.com; LOYALTY_BASE_URL and a restart for the default account)`,
    { operation },
  );

/** A reply we could not read as JSON: most likely a proxy or an outage page. */
export const unreadableResponse = (operation: string, httpStatus: number, why: string): LoyaltyError =>
  new LoyaltyRetryableError(
    'unavailable',
    true,
    `${operation}: the loyalty service answered ${httpStatus} with a body that is not its JSON (${why})`,
    { operation, httpStatus },
  );

// No `cause` here on purpose: the HTTP library's error carries the request
// options, headers and credentials included, and a logger would print them.
export const networkError = (operation: string, code: string): LoyaltyError =>
  new LoyaltyRetryableError('network', true, `${operation}: could not reach the loyalty service (${code})`, {
    operation,
    detail: code,
  });

/** Network failures that happen before a request is sent. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
