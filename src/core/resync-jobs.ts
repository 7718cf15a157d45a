// Resyncs started from the admin API run in the background on the instance asked: one at a time per
// platform and shop across instances (the store's exclusive lock), and at most MAX_RUNNING at once on one
// instance, since each holds a database session for its lock and keeps the pool and the platform's API
// busy. Their progress is a record in the store, so the dashboard behind any instance can follow it.
import { randomUUID } from 'node:crypto';
import PQueue from 'p-queue';
import type { Logger } from '../logger.ts';
import type { Ingest } from './ingest.ts';
import type { OrderEvent } from './order-event.ts';
import type { OrderSource } from './order-source.ts';
import { emptyProgress, resync, type ResyncProgress } from './resync.ts';
import type { RecordRole, LedgerLifecycle } from './store/ledger-store.ts';
import { recordType } from './store/roles/record-types.ts';
import { z } from 'zod';

export type ResyncRequest = {
  platform: string;
  shop?: string | undefined;
  /** Who asked, for the job's record: the operator, or a shop's page (and its staff member). */
  by?: string | undefined;
} & ({ since: Date; until?: Date | undefined } | { orderIds: string[] });

export interface ResyncJob {
  id: string;
  platform: string;
  shops: string[];
  request: { since?: string | undefined; until?: string | undefined; orderIds?: string[] | undefined };
  status: 'running' | 'done' | 'failed';
  progress: ResyncProgress;
  /** Who asked for it, when known. */
  startedBy?: string | undefined;
  /** The one shop it reads, when it reads one: a shop's erasure takes the job with it (a record naming a shop). */
  shop?: string | undefined;
  startedAt: string;
  finishedAt: string | null;
}

const JOB_KIND = recordType<ResyncJob>(
  'resync-job',
  z.looseObject({
    id: z.string(),
    platform: z.string(),
    shops: z.array(z.string()),
    request: z.looseObject({
      since: z.string().optional(),
      until: z.string().optional(),
      orderIds: z.array(z.string()).optional(),
    }),
    status: z.enum(['running', 'done', 'failed']),
    progress: z.looseObject({
      fetched: z.number(),
      changed: z.number(),
      unchanged: z.number(),
      failed: z.number(),
      errors: z.array(z.string()),
      expected: z.number().optional(),
    }),
    startedBy: z.string().optional(),
    shop: z.string().optional(),
    startedAt: z.string(),
    finishedAt: z.string().nullable(),
  }),
);

/** A resync of this many chosen orders or fewer is a person's action on those orders: live. */
const LIVE_RESYNC_ORDERS = 10;
const KEPT_JOBS = 50;
/** Resyncs one instance runs at once; more wait for one of these to finish. */
export const MAX_RUNNING = 2;
/** Progress is written at most this often while a resync runs. */
const PROGRESS_EVERY_MS = 500;

export type StartResult = { ok: true; job: ResyncJob } | { ok: false; reason: string };

export class ResyncJobs {
  /** A list, or what the list is now (a first run's demo shops answer while the demo plays). */
  readonly #sources: () => readonly OrderSource[];
  readonly #store: RecordRole & LedgerLifecycle;
  readonly #ingest: Ingest;
  readonly #logger: Logger;
  readonly #running = new Set<Promise<void>>();
  readonly #turns = new PQueue({ concurrency: MAX_RUNNING });

  constructor(
    sources: readonly OrderSource[] | (() => readonly OrderSource[]),
    store: RecordRole & LedgerLifecycle,
    ingest: Ingest,
    logger: Logger,
  ) {
    this.#sources = typeof sources === 'function' ? sources : () => sources;
    this.#store = store;
    this.#ingest = ingest;
    this.#logger = logger;
  }

  get platforms(): string[] {
    return this.#sources().map((source) => source.platform);
  }

  /** The sources a resync reads now: what the dashboard offers to resync is exactly what would start. */
  get sources(): readonly OrderSource[] {
    return this.#sources();
  }

  /** Starts a resync and returns at once with its job. */
  async start(request: ResyncRequest): Promise<StartResult> {
    const source = this.#sources().find((candidate) => candidate.platform === request.platform);
    if (!source)
      return {
        ok: false,
        reason: `no API access is configured for ${request.platform} (configured: ${this.platforms.join(', ') || 'none'})`,
      };
    const reachable = await source.shops();
    if (request.shop && !reachable.includes(request.shop))
      return {
        ok: false,
        reason: `loyalty-bridge has no API access to ${request.shop} (reachable: ${reachable.join(', ') || 'none'})`,
      };
    const shops = request.shop ? [request.shop] : reachable;
    if (shops.length === 0) return { ok: false, reason: `no ${request.platform} shop is reachable yet` };
    const job: ResyncJob = {
      id: randomUUID(),
      platform: request.platform,
      shops,
      request:
        'orderIds' in request
          ? { orderIds: request.orderIds }
          : { since: request.since.toISOString(), ...(request.until ? { until: request.until.toISOString() } : {}) },
      status: 'running',
      progress: emptyProgress(),
      ...(request.by ? { startedBy: request.by } : {}),
      ...(shops.length === 1 ? { shop: shops[0] } : {}),
      startedAt: new Date().toISOString(),
      finishedAt: null,
    };
    await this.#store.putRecord(JOB_KIND, job.id, job);
    await this.#prune();
    const run = this.#turns.add(() => this.#run(source, job, request)).finally(() => this.#running.delete(run));
    this.#running.add(run);
    return { ok: true, job };
  }

  async #run(source: OrderSource, job: ResyncJob, request: ResyncRequest): Promise<void> {
    let lastWrite = 0;
    const save = async (force = false) => {
      if (!force && Date.now() - lastWrite < PROGRESS_EVERY_MS) return;
      lastWrite = Date.now();
      await this.#store
        .putRecord(JOB_KIND, job.id, job)
        .catch((error: unknown) => this.#logger.warn({ err: error }, 'could not save resync progress'));
    };
    const total = emptyProgress();
    try {
      for (const shop of job.shops) {
        const orders =
          'orderIds' in request
            ? chosenOrders(source, shop, request.orderIds)
            : source.fetchOrders(shop, { since: request.since, until: request.until });
        const ran = await this.#store.exclusive(`resync:${source.platform}:${shop}`, () =>
          resync(
            orders,
            this.#ingest,
            (progress) => {
              job.progress = add(total, progress);
              void save();
            },
            // A person asking for a few chosen orders waits for them, as for a webhook; a window is backfill.
            'orderIds' in request && request.orderIds.length <= LIVE_RESYNC_ORDERS ? 'live' : 'backfill',
          ),
        );
        if (!ran.ran) {
          total.failed++;
          total.errors.push(`a resync of ${shop} is already running on another instance`);
          continue;
        }
        Object.assign(total, add(total, ran.value));
        job.progress = { ...total, errors: [...total.errors] };
      }
      job.status = total.failed > 0 && total.fetched === 0 ? 'failed' : 'done';
    } catch (error) {
      job.progress.errors.push((error as Error).message);
      job.status = 'failed';
    }
    job.finishedAt = new Date().toISOString();
    await save(true);
  }

  async get(id: string): Promise<ResyncJob | undefined> {
    return this.#store.getRecord(JOB_KIND, id);
  }

  async list(): Promise<ResyncJob[]> {
    return (await this.#store.listRecords(JOB_KIND))
      .map(({ value }) => value)
      .sort((a, b) => b.startedAt.localeCompare(a.startedAt));
  }

  /** The jobs of one shop, the newest first (a shop's page sees only its own). */
  async ofShop(platform: string, shop: string): Promise<ResyncJob[]> {
    return (await this.list()).filter(
      (job) => job.platform === platform && job.shops.length === 1 && job.shops[0] === shop,
    );
  }

  async #prune(): Promise<void> {
    const jobs = await this.list();
    // A job still running is kept, however many came after it, while someone may follow its progress; one that
    // still says running a day on was left by an instance that stopped before it ended.
    const abandoned = new Date(Date.now() - 86_400_000).toISOString();
    for (const old of jobs.slice(KEPT_JOBS))
      if (old.status !== 'running' || old.startedAt < abandoned) await this.#store.deleteRecord(JOB_KIND, old.id);
  }

  /** Waits for the resyncs this instance runs. */
  async idle(): Promise<void> {
    await Promise.all(this.#running);
  }
}

/** The progress of the shops done so far plus the shop under way. */
function add(done: ResyncProgress, current: ResyncProgress): ResyncProgress {
  return {
    fetched: done.fetched + current.fetched,
    changed: done.changed + current.changed,
    unchanged: done.unchanged + current.unchanged,
    failed: done.failed + current.failed,
    errors: [...done.errors, ...current.errors].slice(0, 50),
    ...(done.expected !== undefined || current.expected !== undefined
      ? { expected: (done.expected ?? done.fetched) + (current.expected ?? 0) }
      : {}),
  };
}

async function* chosenOrders(source: OrderSource, shop: string, orderIds: string[]): AsyncGenerator<OrderEvent> {
  for (const orderId of orderIds) {
    const event = await source.fetchOrder(shop, orderId);
    if (!event) throw new Error(`order ${orderId} was not found on ${source.platform} (${shop})`);
    yield event;
  }
}
