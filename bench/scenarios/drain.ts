// 3: a backlog drained into the sandbox at the rate limit. The bridge's
// limiter and the sandbox's limit are both set to `limit` a minute; what
// counts is the rate achieved and the number of 429s (none allowed).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEngine } from '../../src/core/engine.ts';
import { DEFAULT_POLICY } from '../../src/core/policy.ts';
import { LoyaltyClient } from '../../src/loyalty/client.ts';
import { createLogger } from '../../src/logger.ts';
import { benchOrder, type Series } from '../lib/orders.ts';
import { startSandbox } from './ack.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';

export interface DrainResult {
  jobs: number;
  limitPerMinute: number;
  seconds: number;
  callsPerMinute: number;
  fractionOfLimit: number;
  rateLimited: number;
  failed: number;
}

const DRAIN: Series = {
  name: 'Drain',
  firstId: 7_000_000_000_000,
  facts: ['placed', 'paid'],
  total: '10.00',
  from: Date.UTC(2026, 10, 21),
  stepMs: 1,
};

export async function drainScenario(jobs: number, limitPerMinute: number): Promise<DrainResult> {
  const sandbox = await startSandbox(limitPerMinute);
  let rateLimited = 0;
  let calls = 0;
  try {
    const client = new LoyaltyClient({
      baseUrl: sandbox.url,
      apiKey: 'sandbox-key',
      brandId: 'sandbox-brand',
      rateLimitPerMinute: limitPerMinute,
      maxRetries: 0,
      onAttempt: (report) => {
        calls++;
        if (report.outcome === 'rate_limited') rateLimited++;
      },
    });
    const engine = await openEngine({
      store: new LowdbStore({ dataDir: mkdtempSync(join(tmpdir(), 'bench-drain-')) }),
      client,
      policy: DEFAULT_POLICY,
      earnActivityId: '1',
      logger: createLogger({ level: 'silent' }),
    });
    // The backlog first, then the clock: only the drain is measured.
    await Promise.all(Array.from({ length: jobs }, (_, n) => engine.accept(`drain-${n}`, [benchOrder(DRAIN, n)])));
    await engine.foldInbox();
    const started = performance.now();
    await engine.startWorker();
    await engine.drain();
    const seconds = (performance.now() - started) / 1000;
    const failed = (await engine.store.listDeadLetters()).length;
    await engine.stop();
    const callsPerMinute = (calls / seconds) * 60;
    return {
      jobs,
      limitPerMinute,
      seconds: Number(seconds.toFixed(1)),
      callsPerMinute: Math.round(callsPerMinute),
      fractionOfLimit: Number((callsPerMinute / limitPerMinute).toFixed(3)),
      rateLimited,
      failed,
    };
  } finally {
    await sandbox.stop();
  }
}
