// The typed client of the loyalty service: one method per operation. Each attempt waits its turn in the
// shared rate limiter and is sent by got with explicit timeouts and got's own retry off; p-retry retries what
// is retryable, with exponential backoff and jitter. A Retry-After from the service holds every call, not
// just the one refused, because the limit is per API key.
import pRetry from 'p-retry';
import { outboundGot, type OutboundPolicy } from '../net/outbound.ts';
import { LoyaltyError } from './errors.ts';
import {
  CONVERSION_STATUS,
  HEADER,
  PATH,
  referrerField,
  type ConfirmConversionInput,
  type ConversionInput,
  type CustomerRef,
  type EarnInput,
  type RedeemInput,
  type TransactionsInput,
  type UpdatePointsInput,
} from './protocol.ts';
import type { Place } from './places.ts';
import { createRateLimiter, type RateLimiter } from './rate-limiter.ts';
import { trimTrailing } from '../trim-trailing.ts';
import { sendAttempt, type AttemptReport, type Sender } from './attempt.ts';

// What moved out of this file stays importable from it.
export { parseRetryAfter, type AttemptReport } from './attempt.ts';
export { withoutSentPersonalData } from './personal-data.ts';
export type {
  ConfirmConversionInput,
  ConversionInput,
  CustomerRef,
  EarnInput,
  RedeemInput,
  Referrer,
  TransactionsInput,
  UpdatePointsInput,
} from './protocol.ts';

export interface LoyaltyClientOptions {
  /** A function when the address is known only later (the sandbox on a port the OS picks). */
  baseUrl: string | (() => string);
  apiKey: string;
  brandId: string;
  /** Whole-request ceiling per attempt. */
  timeoutMs?: number;
  /** Attempts after the first, for retryable failures. */
  maxRetries?: number;
  /** First backoff; doubles each attempt, with jitter. */
  minRetryDelayMs?: number;
  maxRetryDelayMs?: number;
  /** Shared limiter; built from rateLimitPerMinute when not given. */
  limiter?: RateLimiter;
  rateLimitPerMinute?: number;
  /** Told about every attempt, for metrics and the call record. */
  onAttempt?: (attempt: AttemptReport) => void;
  /** Where calls may go; an account's base URL given by a user would be a user's address. LOYALTY_BASE_URL is the operator's. */
  outbound?: OutboundPolicy;
}

/**
 * A fence checked at the last moment before an attempt leaves, after the rate
 * limiter's wait (which a 429's Retry-After can stretch to minutes). The
 * worker passes its lease check: an instance whose lease on the order ran out
 * while it waited sends nothing. A check that throws stops the attempt.
 * (Passed explicitly, not through AsyncLocalStorage: on Node 20 and 22 that
 * turns on promise hooks for every promise in the process, a few per cent of
 * all the CPU the acknowledgement path and folding spend.)
 */
export interface CallOptions {
  fence?: () => void;
  /** The place reserve() gave this call in the limiter: its first attempt takes it. */
  place?: Place;
  /**
   * Told of each attempt that went out and failed in a way that may have
   * taken effect (a timeout, a 5xx). The call is then in doubt whatever a
   * later attempt is told: a 429 that ends the retries says nothing of it.
   */
  onTryInDoubt?: () => void;
  /**
   * One attempt, never retried: for a read a person waits on that has its own answer when it fails (the
   * storefront's balance: the one kept, or "try again"). Retries would leave the caller's share of the budget and
   * wait in the limiter beside live orders.
   */
  once?: boolean;
}

/** What the service answered: its message and its data, unknown fields included. */
export interface LoyaltyResult<Data extends Record<string, unknown> = Record<string, unknown>> {
  message: string;
  data: Data;
  attempts: number;
}

/** A Retry-After longer than this is treated as this: one bad header must not stall us for a day. */
const MAX_RETRY_AFTER_MS = 10 * 60_000;

export class LoyaltyClient {
  readonly limiter: RateLimiter;
  readonly #options: Required<Pick<LoyaltyClientOptions, 'maxRetries' | 'minRetryDelayMs' | 'maxRetryDelayMs'>>;
  readonly #baseUrl: () => string;
  readonly #sender: Sender;

  /** Where its calls go now (a function's answer, for a base URL known once a server listens). */
  get baseUrl(): string {
    return this.#baseUrl();
  }

  constructor(options: LoyaltyClientOptions) {
    const timeoutMs = options.timeoutMs ?? 10_000;
    this.limiter = options.limiter ?? createRateLimiter({ limit: options.rateLimitPerMinute ?? 500 });
    this.#options = {
      maxRetries: options.maxRetries ?? 3,
      minRetryDelayMs: options.minRetryDelayMs ?? 500,
      maxRetryDelayMs: options.maxRetryDelayMs ?? 30_000,
    };
    const { baseUrl } = options;
    this.#baseUrl =
      typeof baseUrl === 'function' ? () => trimTrailing(baseUrl(), '/') : () => trimTrailing(baseUrl, '/');
    // The policy follows a redirect only within the base URL's origin: the API key goes nowhere else.
    const http = outboundGot(options.outbound ?? { userAddress: false }, {
      headers: {
        [HEADER.accept]: 'application/json',
        [HEADER.apiKey]: options.apiKey,
        [HEADER.brandId]: options.brandId,
      },
      searchParams: { format: 'JSON' },
      timeout: {
        lookup: 2_000,
        connect: 5_000,
        secureConnect: 5_000,
        send: timeoutMs,
        response: timeoutMs,
        request: timeoutMs,
      },
      retry: { limit: 0 },
      throwHttpErrors: false,
      responseType: 'text',
    });
    this.#sender = { http, baseUrl: this.#baseUrl, onAttempt: options.onAttempt };
  }

  /**
   * Earn "sends or updates" by (activity, order): with an order id a repeat is
   * harmless. Without one (a manual earn) each call adds points, so, like
   * redeem, it is retried only when the failed attempt certainly did not take effect.
   */
  earn(input: EarnInput, options: CallOptions = {}): Promise<LoyaltyResult> {
    return this.#call(
      'earn',
      PATH.earn(input.activityId),
      {
        lp_name: input.name,
        lp_email: input.email,
        lp_mobile: input.mobile,
        lp_description: input.description,
        lp_orderid: input.orderId,
      },
      { idempotent: input.orderId !== undefined, ...options },
    );
  }

  /**
   * Redeem is the one operation that is not idempotent: sent twice, it takes
   * the points twice. So it is retried only when the failed attempt certainly
   * did not take effect.
   */
  redeem(input: RedeemInput, options: CallOptions = {}): Promise<LoyaltyResult> {
    return this.#call(
      'redeem',
      PATH.redeem,
      { lp_points: input.points, ...customerFields(input) },
      { idempotent: false, ...options },
    );
  }

  transactions(input: TransactionsInput, options?: CallOptions): Promise<LoyaltyResult> {
    return this.#call('transactions', PATH.transaction, { lp_type: input.type, ...customerFields(input) }, options);
  }

  updatePoints(input: UpdatePointsInput, options: CallOptions = {}): Promise<LoyaltyResult> {
    return this.#call(
      'updatePoints',
      PATH.updatePoints,
      { lp_status: input.status, lp_orderid: input.orderId },
      options,
    );
  }

  /** The service keeps one conversion per order and campaign, so a repeat is harmless. */
  addConversion(input: ConversionInput, options: CallOptions = {}): Promise<LoyaltyResult> {
    return this.#call(
      'addConversion',
      PATH.conversion,
      {
        order_id: input.orderId,
        campaign_id: input.campaignId,
        event: input.event,
        [referrerField(input.referrer.kind)]: input.referrer.value,
        referee_name: input.refereeName,
        referee_email: input.refereeEmail,
        referee_mobile: input.refereeMobile,
        purchase_amount: input.purchaseAmount,
        custom_value: input.customValue,
      },
      options,
    );
  }

  /** Approves (status 1) or rejects (status 2) a conversion; setting the state it is in changes nothing. */
  confirmConversion(input: ConfirmConversionInput, options: CallOptions = {}): Promise<LoyaltyResult> {
    return this.#call(
      'confirmConversion',
      PATH.conversionConfirm,
      {
        order_id: input.orderId,
        campaign_id: input.campaignId,
        event: input.event,
        status: CONVERSION_STATUS[input.decision],
        remark: input.remark,
      },
      options,
    );
  }

  async #call(
    operation: string,
    path: string,
    body: Record<string, unknown>,
    { idempotent = true, fence, place, onTryInDoubt, once = false }: CallOptions & { idempotent?: boolean } = {},
  ): Promise<LoyaltyResult> {
    const json = withoutUndefined(body);
    let attempts = 0;
    const result = await pRetry(
      async () => {
        attempts++;
        // The caller's fence (the worker's lease) is checked after the limiter's wait, right before sending.
        return this.limiter.schedule(
          async () => {
            fence?.();
            try {
              return await sendAttempt(this.#sender, operation, path, json, attempts);
            } catch (error) {
              if (!(error instanceof LoyaltyError && error.certainlyNotApplied)) onTryInDoubt?.();
              throw error;
            }
          },
          attempts === 1 ? place : undefined,
        );
      },
      {
        retries: once ? 0 : this.#options.maxRetries,
        minTimeout: this.#options.minRetryDelayMs,
        maxTimeout: this.#options.maxRetryDelayMs,
        factor: 2,
        randomize: true,
        // An unknown failure is not retried here: the worker counts those, so that they end in a dead letter, not in days of retries.
        shouldRetry: ({ error }) =>
          error instanceof LoyaltyError &&
          error.retryable &&
          error.kind !== 'unknown_failure' &&
          (idempotent || error.certainlyNotApplied),
        onFailedAttempt: ({ error }) => {
          // Retry-After concerns the whole API key: hold the shared limiter so
          // no other call walks into the same refusal.
          if (error instanceof LoyaltyError && error.retryAfterMs !== undefined) {
            this.limiter.holdFor(Math.min(error.retryAfterMs, MAX_RETRY_AFTER_MS));
          }
        },
      },
    );
    return { ...result, attempts };
  }
}

const customerFields = (ref: CustomerRef) => ({ lp_email: ref.email, lp_mobile: ref.mobile });

const withoutUndefined = (body: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));

/** The limiter of a LoyaltyClient; undefined for a stand-in client (a test's) that has none, or not a whole one. */
export function limiterOf(client: unknown): RateLimiter | undefined {
  const limiter = (client as { limiter?: Partial<RateLimiter> } | undefined)?.limiter;
  return typeof limiter?.reserve === 'function' && typeof limiter.stats === 'function'
    ? (limiter as RateLimiter)
    : undefined;
}
