// Intake: what happens to an acknowledged delivery after the answer. Its platform's adapter translates it
// (reading the platform's API where the delivery alone cannot say), and the result is committed with the
// entry's consumption in one step, so a crash before that step only translates it again, which changes
// nothing twice. A platform that does not answer is asked again with backoff until RETRY_MAX_AGE_HOURS. The
// entry's lease is renewed while it is read; an instance that lost it commits nothing.
import { createHash } from 'node:crypto';
import { PlatformUnavailableError, type ActsOnce, type PlatformAdapter, type Translation } from './platform-adapter.ts';
import type { Logger } from '../logger.ts';
import { backoffDelay } from './backoff.ts';
import { DEFAULT_LEASE_MS, type Lease } from './leases.ts';
import { digestOf, type InboxEntry, type StoredDelivery } from './delivery.ts';
import { keptDelivery } from './kept-deliveries.ts';
import { orderKey, type OrderEvent } from './order-event.ts';
import type { Privacy } from './privacy.ts';
import { ACCESS_KIND } from './store/roles/core-kinds.ts';
import type {
  IntakeCommit,
  NewDeadLetter,
  ShopState,
  IntakeRole,
  OrderWorkRole,
  RecordRole,
  LedgerLifecycle,
} from './store/ledger-store.ts';
import { WorkLoop, type YieldTo } from './work-loop.ts';
import { SHOP_KIND } from './store/roles/core-kinds.ts';
import { z } from 'zod';
import { recordType } from './store/roles/record-types.ts';

export interface IntakeOptions {
  store: IntakeRole & OrderWorkRole & RecordRole & LedgerLifecycle;
  adapterFor: (platform: string) => PlatformAdapter<unknown> | undefined;
  privacy: Privacy;
  logger: Logger;
  /** Who leases entries, when several bridges share a store. */
  owner: string;
  concurrency?: number;
  maxRetryAgeMs?: number;
  retryMinDelayMs?: number;
  retryMaxDelayMs?: number;
  /** Poll the shared store this often for entries other instances left. */
  pollMs?: number | undefined;
  /** How long an entry stays with an instance that stopped answering before another takes it. */
  leaseMs?: number;
  /** When acknowledgements compete for the event loop: folding then runs at its minimum share (ack-pressure.ts). */
  ackPressure?: YieldTo;
  now?: () => Date;
  random?: () => number;
}

const HOUR = 60 * 60_000;

/** What is kept of a destructive body acted on: its digest (the id) and when; nothing of the shop or the customer. */
interface ActedOnce {
  topic: string;
  at: string;
}

const ACTED_ONCE_KIND = recordType<ActedOnce>('acted-once', z.looseObject({ topic: z.string(), at: z.string() }));

/** A destructive body's identity: its platform, topic and exact bytes as they came (which name the shop). */
const actedOnceId = (delivery: StoredDelivery) => digestOf(delivery);

/** A dead letter's id for an inbox entry: the same entry never makes two. */
export const deadLetterIdFor = (entryKey: string) =>
  `delivery-${createHash('sha256').update(entryKey).digest('hex').slice(0, 20)}`;

export class Intake {
  readonly #o: Required<Omit<IntakeOptions, 'pollMs' | 'ackPressure'>> & Pick<IntakeOptions, 'pollMs' | 'ackPressure'>;
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
      await this.#foreignOrders(entry.events);
      return this.#commit({ entryKey: entry.key, events: entry.events, lane: entry.lane }, lease);
    }
    const delivery = entry.delivery;
    if (!delivery) return this.#commit({ entryKey: entry.key }, lease);
    const adapter = this.#o.adapterFor(delivery.platform);
    if (!adapter) {
      return this.#commit(
        {
          entryKey: entry.key,
          deadLetter: this.#deadLetter(
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
    if (once && (await this.#actedBefore(delivery, once))) return this.#commit({ entryKey: entry.key }, lease);
    // An install saved after this moment is newer than anything the translation found out.
    const readAt = this.#o.now().getTime();
    let translation: Translation;
    try {
      translation = await adapter.translate(delivery);
    } catch (error) {
      return this.#defer(entry, delivery, error, lease);
    }
    switch (translation.kind) {
      case 'events': {
        const foreign = adapter.orderIdsAreGlobal ? await this.#foreignOrders(translation.events) : undefined;
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
            events: translation.events,
            lane: entry.lane,
            ...(await this.#reinstall(delivery, translation.events)),
          },
          lease,
        );
      }
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
          { entryKey: entry.key, deadLetter: this.#deadLetter(entry, delivery, translation.reason) },
          lease,
        );
      case 'uninstalled':
        return this.#uninstalled(entry, delivery, once, readAt, lease);
      case 'privacy':
        await this.#o.privacy.handle(translation.request, 'platform');
        return this.#commit({ entryKey: entry.key, ...(once ? { records: [this.#actedOn(delivery)] } : {}) }, lease);
    }
  }

  /**
   * The app was removed from a shop (the adapter confirmed it with the
   * platform wherever it holds a token: a working token means installed). Its
   * token is forgotten and the shop marked uninstalled, unless the shop was
   * installed again meanwhile: an uninstall sent before the last install, or
   * a token saved after this delivery was read, is a newer install's, and it
   * stays (one compare-and-set on the token, across instances).
   */
  async #uninstalled(
    entry: InboxEntry,
    delivery: StoredDelivery,
    once: ActsOnce | undefined,
    readAt: number,
    lease: Lease,
  ): Promise<void> {
    const shopId = `${delivery.platform}:${delivery.shop}`;
    const before = await this.#o.store.getRecord(SHOP_KIND, shopId);
    if (before?.installedAt && Date.parse(delivery.sentAt) <= Date.parse(before.installedAt)) {
      this.#o.logger.info(
        { platform: delivery.platform, shop: delivery.shop },
        'an uninstall sent before the app was last installed: the install stays',
      );
      return this.#commit({ entryKey: entry.key }, lease);
    }
    if (!this.#stillHeld(lease)) return;
    const session = await this.#o.store.changeRecord(ACCESS_KIND, shopId, (current) =>
      current && !(Date.parse(current.updatedAt ?? '') > readAt) ? { delete: true } : undefined,
    );
    if (!session.changed && session.value) {
      this.#o.logger.info(
        { platform: delivery.platform, shop: delivery.shop },
        'the app was installed again while the uninstall was read: the new install stays',
      );
      return this.#commit({ entryKey: entry.key }, lease);
    }
    this.#o.logger.info(
      { platform: delivery.platform, shop: delivery.shop },
      'the app was uninstalled from a shop; its access token is forgotten',
    );
    await this.#o.privacy.shopUninstalled(delivery.platform, delivery.shop);
    const state: ShopState = {
      ...before,
      platform: delivery.platform,
      shop: delivery.shop,
      uninstalledAt: delivery.sentAt,
    };
    return this.#commit(
      { entryKey: entry.key, shop: state, ...(once ? { records: [this.#actedOn(delivery)] } : {}) },
      lease,
    );
  }

  /**
   * A body that takes a customer's data away, or a shop's install, acts once
   * however long after it comes again (the dedupe window forgets, this record
   * does not), until what lets it act again has happened (ActsOnce): the
   * platforms send the same bytes for a later install's uninstall and
   * shop/redact. The record is kept in the same step as the act.
   */
  async #actedBefore(delivery: StoredDelivery, once: ActsOnce): Promise<boolean> {
    const acted = await this.#o.store.getRecord(ACTED_ONCE_KIND, actedOnceId(delivery));
    if (!acted) return false;
    if (once !== 'ever') {
      const state = await this.#o.store.getRecord(SHOP_KIND, `${delivery.platform}:${delivery.shop}`);
      const since = once === 'per-install' ? state?.installedAt : state?.uninstalledAt;
      if (since && Date.parse(since) > Date.parse(acted.at)) return false;
    }
    this.#o.logger.warn(
      { platform: delivery.platform, topic: delivery.topic, shop: delivery.shop, actedAt: acted.at },
      'a body that was acted on before came again, with nothing since that lets it act again: not acted on',
    );
    return true;
  }

  #actedOn(delivery: StoredDelivery): { kind: 'acted-once'; id: string; value: ActedOnce } {
    return {
      kind: 'acted-once',
      id: actedOnceId(delivery),
      value: { topic: delivery.topic, at: this.#o.now().toISOString() },
    };
  }

  /**
   * Where a platform's order ids are unique across its shops (its adapter
   * says orderIdsAreGlobal), each order belongs to the first shop it came from: a delivery of it under
   * another shop's name (a captured body sent with another shop's header,
   * which is not signed) would make it earn twice. The reason, or undefined.
   */
  async #foreignOrders(events: readonly OrderEvent[]): Promise<string | undefined> {
    for (const event of events) {
      if (!this.#o.adapterFor(event.platform)?.orderIdsAreGlobal) continue;
      const key = orderKey(event);
      const owner = await this.#o.store.claimLpOrderId(`${event.platform}-order:${event.orderId}`, key);
      if (owner !== key) return `order ${event.orderId} is ${owner.slice(0, owner.lastIndexOf(':'))}'s`;
    }
    return undefined;
  }

  /**
   * An order delivery from a shop the app was uninstalled from: sent before
   * the uninstall, it is ignored; sent after, the app is back (reinstalled
   * without OAuth, or by the platform itself), and the uninstall is cleared. When
   * it was sent is the earlier of the time its headers give (never after its
   * arrival) and the time its signed body gives its order: a captured
   * delivery of before the uninstall, sent again later with a header dated
   * now, still tells of an order as it was then.
   */
  async #reinstall(
    delivery: StoredDelivery,
    events: readonly OrderEvent[],
  ): Promise<{ shop?: ShopState; ignore?: true }> {
    const state = await this.#o.store.getRecord(SHOP_KIND, `${delivery.platform}:${delivery.shop}`);
    if (!state?.uninstalledAt) return {};
    const bodyTime = Math.max(
      ...events.map((event) => Date.parse(event.occurredAt)).filter((time) => !Number.isNaN(time)),
    );
    const sent = Math.min(Date.parse(delivery.sentAt), Number.isFinite(bodyTime) ? bodyTime : Number.POSITIVE_INFINITY);
    if (sent <= Date.parse(state.uninstalledAt)) return { ignore: true };
    this.#o.logger.info(
      { platform: delivery.platform, shop: delivery.shop },
      'a delivery sent after the uninstall: the app is installed again',
    );
    return { shop: { ...state, uninstalledAt: null, installedAt: delivery.sentAt } };
  }

  #deadLetter(entry: InboxEntry, delivery: StoredDelivery, reason: string): NewDeadLetter {
    // A delivery an instance of an earlier release kept whole (during a rolling upgrade) is kept as this one keeps it.
    const adapter = this.#o.adapterFor(delivery.platform);
    delivery = (adapter && keptDelivery(adapter, delivery)) ?? delivery;
    return {
      id: deadLetterIdFor(entry.key),
      kind: 'delivery',
      reason,
      platform: delivery.platform,
      topic: delivery.topic,
      shop: delivery.shop,
      deliveryKey: entry.key,
      delivery,
    };
  }

  async #defer(entry: InboxEntry, delivery: StoredDelivery, error: unknown, lease: Lease): Promise<void> {
    const now = this.#o.now();
    const message = (error as Error).message ?? String(error);
    const firstFailureAt = entry.retry?.firstFailureAt ?? now.toISOString();
    if (now.getTime() - Date.parse(firstFailureAt) >= this.#o.maxRetryAgeMs) {
      const reason = `${delivery.platform} did not answer for ${Math.round(this.#o.maxRetryAgeMs / HOUR)} h: ${message}`;
      this.#o.logger.error(
        { platform: delivery.platform, topic: delivery.topic, delivery: entry.key, reason },
        'delivery dead-lettered',
      );
      return this.#commit({ entryKey: entry.key, deadLetter: this.#deadLetter(entry, delivery, reason) }, lease);
    }
    if (!(error instanceof PlatformUnavailableError))
      this.#o.logger.error(
        { err: error, platform: delivery.platform, delivery: entry.key },
        'reading a delivery failed; it will be tried again',
      );
    const attempts = (entry.retry?.attempts ?? 0) + 1;
    const delay = backoffDelay(
      attempts,
      { minDelayMs: this.#o.retryMinDelayMs, maxDelayMs: this.#o.retryMaxDelayMs, random: this.#o.random },
      error instanceof PlatformUnavailableError ? error.retryAfterMs : undefined,
    );
    const retryAt = new Date(now.getTime() + delay).toISOString();
    this.#o.logger.warn(
      {
        platform: delivery.platform,
        topic: delivery.topic,
        delivery: entry.key,
        attempts,
        retryInMs: delay,
        error: message,
      },
      'the platform did not answer; the delivery will be read again',
    );
    if (!this.#stillHeld(lease)) return;
    await this.#o.store.deferInbox(lease.owner, entry.key, { attempts, firstFailureAt, retryAt, lastError: message });
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
