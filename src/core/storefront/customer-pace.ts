// How often one signed-in customer's presses of Redeem may be refused before the next is held. A customer who presses again
// as soon as each answer comes (a script, a stuck key) would otherwise keep this process busy with their answers, and
// live orders' deliveries wait behind them (issue 64: with a presser, live orders' p99 doubled though the presses
// cost the service no call). Beyond the pace a press is answered 429, and only after a hold, so a client that presses
// again at each answer presses once in HOLD_MAX_MS at most; presses that make codes are never held. The count is rate-limiter-flexible's, in this process's
// memory (each instance paces its own requests; a customer's key expires with its window). Balance reads are not
// paced: pages and tests poll them, and each costs the service a call only within the storefront's share.
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

/** Refused presses one customer may have in PACE_SECONDS; beyond them, their presses are held and refused. */
export const PACE_REFUSALS = 5;
export const PACE_SECONDS = 10;
/** The longest a press beyond the pace is held before its refusal: a connection held costs no work. */
export const HOLD_MAX_MS = 2_000;

export type PaceAnswer = { ok: true } | { ok: false; retryAfterSeconds: number };

export interface CustomerPaceParts {
  sleep: (ms: number) => Promise<void>;
}

export class CustomerPace {
  readonly #refusals = new RateLimiterMemory({ points: PACE_REFUSALS, duration: PACE_SECONDS });
  readonly #sleep: (ms: number) => Promise<void>;

  constructor(parts: CustomerPaceParts) {
    this.#sleep = parts.sleep;
  }

  /** A press of `customer` (paceKey): let through, or, past their refusals' pace, refused after a hold. */
  async press(customer: string): Promise<PaceAnswer> {
    const counted = await this.#refusals.get(customer);
    if (!counted || counted.consumedPoints < PACE_REFUSALS) return { ok: true };
    await this.#sleep(Math.min(counted.msBeforeNext, HOLD_MAX_MS));
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((counted.msBeforeNext - HOLD_MAX_MS) / 1000)) };
  }

  /** The customer's press was refused (no code made): it counts toward their pace. */
  async refused(customer: string): Promise<void> {
    // Past the pace the memory limiter rejects with its count, which is all that is wanted here.
    await this.#refusals.consume(customer).catch((counted: unknown) => {
      if (!(counted instanceof RateLimiterRes)) throw counted;
    });
  }
}

/** The pace's key of a customer: their platform, shop and the platform's id for them. */
export const paceKey = (platform: string, shop: string, customerId: string): string =>
  JSON.stringify([platform, shop, customerId]);
