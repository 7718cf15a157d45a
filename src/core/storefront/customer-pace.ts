// How often one signed-in customer's presses of Redeem may be refused before the next is held. A customer who
// presses again as soon as each answer comes (a script, a stuck key) would otherwise keep this process busy with
// their answers, and live orders' deliveries wait behind them (issue 64: with a presser, live orders' p99 doubled
// though the presses cost the service no call). Each press counts until it makes a code; past the pace a press is
// held, then answered 429, so a client that presses again at each answer presses once in HOLD_MAX_MS at most. The
// count is rate-limiter-flexible's, in this process's memory (each instance paces its own requests; a customer's key
// expires with its window). Balance reads are not paced: pages and tests poll them, and each costs the service a
// call only within the storefront's share.
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

/** Refused presses one customer may have in PACE_SECONDS; beyond them, their presses are held and refused. */
export const PACE_REFUSALS = 5;
export const PACE_SECONDS = 10;
/** The longest a press beyond the pace is held before its refusal: a connection held costs no work. */
export const HOLD_MAX_MS = 2_000;
/** Presses of one customer held at once; more are refused without a hold, so one token pins few connections. */
export const MAX_HELD = 2;

export type PaceAnswer = { ok: true } | { ok: false; retryAfterSeconds: number };

export interface CustomerPaceParts {
  sleep: (ms: number) => Promise<void>;
}

export class CustomerPace {
  readonly #refusals = new RateLimiterMemory({ points: PACE_REFUSALS, duration: PACE_SECONDS });
  /** Per customer, their presses held now: beyond MAX_HELD, a press is refused at once (it holds nothing). */
  readonly #held = new Map<string, number>();
  readonly #sleep: (ms: number) => Promise<void>;

  constructor(parts: CustomerPaceParts) {
    this.#sleep = parts.sleep;
  }

  /**
   * A press of `customer` (paceKey), counted as refused until answered() says otherwise, so that presses at once
   * count each other: let through, or, past the pace, refused after a hold.
   */
  async press(customer: string): Promise<PaceAnswer> {
    try {
      await this.#refusals.consume(customer);
      return { ok: true };
    } catch (counted) {
      // The memory limiter rejects only with its count; anything else is a defect to see.
      if (!(counted instanceof RateLimiterRes)) throw counted;
      const retryAfterSeconds = Math.max(1, Math.ceil(counted.msBeforeNext / 1000));
      const held = this.#held.get(customer) ?? 0;
      if (held >= MAX_HELD) return { ok: false, retryAfterSeconds };
      this.#held.set(customer, held + 1);
      try {
        await this.#sleep(Math.min(counted.msBeforeNext, HOLD_MAX_MS));
      } finally {
        const left = (this.#held.get(customer) ?? 1) - 1;
        if (left > 0) this.#held.set(customer, left);
        else this.#held.delete(customer);
      }
      return { ok: false, retryAfterSeconds };
    }
  }

  /** The press let through made a code: it does not count toward the customer's pace. */
  async answered(customer: string, made: boolean): Promise<void> {
    if (made) await this.#refusals.reward(customer, 1);
  }
}

/** The pace's key of a customer: their platform, shop and the platform's id for them. */
export const paceKey = (platform: string, shop: string, customerId: string): string =>
  JSON.stringify([platform, shop, customerId]);
