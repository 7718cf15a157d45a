// The core, assembled: the lowdb store under DATA_DIR, the ledger over it and
// the worker that drains it through the loyalty client.
import type { Logger } from '../logger.ts';
import { Ledger, type AcceptResult } from './ledger.ts';
import type { OrderEvent } from './order-event.ts';
import type { Policy } from './policy.ts';
import type { DeadLetter, LedgerStore } from './store/ledger-store.ts';
import { LowdbStore } from './store/lowdb-store.ts';
import { Worker, type LoyaltyOperations, type WorkerOptions } from './worker.ts';

export interface EngineOptions {
  dataDir: string;
  client: LoyaltyOperations;
  policy: Policy;
  earnActivityId: string;
  logger: Logger;
  dedupeWindowMs?: number;
  /** Another store in place of the lowdb files. */
  store?: LedgerStore;
  worker?: Partial<Omit<WorkerOptions, 'ledger' | 'client' | 'policy' | 'earnActivityId' | 'logger'>>;
  now?: () => Date;
}

export interface Engine {
  ledger: Ledger;
  worker: Worker;
  /** Starts draining. openEngine() leaves this to the caller; startEngine() does it. */
  startWorker(): Promise<void>;
  /** The acknowledgement path: resolves once the delivery is on disk. */
  accept(deliveryKey: string, events: OrderEvent[], aliases?: string[]): Promise<AcceptResult>;
  retryDeadLetter(id: string): Promise<DeadLetter | undefined>;
  /** Waits until every accepted delivery is folded and the worker has nothing ready to do. */
  drain(): Promise<void>;
  /** Stops taking work, waits up to timeoutMs for calls under way, flushes the ledger. */
  stop(timeoutMs?: number): Promise<void>;
}

/** Opens the ledger (refusing a damaged one) without making any call yet. */
export async function openEngine(options: EngineOptions): Promise<Engine> {
  const now = options.now ?? (() => new Date());
  const store = options.store ?? new LowdbStore({ dataDir: options.dataDir });
  const ledger = await Ledger.open({ store, now, ...(options.dedupeWindowMs ? { dedupeWindowMs: options.dedupeWindowMs } : {}) });
  const worker = new Worker({
    ledger,
    client: options.client,
    policy: options.policy,
    earnActivityId: options.earnActivityId,
    logger: options.logger,
    now,
    ...options.worker,
  });
  if (ledger.tornSegmentsAtOpen > 0) {
    options.logger.warn({ torn: ledger.tornSegmentsAtOpen }, 'inbox files cut short by a crash were dropped; their deliveries had not been acknowledged, so the platforms send them again');
  }
  await ledger.pruneSeen();
  // The ledger just loaded whole: keep that picture as the last good copy, in the background.
  const backup = store.backUp?.().catch((error: unknown) => options.logger.warn({ err: error }, 'could not back up the ledger'));
  let pruner: NodeJS.Timeout | undefined;

  return {
    ledger,
    worker,
    async startWorker() {
      await worker.start();
      pruner = setInterval(() => void ledger.pruneSeen().catch((error: unknown) => options.logger.error({ err: error }, 'pruning seen deliveries failed')), 60 * 60_000);
      pruner.unref();
    },
    accept: (deliveryKey, events, aliases) => ledger.accept(deliveryKey, events, aliases),
    async retryDeadLetter(id) {
      const letter = await ledger.removeDeadLetter(id);
      if (letter?.kind === 'call' && letter.orderKey) await worker.retry(letter.orderKey, letter.id);
      return letter;
    },
    async drain() {
      await ledger.quiesce();
      await worker.idle();
    },
    async stop(timeoutMs = 10_000) {
      clearInterval(pruner);
      await backup;
      // A call still under way at the deadline is left: its intent is on disk, and it is made again after restart.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([worker.stop(), new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
      clearTimeout(timer);
      await ledger.flush();
    },
  };
}

export async function startEngine(options: EngineOptions): Promise<Engine> {
  const engine = await openEngine(options);
  await engine.startWorker();
  return engine;
}
