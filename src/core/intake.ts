// Intake: what happens to an acknowledged delivery after the answer. Its platform's adapter translates it
// (reading the platform's API where the delivery alone cannot say), and the result is committed with the
// entry's consumption in one step, so a crash before that step only translates it again, which changes
// nothing twice. A platform that does not answer is asked again with backoff until RETRY_MAX_AGE_HOURS. The
// entry's lease is renewed while it is read; an instance that lost it commits nothing.
import type { PlatformAdapter, Translation } from './platform-adapter.ts';
import { DEFAULT_LEASE_MS, type Lease } from './leases.ts';
import type { InboxEntry, StoredDelivery } from './delivery.ts';
import type { OrderEvent } from './order-event.ts';
import type { IntakeCommit } from './store/ledger-store.ts';
import { WorkLoop } from './work-loop.ts';
import { actedBefore, actedOn } from './intake-acted-once.ts';
import { deadLetter, defer } from './intake-failures.ts';
import { foreignOrders, reinstall, uninstalled } from './intake-shops.ts';
import { HOUR, type IntakeOptions, type IntakeSteps, type ResolvedIntakeOptions } from './intake-steps.ts';

// What moved beside this file stays importable from it.
export { deadLetterIdFor } from './intake-failures.ts';
export type { IntakeOptions } from './intake-steps.ts';

export class Intake {
  readonly #o: ResolvedIntakeOptions;
  /** What the steps beside this file (intake-*.ts) reach of it. */
  readonly #steps: IntakeSteps;
  readonly #loop: WorkLoop<InboxEntry>;
  #batch: Array<{ commit: IntakeCommit; resolve: () => void; reject: (error: unknown) => void }> = [];
  #batchScheduled = false;

  constructor(options: IntakeOptions) {
    this.#o = {
      // Many at once: a batch of folds waits for one write of the ledger, and a slow disk should make batches bigger.
      concurrency: 64,
      leaseMs: DEFAULT_LEASE_MS,
      maxRetryAgeMs: 72 * HOUR,
      retryMinDelayMs: 5_000,
      retryMaxDelayMs: 15 * 60_000,
      now: () => new Date(),
      random: Math.random,
      ...options,
    };
    this.#steps = {
      o: this.#o,
      commit: (commit, lease) => this.#commit(commit, lease),
      stillHeld: (lease) => this.#stillHeld(lease),
    };
    this.#loop = new WorkLoop({
      name: 'intake',
      concurrency: this.#o.concurrency,
      claim: (limit, owner) => this.#o.store.claimInbox(owner, limit, this.#o.leaseMs),
      handle: async (entry, lease) => {
        await this.#handle(entry, lease);
        // A step whose lease ran out before it wrote (a stalled event loop) wrote nothing and let go of nothing: on
        // the embedded ledger, whose holds never run out, nobody would take the entry over. Let go of here, fenced
        // by the claim's token (a copy another claim holds stays its), to be read again at once.
        if (!lease.held()) await this.#o.store.releaseEntry(lease.owner, entry.key, this.#o.now());
      },
      // Handling that failed (the ledger's disk, say) lets go of the entry, to be read again after a pause.
      abandon: (entry, lease) =>
        this.#o.store.releaseEntry(lease.owner, entry.key, new Date(this.#o.now().getTime() + this.#o.retryMinDelayMs)),
      leases: {
        owner: this.#o.owner,
        leaseMs: this.#o.leaseMs,
        keyOf: (entry) => entry.key,
        renew: (claims) => this.#o.store.renewClaims('inbox', claims, this.#o.leaseMs),
      },
      nextAt: () => this.#o.store.nextInboxAt(),
      pollMs: this.#o.pollMs,
      // Folding while acknowledgements are contended: what they allow, looked at again every 50 ms at least.
      yieldTo: this.#o.ackPressure,
      restMs: 50,
      logger: this.#o.logger,
    });
  }

  start(): void {
    this.#o.store.onWork(() => this.#loop.wake());
    this.#loop.start();
  }

  stop(): Promise<void> {
    return this.#loop.stop();
  }

  idle(): Promise<void> {
    return this.#loop.idle();
  }

  get isIdle(): boolean {
    return this.#loop.isIdle;
  }

  async #handle(entry: InboxEntry, lease: Lease): Promise<void> {
    if (entry.events) {
      // Read from the platform's API for this shop: its orders are claimed for it, so that no delivery under another shop's name takes them.
      await foreignOrders(this.#steps, entry.events);
      return this.#commit({ entryKey: entry.key, events: entry.events, lane: entry.lane }, lease);
    }
    const delivery = entry.delivery;
    if (!delivery) return this.#commit({ entryKey: entry.key }, lease);
    const adapter = this.#o.adapterFor(delivery.platform);
    if (!adapter) {
      return this.#commit(
        {
          entryKey: entry.key,
          deadLetter: deadLetter(
            this.#steps,
            entry,
            delivery,
            `no ${delivery.platform} adapter is configured to read it; set the ${delivery.platform} settings and retry it`,
          ),
        },
        lease,
      );
    }
    // A destructive body acted on before, with nothing since that lets it act again: not read, and the platform not asked.
    const once = adapter.actsOnce?.[delivery.topic];
    if (once && (await actedBefore(this.#steps, delivery, once))) return this.#commit({ entryKey: entry.key }, lease);
    // An install saved after this moment is newer than anything the translation found out.
    const readAt = this.#o.now().getTime();
    let translation: Translation;
    try {
      translation = await adapter.translate(delivery);
    } catch (error) {
      return defer(this.#steps, entry, delivery, error, lease);
    }
    switch (translation.kind) {
      case 'events':
        return this.#events(entry, delivery, adapter, translation.events, lease);
      case 'ignored':
      case 'recorded':
        this.#o.logger.debug(
          {
            platform: delivery.platform,
            topic: delivery.topic,
            delivery: entry.key,
            result: translation.kind,
            reason: translation.reason,
          },
          'delivery read',
        );
        return this.#commit({ entryKey: entry.key }, lease);
      case 'unusable':
        this.#o.logger.warn(
          { platform: delivery.platform, topic: delivery.topic, delivery: entry.key, reason: translation.reason },
          'delivery dead-lettered',
        );
        return this.#commit(
          { entryKey: entry.key, deadLetter: deadLetter(this.#steps, entry, delivery, translation.reason) },
          lease,
        );
      case 'uninstalled':
        return uninstalled(this.#steps, entry, delivery, once, readAt, lease);
      case 'privacy':
        await this.#o.privacy.handle(translation.request, 'platform');
        return this.#commit(
          { entryKey: entry.key, ...(once ? { records: [actedOn(this.#steps, delivery)] } : {}) },
          lease,
        );
    }
  }

  /** Orders a delivery told of: committed, unless they are another shop's; a delivery after an uninstall may install again. */
  async #events(
    entry: InboxEntry,
    delivery: StoredDelivery,
    adapter: PlatformAdapter<unknown>,
    events: OrderEvent[],
    lease: Lease,
  ): Promise<void> {
    const foreign = adapter.orderIdsAreGlobal ? await foreignOrders(this.#steps, events) : undefined;
    if (foreign) {
      this.#o.logger.warn(
        {
          platform: delivery.platform,
          topic: delivery.topic,
          shop: delivery.shop,
          delivery: entry.key,
          reason: foreign,
        },
        'a delivery for an order of another shop, under this shop’s name: not acted on',
      );
      return this.#commit({ entryKey: entry.key }, lease);
    }
    return this.#commit(
      {
        entryKey: entry.key,
        events,
        lane: entry.lane,
        ...(await reinstall(this.#steps, delivery, events)),
      },
      lease,
    );
  }

  /** The fence before intake writes: an entry whose lease was lost is left to whoever took it over. */
  #stillHeld(lease: Lease): boolean {
    if (lease.held()) return true;
    this.#o.logger.warn(
      { delivery: lease.key },
      'the lease on this delivery was lost while it was read; another instance takes it over',
    );
    return false;
  }

  /** Commits are gathered for a turn of the event loop and written in one step of the store. */
  #commit(commit: IntakeCommit & { ignore?: true }, lease: Lease): Promise<void> {
    if (!this.#stillHeld(lease)) return Promise.resolve();
    const { ignore, ...rest } = commit;
    const effective: IntakeCommit = { ...(ignore ? { entryKey: rest.entryKey } : rest), owner: lease.owner };
    return new Promise((resolve, reject) => {
      this.#batch.push({ commit: effective, resolve, reject });
      if (this.#batchScheduled) return;
      this.#batchScheduled = true;
      setImmediate(() => {
        this.#batchScheduled = false;
        const batch = this.#batch;
        this.#batch = [];
        this.#o.store.commitIntake(batch.map(({ commit: each }) => each)).then(
          () => {
            // The store tells the worker which orders changed.
            for (const { resolve: done } of batch) done();
          },
          (error: unknown) => {
            for (const { reject: fail } of batch) fail(error);
          },
        );
      });
    });
  }
}
