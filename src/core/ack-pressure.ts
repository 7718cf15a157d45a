// Acknowledgements first. A platform waits for our answer (Shopify gives up
// after 5 s, and then sends the delivery again: more load, not less), while
// folding an acknowledged delivery into its order can wait: the delivery is
// durable in the inbox. Acknowledging and folding share one event loop, so
// in a burst that saturates it, every fold makes an acknowledgement wait.
//
// This tells intake when to step back: when deliveries arrive as a burst
// (more than 200 a second) and the event loop has been busy nearly all of
// the last moment. (The rate matters: folding a backlog at full speed keeps
// the loop busy by itself, and a trickle of deliveries meanwhile is no
// reason to slow it down.) Folding then keeps a minimum pace (WorkLoop's yieldTo): each
// delivery acknowledged allows `foldsPerAck` folds, so through a flood the
// backlog grows at most (1 - foldsPerAck) times as fast as deliveries come,
// and is folded at full speed as soon as the burst ends. A burst lasts at
// most MAX_BURST_MS: load that saturates the loop for longer is not a burst
// but more than this machine keeps up with, and folding then takes its full
// share again (the answers slow down; the backlog, its lag and the memory it
// holds stop growing). At everyday rates the loop is mostly idle and nothing
// is held back.
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
