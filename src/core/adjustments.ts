// Manual earns and redeems asked for through the admin API: who asked, why, and what came of it. Neither
// carries an order id, so neither is idempotent: the client retries one only when the attempt certainly did
// not take effect, and one whose outcome is unknown (a timeout, a 5xx) becomes a dead letter, for a person
// to check the customer's history before sending it again.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { LoyaltyResult } from '../loyalty/client.ts';
import { DEFAULT_ACCOUNT, type Accounts, type AccountRuntime } from './accounts.ts';
import type { ServiceCustomer } from './storefront/customer-points.ts';
import { LoyaltyError } from '../loyalty/errors.ts';
import type { Logger } from '../logger.ts';
import type { Adjustment, DeadLetter, DeadLetterRole, RecordRole } from './store/ledger-store.ts';
import { tellCustomerCall, type CustomerCall, type CustomerCallListener } from './customer-calls.ts';
import { adjustmentFields } from './store/roles/core-kinds.ts';
import { recordType } from './store/roles/record-types.ts';

export interface EarnRequest {
  activityId: string;
  /** What the activity gives, when the earn was asked for in points. */
  points?: number | undefined;
  name: string;
  email: string;
  mobile: string;
  description?: string | undefined;
  reason: string;
  /** The loyalty account to earn on; the default account's when unset. */
  account?: string | undefined;
  /** The shop whose own page asked: the adjustment, and a dead letter of it, are that shop's (seen, exported and erased with it). */
  shop?: { platform: string; shop: string } | undefined;
}

export interface RedeemRequest {
  email?: string | undefined;
  mobile?: string | undefined;
  points: number;
  reason: string;
  /** The loyalty account to redeem on; the default account's when unset. */
  account?: string | undefined;
  /** The shop whose own page asked, as for an earn. */
  shop?: { platform: string; shop: string } | undefined;
}

export interface AdjustmentResult {
  adjustment: Adjustment;
  error?: LoyaltyError | Error | undefined;
  deadLetter?: DeadLetter | undefined;
}

/** Without a request: erased with its customer (customer-records.ts), or kept by a release before requests were. */
type Stored = Adjustment & { request?: EarnRequest | RedeemRequest | undefined };

const maybe = <T extends z.ZodType>(schema: T) => schema.optional();
const askingShop = maybe(z.looseObject({ platform: z.string(), shop: z.string() }));
/** An adjustment with the request sent, so that a person can send it again (resend). */
export const STORED = recordType<Stored>(
  'adjustment',
  z.looseObject({
    ...adjustmentFields,
    request: z
      .union([
        z.looseObject({
          activityId: z.string(),
          points: maybe(z.number()),
          name: z.string(),
          email: z.string(),
          mobile: z.string(),
          description: maybe(z.string()),
          reason: z.string(),
          account: maybe(z.string()),
          shop: askingShop,
        }),
        z.looseObject({
          email: maybe(z.string()),
          mobile: maybe(z.string()),
          points: z.number(),
          reason: z.string(),
          account: maybe(z.string()),
          shop: askingShop,
        }),
      ])
      .optional(),
  }),
);

/** A customer's reward codes against their balance, around a take-back by hand (wired to cover-checks.ts). */
export interface TakeBackChecks {
  /**
   * Before the call: the customer's codes marked. Answers the check to make after it, which withdraws their unused
   * codes, newest first, while the balance does not cover them.
   */
  marking(account: AccountRuntime, customer: ServiceCustomer): Promise<() => Promise<void>>;
}

export class Adjustments {
  /**
   * Told after each adjustment the service took, or may have taken (an unknown outcome): what the storefront keeps
   * of that customer's balance on the account is stale from then on, as after the worker's calls.
   */
  readonly customerCalls = new Set<CustomerCallListener>();
  /**
   * Points taken back by hand can leave a customer's unused reward codes holding more than their balance, as an
   * earning's cancel can: marked before the call and checked after it (cover-checks.ts), where storefronts run.
   */
  takeBackChecks: TakeBackChecks | undefined;
  readonly #store: DeadLetterRole & RecordRole;
  readonly #accounts: Accounts;
  readonly #logger: Logger;

  constructor(store: DeadLetterRole & RecordRole, accounts: Accounts, logger: Logger) {
    this.#store = store;
    this.#accounts = accounts;
    this.#logger = logger;
  }

  earn(request: EarnRequest, by: string): Promise<AdjustmentResult> {
    return this.#send({ id: randomUUID(), kind: 'earn', by, request });
  }

  redeem(request: RedeemRequest, by: string): Promise<AdjustmentResult> {
    return this.#send({ id: randomUUID(), kind: 'redeem', by, request });
  }

  /** Sends a dead-lettered adjustment again, under its own id: a person checked it was not applied. */
  async resend(id: string): Promise<AdjustmentResult | undefined> {
    const stored = await this.#store.getRecord(STORED, id);
    if (!stored?.request) return undefined;
    return this.#send({ id, kind: stored.kind, by: stored.by, request: stored.request });
  }

  async list(): Promise<Adjustment[]> {
    return (await this.#store.listRecords(STORED))
      .map(({ value }) => withoutRequest(value))
      .sort((a, b) => b.at.localeCompare(a.at));
  }

  async #send({
    id,
    kind,
    by,
    request,
  }: {
    id: string;
    kind: 'earn' | 'redeem';
    by: string;
    request: EarnRequest | RedeemRequest;
  }): Promise<AdjustmentResult> {
    const base = {
      id,
      at: new Date().toISOString(),
      kind,
      by,
      reason: request.reason,
      account: request.account ?? DEFAULT_ACCOUNT,
      ...('shop' in request && request.shop ? { platform: request.shop.platform, shop: request.shop.shop } : {}),
      customer:
        'name' in request
          ? { email: request.email, mobile: request.mobile, name: request.name }
          : { email: request.email, mobile: request.mobile },
      ...(kind === 'earn'
        ? {
            activityId: (request as EarnRequest).activityId,
            ...((request as EarnRequest).points ? { points: (request as EarnRequest).points } : {}),
          }
        : { points: (request as RedeemRequest).points }),
    };
    const { result, error, checkAfter } = await this.#call(kind, request);
    const failure = error instanceof LoyaltyError ? error : undefined;
    const unknown = error !== undefined && !(failure && (failure.certainlyNotApplied || !failure.retryable));
    const message = result?.message ?? (failure ? failure.summary : (error?.message ?? ''));
    const adjustment: Adjustment = { ...base, outcome: result ? 'success' : unknown ? 'unknown' : 'failed', message };
    try {
      await this.#store.putRecord(STORED, id, { ...adjustment, request });
    } finally {
      if (result || unknown) this.#tellCustomerCall(base.account, request);
      if (result || unknown) await checkAfter?.();
    }
    if (!unknown) return { adjustment, ...(error ? { error } : {}) };
    const what =
      kind === 'earn'
        ? `manual earn${(request as EarnRequest).points ? ` of ${(request as EarnRequest).points} points` : ''} (activity ${(request as EarnRequest).activityId})`
        : `manual redeem of ${(request as RedeemRequest).points} points`;
    const deadLetter = await this.#store.addDeadLetter({
      id: randomUUID(),
      kind: 'call',
      operation: kind,
      adjustmentId: id,
      ...('shop' in request && request.shop ? { platform: request.shop.platform, shop: request.shop.shop } : {}),
      httpStatus: failure?.httpStatus,
      reason: `${what} may or may not have been applied (${message}); it carries no order id, so sending it again could count it twice. Check the customer's history before retrying`,
    });
    this.#logger.error(
      { adjustment: id, deadLetter: deadLetter.id },
      `${what} has an unknown outcome; dead-lettered for a person to check`,
    );
    return { adjustment, error, deadLetter };
  }

  /** The call itself, on the request's account; a take-back's codes marked before it, and how to check them after. */
  async #call(
    kind: 'earn' | 'redeem',
    request: EarnRequest | RedeemRequest,
  ): Promise<{ result?: LoyaltyResult; error?: Error; checkAfter?: () => Promise<void> }> {
    let checkAfter: (() => Promise<void>) | undefined;
    try {
      const account = await this.#accounts.runtime(request.account ?? DEFAULT_ACCOUNT);
      if (!account) throw new Error(`no loyalty account ${request.account ?? DEFAULT_ACCOUNT}`);
      const client = account.client;
      if (kind === 'earn') {
        const earn = request as EarnRequest;
        const { activityId, name, email, mobile } = earn;
        const description = earn.description ?? `Manual: ${request.reason}`;
        return { result: await client.earn({ activityId, name, email, mobile, description }) };
      }
      // As the service keys the customer the redeem names: the e-mail, else the phone.
      const customer = request.email ? { email: request.email } : { mobile: request.mobile ?? '' };
      checkAfter = await this.#markTakeBack(account, customer);
      const result = await client.redeem({ points: (request as RedeemRequest).points, ...customer });
      return { result, checkAfter };
    } catch (caught) {
      return { error: caught as Error, ...(checkAfter ? { checkAfter } : {}) };
    }
  }

  /** Marked before the take-back leaves (a crash after it leaves the mark for the sweeper); checked after it. */
  async #markTakeBack(account: AccountRuntime, customer: ServiceCustomer): Promise<(() => Promise<void>) | undefined> {
    const checks = this.takeBackChecks;
    if (!checks) return undefined;
    const check = await checks.marking(account, customer);
    return () =>
      check().catch((error: unknown) =>
        this.#logger.warn(
          { kind: (error as Error)?.name },
          "a customer's reward codes could not be checked after points were taken back; the sweeper checks them",
        ),
      );
  }

  #tellCustomerCall(account: string, request: EarnRequest | RedeemRequest): void {
    const call: CustomerCall = {
      account,
      customer: {
        ...(request.email ? { email: request.email } : {}),
        ...(request.mobile ? { mobile: request.mobile } : {}),
      },
    };
    tellCustomerCall(this.customerCalls, call, this.#logger);
  }
}

const withoutRequest = ({ request: _request, ...adjustment }: Stored): Adjustment => adjustment;
