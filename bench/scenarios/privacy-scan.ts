// A customer's export and erasure beside a dead letter whose kept body is
// 1 MiB that is not JSON (an authentic delivery a merchant signed, which the
// bridge keeps: issue 46, where a 150 KB one held the operator's export for
// 10.5 s). Such a body is searched for whole e-mail addresses, in one pass
// now (wholeEmails, src/core/store/customer-data.ts). On both backends, in
// milliseconds, with a letter of 1 KiB beside it for the baseline.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Privacy } from '../../src/core/privacy.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { openPostgresStore } from '../../src/core/store/postgres/open-postgres.ts';
import { createLogger } from '../../src/logger.ts';
import { freshDatabase, probePostgres } from '../lib/databases.ts';

export interface PrivacyScanRun {
  backend: 'lowdb' | 'postgres';
  bodyBytes: number;
  exportMs: number;
  eraseMs: number;
}

const logger = createLogger({ level: 'silent' });

async function measure(store: LedgerStore, backend: PrivacyScanRun['backend'], bodyBytes: number) {
  const body = `${'a'.repeat(bodyBytes - 40)} someone@else.example`;
  await store.addDeadLetter({
    id: `bench-letter-${bodyBytes}`,
    kind: 'delivery',
    reason: 'not JSON',
    platform: 'woocommerce',
    shop: 'bench.example',
    delivery: {
      platform: 'woocommerce',
      topic: 'order.updated',
      shop: 'bench.example',
      sentAt: new Date().toISOString(),
      headers: {},
      body,
      bodyEncoding: 'utf8',
    },
  });
  // No adapter: the body is read as text, as an adapter reads a body that is not JSON (adapters/shared/redact.ts).
  const privacy = new Privacy({ store, adapterFor: () => undefined, logger });
  const match = { emails: ['ann@bench.example'], phones: [], orderIds: [] };
  let started = performance.now();
  await privacy.exportCustomer(match);
  const exportMs = performance.now() - started;
  started = performance.now();
  await privacy.eraseCustomer(match, 'cli');
  const eraseMs = performance.now() - started;
  return { backend, bodyBytes, exportMs: Math.round(exportMs), eraseMs: Math.round(eraseMs) };
}

export async function privacyScanScenario(sizes: number[]): Promise<PrivacyScanRun[]> {
  const runs: PrivacyScanRun[] = [];
  for (const size of sizes) {
    const dataDir = mkdtempSync(join(tmpdir(), 'bench-privacy-'));
    const store = new LowdbStore({ dataDir, settleAfterMs: 0 });
    try {
      await store.open();
      runs.push(await measure(store, 'lowdb', size));
    } finally {
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
    if (!(await probePostgres())) continue;
    const database = await freshDatabase();
    const { store: pgStore, release } = await openPostgresStore({
      url: database.url,
      dedupeWindowMs: 7 * 86_400_000,
      logger,
      poolSize: 2,
    });
    try {
      await pgStore.open();
      runs.push(await measure(pgStore, 'postgres', size));
    } finally {
      await release();
      await database.drop();
    }
  }
  return runs;
}
