// An upgrade from release 7a1c4ad, on each backend: the ledger that release
// left at a clean stop (test/upgrade/7a1c4ad/, written by running it: see
// write-7a1c4ad-ledgers.ts and the README there) opened by this code as the
// bridge opens it, against a sandbox that holds what the old run's sandbox
// held. Every order then finishes its work exactly once, the dead letters it
// had stay and no other comes, the inbox empties, the sessions and records
// it kept are read; and opening it a second time changes nothing and calls
// nothing.
import type { BigCommerceOwn } from '../../adapters/bigcommerce/module.ts';
import type { WooStores } from '../../adapters/woocommerce/stores.ts';
import { ownOf } from '../helpers/platform-own.ts';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkEarlierShops } from '../../src/accounts/earlier-shops.ts';
import { loadConfig } from '../../src/config.ts';
import { LEDGER_FORMAT, WRITTEN_BY } from '../../src/core/store/format/ledger-format.ts';
import type { Engine } from '../../src/core/engine.ts';
import type { OrderRecord } from '../../src/core/order-record.ts';
import type { DeadLetter, LedgerStore, RecordKind } from '../../src/core/store/ledger-store.ts';
import { loyaltyClientFromConfig, openConfiguredEngine } from '../../src/composition/engine-from-config.ts';
import { createLogger } from '../../src/logger.ts';
import { openStore } from '../../src/composition/open-store.ts';
import { buildPlatforms } from '../../src/composition/platforms.ts';
import type { SandboxState } from '../../src/sandbox/store.ts';
import { startFakeBigCommerce, type FakeBigCommerce } from '../helpers/fake-bigcommerce.ts';
import { freshDatabase, postgresAvailable, type TestDatabase } from '../helpers/postgres.ts';
import { SANDBOX_CREDENTIALS, startTestSandbox, type TestSandbox } from '../helpers/sandbox-server.ts';
import { shopifyPartsOf } from '../helpers/shopify.ts';
import { raw } from '../helpers/raw-records.ts';

const FIXTURE = join(import.meta.dirname, '7a1c4ad');

interface ExpectedOrder {
  platform: string;
  orderId: string;
  lpOrderId: string;
  state: string;
  reason?: string;
  points: 'pending' | 'approved' | 'cancelled' | null;
  conversion?: 'pending' | 'approved' | 'rejected';
  redeemedPoints?: number;
  heldBy?: 'earn';
  atStop: string;
  /** The calls this code makes for it, once each: what the old release left to do. */
  calls: string[];
}

interface Manifest {
  /** When the old release's runs ended: every call made later is this code's. */
  writtenAt: string;
  env: Record<string, string>;
  sandbox: { activities: Record<string, number> };
  orders: Record<string, ExpectedOrder>;
  deadLetters: Array<{
    kind: 'call' | 'delivery';
    orderKey?: string;
    operation?: string;
    httpStatus?: number;
    platform?: string;
    shop?: string;
    topic?: string;
  }>;
  redemptions: Array<{ email: string; points: number }>;
  manualEarnings: Array<{ email: string; activityId: string }>;
}

interface PlatformsAtStop {
  bigcommerce: {
    store: string;
    accessToken: string;
    clientSecret: string;
    orders: Record<string, Record<string, unknown>>;
  };
}

const read = <T>(name: string): T => JSON.parse(readFileSync(join(FIXTURE, name), 'utf8')) as T;
const manifest = read<Manifest>('expected.json');
const platformsAtStop = read<PlatformsAtStop>('platforms.json');
const expectedOrders = Object.entries(manifest.orders);
/** Where the sandbox holds each points status. */
const UPSTREAM_OF = { pending: 'earned', approved: 'approved', cancelled: 'cancelled' } as const;
/** Every kind of record: the old release's, and those this code added (a second open must add none either). */
const RECORD_KINDS: RecordKind[] = [
  'shop',
  'session',
  'reconciliation',
  'adjustment',
  'resync-job',
  'data-request',
  'privacy-log',
  'platform-health',
  'migration',
  'allowed-shop',
  'acted-once',
  'declared-delivery',
  'callback-payload',
  'sandbox-credentials',
];

/** What the ledger holds, whole: to compare one open with the next. */
interface LedgerPicture {
  orders: Record<string, OrderRecord | undefined>;
  deadLetters: DeadLetter[];
  inboxBacklog: number;
  records: Partial<Record<RecordKind, Array<{ id: string; value: unknown }>>>;
}

async function pictureOf(store: LedgerStore): Promise<LedgerPicture> {
  const { orders } = await store.listOrders({ page: 1, limit: 1_000 });
  const records: LedgerPicture['records'] = {};
  for (const kind of RECORD_KINDS)
    records[kind] = (await store.listRecords(raw(kind))).sort((a, b) => a.id.localeCompare(b.id));
  return {
    orders: Object.fromEntries(
      await Promise.all(orders.map(async (summary) => [summary.key, await store.getOrder(summary.key)] as const)),
    ),
    deadLetters: await Promise.all(
      (await store.listDeadLetters()).map(async (listed) => (await store.getDeadLetter(listed.id)) ?? listed),
    ),
    inboxBacklog: (await store.stats()).inboxBacklog,
    records,
  };
}

/** What the platforms' parts of this code read from the ledger: the shop sessions the old release kept. */
interface SessionsRead {
  shopifyAccess: boolean;
  wooStores: Array<{ shop: string; via: string; hasRest: boolean }>;
  bigcommerce: { shop: string; hasApi: boolean } | undefined;
}

interface Opening {
  picture: LedgerPicture;
  sessions: SessionsRead;
  calls: number;
  /** Warnings and errors the code logged. */
  logged: string[];
}

/**
 * Opens the ledger as the bridge opens it (src/composition/main.ts: the store, the
 * client, the platforms, the engine, the platforms' preparation), starts the
 * work, waits until it is done, reads everything, and stops.
 */
async function openAndFinish(
  ledger: Record<string, string>,
  sandbox: TestSandbox,
  bigcommerce: FakeBigCommerce,
): Promise<Opening> {
  const logged: string[] = [];
  const logger = createLogger({ level: 'warn', destination: { write: (line: string) => void logged.push(line) } });
  const loaded = loadConfig({
    env: {
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DEMO_STORE: 'off',
      PUBLIC_URL: 'https://bridge.upgrade-fixture.example',
      LOYALTY_BASE_URL: sandbox.url,
      LOYALTY_API_KEY: SANDBOX_CREDENTIALS.apiKey,
      LOYALTY_BRAND_ID: SANDBOX_CREDENTIALS.brandId,
      LOYALTY_RATE_LIMIT_PER_MINUTE: '100000',
      RECONCILE_INTERVAL_MINUTES: '0',
      BIGCOMMERCE_API_URL: bigcommerce.url,
      ...manifest.env,
      ...ledger,
    },
  });
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  const config = loaded.config;
  const opened = await openStore(config, logger);
  let calls = 0;
  try {
    const report = await opened.store.open();
    // The loyalty service is where this configuration says, whatever the old orders were sent to.
    const client = loyaltyClientFromConfig(config, opened, { baseUrl: sandbox.url, onAttempt: () => calls++ });
    // No Shopify Admin API here: an order that needed one would wait, and the test would say so.
    const platforms = buildPlatforms(
      config,
      opened.store,
      { apiUrls: { shopify: () => 'http://127.0.0.1:9' } },
      { logger },
    );
    const { engine, accounts } = await openConfiguredEngine(config, {
      opened,
      openReport: report,
      client,
      logger,
      platforms,
    });
    try {
      await platforms.prepare(() => engine.foldInbox());
      await linkEarlierShops(opened.store, accounts, logger);
      await engine.startWorker();
      await finished(engine);
      const bc = await ownOf<BigCommerceOwn>(platforms, 'bigcommerce').stores.get(platformsAtStop.bigcommerce.store);
      const sessions: SessionsRead = {
        shopifyAccess: (await shopifyPartsOf(platforms)?.access.hasAccess(manifest.env.SHOPIFY_SHOPS!)) ?? false,
        wooStores: (await ownOf<WooStores>(platforms, 'woocommerce').list()).map((store) => ({
          shop: store.shop,
          via: store.via,
          hasRest: store.rest !== undefined,
        })),
        bigcommerce: bc ? { shop: bc.shop, hasApi: bc.api !== undefined } : undefined,
      };
      return { picture: await pictureOf(opened.store), sessions, calls, logged };
    } finally {
      await engine.stop();
    }
  } finally {
    await opened.release();
  }
}

/** Until every accepted delivery is folded and nothing is due now; an engine that cannot finish fails the test. */
async function finished(engine: Engine, timeoutMs = 60_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    engine.drain(),
    new Promise(
      (_, reject) => (timer = setTimeout(() => reject(new Error('the engine did not finish its work')), timeoutMs)),
    ),
  ]).finally(() => clearTimeout(timer));
}

/** The BigCommerce store the old release installed on, answering with what it held at the stop. */
async function bigCommerceAtStop(): Promise<FakeBigCommerce> {
  const { store, accessToken, clientSecret, orders } = platformsAtStop.bigcommerce;
  const fake = await startFakeBigCommerce({ storeHash: store, accessToken, accountClientSecret: clientSecret });
  for (const [id, order] of Object.entries(orders)) fake.orders.set(Number(id), order);
  return fake;
}

async function restoreDump(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // Plain SQL as pg_dump writes it, but for psql's own commands (\restrict, \unrestrict in newer pg_dump).
    await client.query(sql.replace(/^\\(un)?restrict .*$/gm, ''));
  } finally {
    await client.end();
  }
}

function upgradeSuite(backend: 'lowdb' | 'postgres') {
  let sandbox: TestSandbox;
  let bigcommerce: FakeBigCommerce;
  let ledger: Record<string, string>;
  let cleanUp: () => Promise<void> = async () => undefined;
  let first: Opening;
  const savedState = read<SandboxState>(`sandbox-${backend}.json`);
  const earningsOf = (state: SandboxState, lpOrderId: string) =>
    state.earnings.filter((earning) => earning.orderId === lpOrderId);

  beforeAll(async () => {
    sandbox = await startTestSandbox({
      rateLimit: 100_000,
      activities: manifest.sandbox.activities,
      state: savedState,
    });
    bigcommerce = await bigCommerceAtStop();
    const dataDir = mkdtempSync(join(tmpdir(), 'lb-upgrade-'));
    if (backend === 'lowdb') {
      cpSync(join(FIXTURE, 'lowdb'), dataDir, { recursive: true });
      ledger = { DATA_DIR: dataDir };
      cleanUp = async () => rmSync(dataDir, { recursive: true, force: true });
    } else {
      const database: TestDatabase = await freshDatabase();
      await restoreDump(database.url, readFileSync(join(FIXTURE, 'postgres.sql'), 'utf8'));
      ledger = { DATA_DIR: dataDir, DATABASE_URL: database.url };
      cleanUp = async () => {
        await database.drop();
        rmSync(dataDir, { recursive: true, force: true });
      };
    }
    first = await openAndFinish(ledger, sandbox, bigcommerce);
  }, 120_000);
  afterAll(async () => {
    await sandbox?.close();
    await bigcommerce?.close();
    await cleanUp();
  });

  it('holds every order the old release kept, and makes none', () => {
    expect(Object.keys(first.picture.orders).sort()).toEqual(expectedOrders.map(([key]) => key).sort());
  });

  it.each(expectedOrders)('%s finishes its work', (key, order) => {
    const record = first.picture.orders[key];
    expect(record?.target).toEqual({ state: order.state, ...(order.reason ? { reason: order.reason } : {}) });
    expect(record?.upstream.points).toBe(order.points ? UPSTREAM_OF[order.points] : 'none');
    expect(record?.work.retryAt).toBeNull();
    const state = sandbox.store.snapshot();
    expect(earningsOf(state, order.lpOrderId).map((earning) => earning.status)).toEqual(
      order.points ? [order.points] : [],
    );
    expect(
      state.conversions
        .filter((conversion) => conversion.orderId === order.lpOrderId)
        .map((conversion) => conversion.status),
    ).toEqual(order.conversion ? [order.conversion] : []);
    expect(record?.upstream.redeemedPoints).toBe(order.redeemedPoints);
    if (order.heldBy)
      expect(first.picture.deadLetters.map((letter) => letter.id)).toContain(record?.work.held[order.heldBy]);
    else expect(record?.work.held).toEqual({});
    const callsSinceStop = record?.calls
      .filter((call) => call.at > manifest.writtenAt)
      .map((call) => `${call.operation}:${call.outcome}`);
    expect(callsSinceStop).toEqual(order.calls.map((operation) => `${operation}:success`));
  });

  it('makes each call the old release left to do, and no other', () => {
    expect(first.calls).toBe(expectedOrders.reduce((sum, [, order]) => sum + order.calls.length, 0));
  });

  it('earned each order once at the sandbox, redeemed and converted once, and nothing else', () => {
    const state = sandbox.store.snapshot();
    const lpOrderIds = new Map(
      expectedOrders.filter(([, order]) => order.points).map(([, order]) => [order.lpOrderId, order]),
    );
    expect(
      state.earnings
        .filter((earning) => earning.orderId !== null)
        .map((earning) => earning.orderId)
        .sort(),
    ).toEqual([...lpOrderIds.keys()].sort());
    expect(
      state.earnings
        .filter((earning) => earning.orderId === null)
        .map(({ email, activityId }) => ({ email, activityId })),
    ).toEqual(manifest.manualEarnings);
    expect(state.redemptions.map(({ email, points }) => ({ email, points }))).toEqual(manifest.redemptions);
    expect(state.conversions.map((conversion) => conversion.orderId).sort()).toEqual(
      expectedOrders
        .filter(([, order]) => order.conversion)
        .map(([, order]) => order.lpOrderId)
        .sort(),
    );
  });

  it('keeps the dead letters it had, and adds none', () => {
    const found = first.picture.deadLetters.map((letter) =>
      letter.kind === 'call'
        ? { kind: letter.kind, orderKey: letter.orderKey, operation: letter.operation, httpStatus: letter.httpStatus }
        : { kind: letter.kind, platform: letter.platform, shop: letter.shop, topic: letter.topic },
    );
    expect(found).toEqual(expect.arrayContaining(manifest.deadLetters));
    expect(found).toHaveLength(manifest.deadLetters.length);
  });

  it('logs no error on the way', () => {
    expect(first.logged.filter((line) => (JSON.parse(line) as { level: number }).level >= 50)).toEqual([]);
  });

  it('folds every delivery the old release had accepted: the inbox is empty', () => {
    expect(first.picture.inboxBacklog).toBe(0);
  });

  it('reads the shop sessions the old release kept: Shopify’s token, the WooCommerce store’s keys, the BigCommerce install', () => {
    expect(first.sessions).toEqual({
      shopifyAccess: true,
      wooStores: [{ shop: 'shop.upgrade-fixture.example', via: 'connect', hasRest: true }],
      bigcommerce: { shop: platformsAtStop.bigcommerce.store, hasApi: true },
    });
    expect(first.picture.records.reconciliation?.map((record) => record.id).sort()).toEqual([
      `bigcommerce:${platformsAtStop.bigcommerce.store}`,
      `shopify:${manifest.env.SHOPIFY_SHOPS}`,
      'woocommerce:shop.upgrade-fixture.example',
    ]);
  });

  it('puts every order that made a call on the default account: the one account the old release had', () => {
    const orders = Object.values(first.picture.orders).filter((order): order is OrderRecord => order !== undefined);
    const called = orders.filter((order) => order.calls.length > 0);
    expect(called.length).toBeGreaterThan(0);
    for (const order of called) expect(order.upstream.account, order.key).toBe('default');
    for (const order of orders.filter((each) => each.calls.length === 0))
      expect(order.upstream.account, order.key).toBeUndefined();
  });

  it('is marked with the current ledger format and this release', async () => {
    const mark =
      backend === 'lowdb'
        ? (JSON.parse(readFileSync(join(ledger.DATA_DIR!, 'format.json'), 'utf8')) as {
            format: number;
            writtenBy: string;
          })
        : await (async () => {
            const client = new pg.Client({ connectionString: ledger.DATABASE_URL });
            await client.connect();
            try {
              const { rows } = await client.query<{ format: number; written_by: string }>(
                'SELECT format, written_by FROM lb_ledger_format',
              );
              return { format: rows[0]!.format, writtenBy: rows[0]!.written_by };
            } finally {
              await client.end();
            }
          })();
    expect(mark).toMatchObject({ format: LEDGER_FORMAT, writtenBy: WRITTEN_BY });
  });

  it('changes nothing and calls nothing when opened again', async () => {
    const before = sandbox.store.snapshot();
    const second = await openAndFinish(ledger, sandbox, bigcommerce);
    expect(second.calls).toBe(0);
    expect(sandbox.store.snapshot()).toEqual(before);
    expect(second.picture).toEqual(first.picture);
  }, 60_000);
}

describe('a lowdb ledger written by 7a1c4ad', () => upgradeSuite('lowdb'));
describe.skipIf(!postgresAvailable())('a PostgreSQL ledger written by 7a1c4ad', () => upgradeSuite('postgres'));
