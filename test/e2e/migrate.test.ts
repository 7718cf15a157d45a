// `loyalty-bridge migrate --to`, as a merchant outgrowing one machine runs
// it: refused while the bridge runs on DATA_DIR; once it is stopped, every
// order and dead letter is copied, a bridge started on the database shows the
// same ledger, and running the copy again changes nothing.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestBridge } from '../helpers/bridge.ts';
import { runCli } from '../helpers/cli-process.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { freshDatabase, postgresAvailable, type TestDatabase } from '../helpers/postgres.ts';
import { SHOPIFY_SECRET, shopifyHeaders, shopifyOrderJson } from '../helpers/shopify.ts';

const dataDir = tempDataDir();
let database: TestDatabase;
beforeAll(async () => {
  if (postgresAvailable()) database = await freshDatabase();
});
afterAll(async () => {
  await database?.drop();
});

it.skipIf(!postgresAvailable())(
  'copies a stopped bridge’s ledger into PostgreSQL, once in effect however often it runs',
  async () => {
    const env = { DATA_DIR: dataDir, SHOPIFY_API_SECRET: SHOPIFY_SECRET, RECONCILE_INTERVAL_MINUTES: '0' };
    const bridge = await startTestBridge(env);
    for (let n = 1; n <= 12; n++) {
      const body = shopifyOrderJson({ id: String(8_800_000 + n) });
      const response = await fetch(`${bridge.http.localUrl}/webhooks/shopify`, {
        method: 'POST',
        headers: shopifyHeaders({ topic: 'orders/paid', body, webhookId: `migrate-${n}` }),
        body,
      });
      expect(response.status).toBe(200);
    }
    await bridge.engine.drain();
    // One order the service refuses: a dead letter to carry over.
    bridge.sandbox?.faults.configure({ forced: { status: 400, count: 1 } });
    const refused = shopifyOrderJson({ id: '8800099' });
    await fetch(`${bridge.http.localUrl}/webhooks/shopify`, {
      method: 'POST',
      headers: shopifyHeaders({ topic: 'orders/paid', body: refused, webhookId: 'migrate-refused' }),
      body: refused,
    });
    await bridge.engine.drain();

    const whileRunning = await runCli(['migrate', '--to', database.url], { DATA_DIR: dataDir });
    expect(whileRunning.code).toBe(1);
    expect(whileRunning.stderr).toMatch(/in use|running|locked/i);
    await bridge.stop();

    const first = await runCli(['migrate', '--to', database.url], { DATA_DIR: dataDir });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/done: the database holds 13 orders and 1 dead letters/);
    const again = await runCli(['migrate', '--to', database.url], { DATA_DIR: dataDir });
    expect(again.stdout).toMatch(/done: the database holds 13 orders and 1 dead letters/);

    // The ledger, read through the database: the same orders, the same dead letter.
    const status = await runCli(['status'], { DATABASE_URL: database.url, DATA_DIR: tempDataDir() });
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/Shopify\s+13/);
    const letters = await runCli(['dead-letters', 'list'], { DATABASE_URL: database.url, DATA_DIR: tempDataDir() });
    expect(letters.stdout).toMatch(/8800099/);
  },
  60_000,
);
