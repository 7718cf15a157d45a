// Resyncs started from the admin API run in the background; their progress
// (fetched, changed, failed) can be read while they run and after.
import { randomUUID } from 'node:crypto';
import type { Engine } from './engine.ts';
import type { OrderEvent } from './order-event.ts';
import type { ReconcileSource } from './reconciler.ts';
import { resync, type ResyncProgress } from './resync.ts';

export type ResyncRequest = { platform: string; since: Date; until?: Date | undefined } | { platform: string; orderIds: string[] };

export interface ResyncJob {
  id: string;
  platform: string;
  request: { since?: string; until?: string; orderIds?: string[] };
  status: 'running' | 'done' | 'failed';
  progress: ResyncProgress;
  startedAt: string;
  finishedAt: string | null;
}

const KEPT_JOBS = 50;

export class ResyncJobs {
  readonly #sources: ReconcileSource[];
  readonly #engine: Engine;
  readonly #jobs = new Map<string, ResyncJob>();

  constructor(sources: ReconcileSource[], engine: Engine) {
    this.#sources = sources;
    this.#engine = engine;
  }

  get platforms(): string[] {
    return this.#sources.map((source) => source.platform);
  }

  /** Starts a resync and returns at once; undefined when the platform has no API access configured. */
  start(request: ResyncRequest): ResyncJob | undefined {
    const source = this.#sources.find((candidate) => candidate.platform === request.platform);
    if (!source) return undefined;
    const job: ResyncJob = {
      id: randomUUID(),
      platform: request.platform,
      request: 'orderIds' in request ? { orderIds: request.orderIds } : { since: request.since.toISOString(), ...(request.until ? { until: request.until.toISOString() } : {}) },
      status: 'running',
      progress: { fetched: 0, changed: 0, unchanged: 0, failed: 0, errors: [] },
      startedAt: new Date().toISOString(),
      finishedAt: null,
    };
    this.#jobs.set(job.id, job);
    for (const old of [...this.#jobs.keys()].slice(0, Math.max(0, this.#jobs.size - KEPT_JOBS))) this.#jobs.delete(old);
    const orders = 'orderIds' in request ? chosenOrders(source, request.orderIds) : source.fetchOrders({ since: request.since, ...(request.until ? { until: request.until } : {}) });
    void resync(orders, this.#engine, (progress) => {
      job.progress = { ...progress, errors: [...progress.errors] };
    }).then(
      (result) => {
        job.progress = result;
        job.status = result.failed > 0 && result.fetched === 0 ? 'failed' : 'done';
        job.finishedAt = new Date().toISOString();
      },
      (error: unknown) => {
        job.progress.errors.push((error as Error).message);
        job.status = 'failed';
        job.finishedAt = new Date().toISOString();
      },
    );
    return job;
  }

  get(id: string): ResyncJob | undefined {
    return this.#jobs.get(id);
  }

  list(): ResyncJob[] {
    return [...this.#jobs.values()].reverse();
  }
}

async function* chosenOrders(source: ReconcileSource, orderIds: string[]): AsyncGenerator<OrderEvent> {
  for (const orderId of orderIds) {
    const event = await source.fetchOrder(orderId);
    if (!event) throw new Error(`order ${orderId} was not found on ${source.platform}`);
    yield event;
  }
}
