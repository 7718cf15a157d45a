// Leases on claimed work (the worker's orders, intake's inbox entries), renewed every leaseMs / 3 while the
// work runs, so a lease can be short (a dead instance's work is taken over soon) and the work as long as it
// needs. The fence: a lease is held while its last confirmation is younger than leaseMs less a margin, on
// this process's monotonic clock read before each request (the store started it no earlier). Work checks
// held() just before a loyalty call, and stops when the lease is not held.
import type { Logger } from '../logger.ts';
import type { Claim } from './store/ledger-store.ts';
import { BridgeError } from '../errors.ts';

/** With default settings (WORKER_LEASE_SECONDS): a killed instance's work is taken over about this long after its last renewal. */
export const DEFAULT_LEASE_MS = 10_000;

export class LeaseLostError extends BridgeError<'lease_lost'> {
  constructor(key: string) {
    super(
      'lease_lost',
      `the lease on ${key} was lost (another instance may have taken it over); this instance stops working on it`,
    );
  }
}

export interface Lease {
  readonly key: string;
  /** The token the item was claimed under, for saves fenced by the store. */
  readonly owner: string;
  /** Whether no other claim can hold the key now. */
  held(): boolean;
  /** Throws LeaseLostError unless held(). */
  check(): void;
}

export interface LeaseKeeperOptions {
  leaseMs: number;
  /** The store's renewClaims for this kind of claim. */
  renew: (claims: Claim[]) => Promise<Claim[]>;
  logger: Logger;
  /** What the leases are on, for the log. */
  name: string;
  now?: () => number;
}

class HeldLease implements Lease {
  readonly key: string;
  readonly owner: string;
  confirmedUntil: number;
  lost = false;
  readonly #keeper: LeaseKeeper;

  constructor(keeper: LeaseKeeper, key: string, owner: string, confirmedUntil: number) {
    this.#keeper = keeper;
    this.key = key;
    this.owner = owner;
    this.confirmedUntil = confirmedUntil;
  }

  held(): boolean {
    return !this.lost && this.#keeper.now() < this.confirmedUntil - this.#keeper.marginMs;
  }

  check(): void {
    if (!this.held()) throw new LeaseLostError(this.key);
  }
}

export class LeaseKeeper {
  readonly #o: Required<LeaseKeeperOptions>;
  readonly #held = new Set<HeldLease>();
  /** Time a request may take between the check and the moment it leaves, and clock jitter. */
  readonly marginMs: number;
  #timer: NodeJS.Timeout | undefined;
  #beating: Promise<void> | undefined;

  constructor(options: LeaseKeeperOptions) {
    this.#o = { now: () => performance.now(), ...options };
    this.marginMs = Math.min(1_000, options.leaseMs / 10);
  }

  now(): number {
    return this.#o.now();
  }

  /** A lease on an item claimed under `owner` by a request sent at `claimedAt` (this keeper's clock). */
  hold(key: string, owner: string, claimedAt: number): Lease {
    const lease = new HeldLease(this, key, owner, claimedAt + this.#o.leaseMs);
    this.#held.add(lease);
    if (!this.#timer) {
      this.#timer = setInterval(() => void this.beat(), this.#o.leaseMs / 3);
      this.#timer.unref();
    }
    return lease;
  }

  /** The work on it is over: no more renewals. */
  release(lease: Lease): void {
    this.#held.delete(lease as HeldLease);
    if (this.#held.size === 0) this.stop();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  get size(): number {
    return this.#held.size;
  }

  /** One renewal of every lease still held; a renewal still under way is not doubled. */
  beat(): Promise<void> {
    this.#beating ??= this.#renew().finally(() => (this.#beating = undefined));
    return this.#beating;
  }

  async #renew(): Promise<void> {
    const leases = [...this.#held].filter((lease) => !lease.lost);
    if (leases.length === 0) return;
    const sentAt = this.#o.now();
    let kept: Claim[];
    try {
      kept = await this.#o.renew(leases.map(({ key, owner }) => ({ key, owner })));
    } catch (error) {
      // Unconfirmed leases run out on their own; the work stops before any call once they have.
      this.#o.logger.warn(
        { err: error, leases: this.#o.name, held: leases.length },
        'could not renew leases; work on them stops if they run out',
      );
      return;
    }
    const still = new Set(kept.map((claim) => `${claim.owner}\u0000${claim.key}`));
    for (const lease of leases) {
      if (still.has(`${lease.owner}\u0000${lease.key}`)) {
        lease.confirmedUntil = Math.max(lease.confirmedUntil, sentAt + this.#o.leaseMs);
      } else if (this.#held.has(lease)) {
        lease.lost = true;
        this.#o.logger.warn(
          { leases: this.#o.name, key: lease.key },
          'a lease was lost: another instance took the work over, so this one leaves it',
        );
      }
    }
  }
}
