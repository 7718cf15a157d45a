// Acknowledgements first. A platform waits for the answer (one gives up after 5 s and sends the delivery
// again: more load, not less), while folding an acknowledged delivery can wait: it is durable in the inbox.
// Both share one event loop, so in a burst (more than 200 deliveries a second, the loop busy nearly all of
// the last moment) folding keeps only a minimum pace, `foldsPerAck` per acknowledgement, for at most
// MAX_BURST_MS (docs/performance.md, "Acknowledgements first").
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import type { YieldTo } from './work-loop.ts';

/**
 * Folds allowed per acknowledgement while contended. Measured on a 2-core
 * machine (npm run bench): folding nothing, acknowledgements ran at 0.93 of
 * the durable baseline; at one fold in ten, 0.77; at one in five, 0.69; at
 * one in two, 0.66. One in ten still folds several hundred a second there,
 * several times the sustained rate the bridge is built for.
 */
const FOLDS_PER_ACK = 0.1;
/** The longest stretch of contention intake yields to. */
const MAX_BURST_MS = 30_000;
/** Folds earned and not yet started are kept up to this many (a few batches), across stretches. */
const MAX_ALLOWANCE = 256;
/** How long a look at the event loop covers. */
const WINDOW_MS = 100;
/** Deliveries in one look that make a burst: 200 a second. */
const BURST = 20;
/** Busier than this, in a burst, is contended... */
const BUSY = 0.9;
/** ...and, once contended, it stays so until the loop is less busy than this (no flapping at the edge). */
const CALM = 0.7;

export interface AckPressureOptions {
  /** While contended, folds allowed for each delivery acknowledged. */
  foldsPerAck?: number;
  /** The event loop's utilisation since a previous reading (performance.eventLoopUtilization by default). */
  utilization?: (since?: EventLoopUtilization) => EventLoopUtilization;
  now?: () => number;
}

export class AckPressure implements YieldTo {
  readonly #utilization: (since?: EventLoopUtilization) => EventLoopUtilization;
  readonly #now: () => number;
  #accepted = 0;
  #since: EventLoopUtilization;
  #lookedAt: number;
  #contended = false;
  readonly #foldsPerAck: number;
  /** Folds allowed now while contended, earned by acknowledgements. */
  #allowance = 0;
  /** When the current stretch of saturation in a burst began, or undefined. */
  #burstSince: number | undefined;

  constructor({
    foldsPerAck = FOLDS_PER_ACK,
    utilization = (since) => performance.eventLoopUtilization(since),
    now = () => performance.now(),
  }: AckPressureOptions = {}) {
    this.#foldsPerAck = foldsPerAck;
    this.#utilization = utilization;
    this.#now = now;
    this.#since = utilization();
    this.#lookedAt = now();
  }

  /** A platform's delivery was acknowledged. */
  noteAccepted(): void {
    this.#accepted++;
    if (this.#contended) this.#allowance = Math.min(MAX_ALLOWANCE, this.#allowance + this.#foldsPerAck);
  }

  /** While contended, how many folds may start now. */
  allowance(): number {
    return Math.floor(this.#allowance);
  }

  /** Folds started under the allowance. */
  spend(count: number): void {
    this.#allowance = Math.max(0, this.#allowance - count);
  }

  /** Whether acknowledgements are competing with other work for a saturated event loop now. */
  contended(): boolean {
    const now = this.#now();
    if (now - this.#lookedAt >= WINDOW_MS) {
      const busy = this.#utilization(this.#since).utilization;
      const saturated = this.#accepted >= BURST && busy >= (this.#burstSince === undefined ? BUSY : CALM);
      if (!saturated) this.#burstSince = undefined;
      else this.#burstSince ??= now;
      const was = this.#contended;
      this.#contended = saturated && now - this.#burstSince! < MAX_BURST_MS;
      // A new stretch of contention starts with what this look's acknowledgements earned, besides what is left.
      if (this.#contended && !was)
        this.#allowance = Math.min(MAX_ALLOWANCE, this.#allowance + this.#accepted * this.#foldsPerAck);
      this.#since = this.#utilization();
      this.#lookedAt = now;
      this.#accepted = 0;
    }
    return this.#contended;
  }
}
