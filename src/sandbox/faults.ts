// Fault injection, so tests can make the sandbox misbehave the ways the real
// service (or the network in front of it) does. Applies to the API routes only,
// never to /_sandbox/*.
import { z } from 'zod';

export const faultSettingsSchema = z.strictObject({
  /** Share of calls answered with failureStatus, 0 to 1. */
  failureRate: z.number().min(0).max(1).default(0),
  /** 200 with failureMessage: a failure envelope on HTTP 200. */
  failureStatus: z.number().int().min(200).max(599).default(500),
  failureMessage: z.string().max(200).optional(),
  /**
   * Where an injected failure happens: before the operation takes effect, or
   * after it (the caller sees an error although the change was made, the hard
   * case for exactly-once).
   */
  failurePhase: z.enum(['before', 'after']).default('before'),
  /**
   * transaction answers success with no data, as the real service documents it (none): no `balance`, `earned`,
   * `redeemed` or `ledger`, the sandbox's own additions. So the storefront's path without them is tested too.
   */
  bareTransactions: z.boolean().default(false),
  /** Added to every call. */
  latencyMs: z.number().int().min(0).max(120_000).default(0),
  /** Share of calls that get no answer at all for hangMs: a timeout, seen from the caller (after the change, with failurePhase after). */
  hangRate: z.number().min(0).max(1).default(0),
  hangMs: z.number().int().min(0).max(600_000).default(30_000),
  /** Limits every fault to paths containing this text, such as /redeem. */
  onlyPath: z.string().max(200).optional(),
  /** The next `count` calls get exactly this answer, then the other settings apply again. */
  forced: z
    .strictObject({
      status: z.number().int().min(200).max(599),
      count: z.number().int().min(1).max(1_000_000).default(1),
      /** With status 200: a failure envelope on HTTP 200, as the real service can send. */
      message: z.string().max(200).optional(),
      /**
       * Forced again every this many ms, for bursts: {status: 429, count: 20, everyMs: 2000}. A burst
       * with retryAfterSeconds also ends when that time has passed since it began, as a rate limiter's
       * refusals do: a caller that waits as told gets through, however few calls it makes.
       */
      everyMs: z.number().int().min(100).max(600_000).optional(),
      retryAfterSeconds: z.number().int().min(0).max(3600).optional(),
    })
    .optional(),
});

export type FaultSettings = z.infer<typeof faultSettingsSchema>;
export type FaultSettingsInput = z.input<typeof faultSettingsSchema>;

export type FaultDecision =
  | { kind: 'none' }
  | { kind: 'hang'; ms: number; phase: 'before' | 'after' }
  | {
      kind: 'fail';
      status: number;
      phase: 'before' | 'after';
      message?: string | undefined;
      retryAfterSeconds?: number | undefined;
    };

export class FaultInjector {
  #settings: FaultSettings;
  #forcedLeft = 0;
  #armedAt = 0;
  /** Faults injected so far, for reports. */
  injected = 0;
  readonly #random: () => number;
  readonly #now: () => number;

  constructor(settings: FaultSettingsInput = {}, random: () => number = Math.random, now: () => number = Date.now) {
    this.#settings = faultSettingsSchema.parse(settings);
    this.#random = random;
    this.#now = now;
    this.#arm();
  }

  #arm(): void {
    this.#forcedLeft = this.#settings.forced?.count ?? 0;
    this.#armedAt = this.#now();
  }

  get settings(): FaultSettings & { forcedLeft: number } {
    return { ...this.#settings, forcedLeft: this.#forcedLeft };
  }

  configure(settings: FaultSettingsInput): void {
    this.#settings = faultSettingsSchema.parse(settings);
    this.#arm();
  }

  latencyFor(path: string): number {
    const { onlyPath, latencyMs } = this.#settings;
    return onlyPath !== undefined && !path.includes(onlyPath) ? 0 : latencyMs;
  }

  decide(path = ''): FaultDecision {
    const decision = this.#decide(path);
    if (decision.kind !== 'none') this.injected++;
    return decision;
  }

  #burstOver(forced: NonNullable<FaultSettings['forced']>): boolean {
    return (
      forced.everyMs !== undefined &&
      forced.retryAfterSeconds !== undefined &&
      this.#now() - this.#armedAt >= forced.retryAfterSeconds * 1000
    );
  }

  #decide(path: string): FaultDecision {
    const { forced, onlyPath } = this.#settings;
    if (onlyPath !== undefined && !path.includes(onlyPath)) return { kind: 'none' };
    if (forced?.everyMs !== undefined && this.#now() - this.#armedAt >= forced.everyMs) this.#arm();
    if (forced && this.#forcedLeft > 0 && !this.#burstOver(forced)) {
      this.#forcedLeft--;
      return {
        kind: 'fail',
        status: forced.status,
        phase: 'before',
        message: forced.message,
        retryAfterSeconds: forced.retryAfterSeconds,
      };
    }
    if (this.#settings.hangRate > 0 && this.#random() < this.#settings.hangRate)
      return { kind: 'hang', ms: this.#settings.hangMs, phase: this.#settings.failurePhase };
    if (this.#settings.failureRate > 0 && this.#random() < this.#settings.failureRate) {
      return {
        kind: 'fail',
        status: this.#settings.failureStatus,
        phase: this.#settings.failurePhase,
        message: this.#settings.failureMessage,
      };
    }
    return { kind: 'none' };
  }
}
