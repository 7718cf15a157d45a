// Many accounts on one bridge (issue 33): each account's calls are limited by
// its own rate limit, at a sandbox that limits each API key as the service
// does. Some accounts have a resync's backlog, every account has live orders
// at a low steady rate. Measured, per backend, in one run:
// - each backlogged account's calls a minute against its limit while it
//   drains, and 429s (none expected);
// - the other accounts' live orders, from acceptance to their earn being
//   recorded, while the backlogs drain: a spent budget or a backlog in one
//   account must not delay another's;
// - the drain ceiling: with every limit lifted, the bridge's calls a second
//   over the same accounts against a bare loop of clients making the same
//   calls to the same sandbox, with as many at once as the worker has slots.
// Accounts are built as the bridge builds them (accounts/from-config.ts): a
// client per account with its own limiter, shared through PostgreSQL there.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { alone, type AccountRuntime, type Accounts } from '../../src/core/accounts.ts';
import { openEngine, type Engine } from '../../src/core/engine.ts';
import { DEFAULT_POLICY } from '../../src/core/policy.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { openPostgresStore } from '../../src/core/store/postgres/open-postgres.ts';
import { AuthPause } from '../../src/core/worker/auth-pause.ts';
import { LoyaltyClient } from '../../src/loyalty/client.ts';
import { limiterForKey, type SharedLimiterFactory } from '../../src/loyalty/rate-limiter.ts';
import { createLogger } from '../../src/logger.ts';
import { freshDatabase, probePostgres } from '../lib/databases.ts';
import { benchOrder, type Series } from '../lib/orders.ts';
import { CLI, startServer } from '../lib/bridge-process.ts';
import { cpuPer, cpuTime, type CpuPer } from '../lib/cpu-time.ts';
import { earnTimes } from '../lib/earn-times.ts';
import { median, percentile } from '../lib/stats.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';

const SANDBOX_ADMIN = 'bench-accounts-sandbox-admin-token-0123456789';
/** Order calls made by the worker at once (the engine's default). */
const CONCURRENCY = 32;
const logger = createLogger({ level: 'silent' });

export interface AccountsProfile {
  accounts: number;
  shopsPerAccount: number;
  limitPerMinute: number;
  /** Accounts with a resync's backlog of their own. */
  backlogged: number;
  backlogPerAccount: number;
  /** Live orders a second over all shops together, round-robin. */
  livePerSecond: number;
  /** Orders drained with every limit lifted, for the ceiling. */
  ceilingOrders: number;
}

export interface AccountsRun {
  backend: 'lowdb' | 'postgres';
  accounts: number;
  limitPerMinute: number;
  backlogged: number;
  backlogPerAccount: number;
  seconds: number;
  /** Each backlogged account's calls a minute while it drained, as a share of its limit. */
  backloggedShare: { min: number; median: number; max: number };
  /** The same against what the limiter plans to allow (a little under the limit: rate-limiter.ts). */
  backloggedShareOfPlanned: { min: number; median: number };
  rateLimited: number;
  others: { orders: number; p50Ms: number; p99Ms: number; maxMs: number };
  ceiling: {
    orders: number;
    bridgePerSecond: number;
    barePerSecond: number;
    ratio: number;
    /** CPU milliseconds a call in each part: this process (the bridge, or the bare loop), the sandbox's, PostgreSQL's. */
    cpuMsPerCall: Record<'bridge' | 'bare', CpuPer>;
  };
}

const series = (name: string, firstId: number): Series => ({
  name,
  firstId,
  facts: ['placed', 'paid'],
  total: '10.00',
  from: Date.UTC(2026, 9, 1),
  stepMs: 1,
});

interface SandboxAccount {
  apiKey: string;
  brandId: string;
}

/** A sandbox process, with `count` accounts beside its own, each limited per key. */
async function sandboxWithAccounts(count: number, limitPerMinute: number) {
  const sandbox = await startServer(
    [CLI, 'sandbox'],
    {
      DATA_DIR: tmpdir(),
      ADMIN_TOKEN: SANDBOX_ADMIN,
      SANDBOX_RATE_LIMIT_PER_MINUTE: String(limitPerMinute),
      LOG_LEVEL: 'warn',
    },
    { portVariable: 'SANDBOX_PORT' },
  );
  const accounts: SandboxAccount[] = [];
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${sandbox.url}/_sandbox/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${SANDBOX_ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        apiKey: `bench-account-${i}-key-0123456789`,
        brandId: `bench-brand-${i}`,
        rateLimitPerMinute: limitPerMinute,
        activities: { '1': 10 },
      }),
    });
    if (response.status !== 201) throw new Error(`the sandbox refused account ${i}: ${await response.text()}`);
    accounts.push({ apiKey: `bench-account-${i}-key-0123456789`, brandId: `bench-brand-${i}` });
  }
  return { sandbox, accounts };
}

interface Bench {
  engine: Engine;
  runtimes: AccountRuntime[];
  clients: LoyaltyClient[];
  /** Successful calls per account id, by time. */
  calls: Map<string, number[]>;
  rateLimited: { count: number };
  /** The bench's own PostgreSQL database, whose sessions' CPU is counted. */
  databaseName?: string;
  close(): Promise<void>;
}

async function openBench(
  backend: 'lowdb' | 'postgres',
  url: string,
  credentials: SandboxAccount[],
  limitPerMinute: number,
): Promise<Bench> {
  let store: LedgerStore | undefined;
  let sharedLimiter: SharedLimiterFactory | undefined;
  let databaseName: string | undefined;
  const closers: Array<() => Promise<void>> = [];
  if (backend === 'postgres') {
    const database = await freshDatabase();
    closers.push(() => database.drop());
    databaseName = new URL(database.url).pathname.slice(1);
    const opened = await openPostgresStore({ url: database.url, dedupeWindowMs: 7 * 86_400_000, logger, poolSize: 8 });
    closers.unshift(() => opened.release());
    store = opened.store;
    sharedLimiter = opened.sharedLimiter;
  }
  const calls = new Map<string, number[]>();
  const rateLimited = { count: 0 };
  const clients: LoyaltyClient[] = [];
  const runtimes = credentials.map((account, i): AccountRuntime => {
    const id = `account-${i}`;
    calls.set(id, []);
    const limiter = limiterForKey(sharedLimiter, limitPerMinute, account.apiKey, 60_000);
    const client = new LoyaltyClient({
      baseUrl: url,
      ...account,
      limiter,
      maxRetries: 0,
      onAttempt: (report) => {
        if (report.outcome === 'success') calls.get(id)!.push(performance.now());
        if (report.outcome === 'rate_limited') rateLimited.count++;
      },
    });
    clients.push(client);
    return {
      id,
      name: id,
      pool: alone(id),
      client,
      policy: DEFAULT_POLICY,
      earnActivityId: '1',
      redeemReturnActivities: {},
      authPause: new AuthPause({ account: { id, name: id }, probe: async () => undefined, logger, onResume: () => {} }),
      reserveCall: () => limiter.reserve(),
    };
  });
  const byId = new Map(runtimes.map((runtime) => [runtime.id, runtime]));
  const accounts: Accounts = {
    forShop: async (_platform, shop) => `account-${shop.split('-')[1]}`,
    runtime: async (id) => byId.get(id),
    all: async () => runtimes,
    stop: () => runtimes.forEach((runtime) => runtime.authPause.stop()),
  };
  const engine = await openEngine({
    store: store ?? new LowdbStore({ dataDir: mkdtempSync(join(tmpdir(), 'bench-accounts-')) }),
    accounts,
    logger,
    worker: { concurrency: CONCURRENCY },
  });
  return {
    engine,
    runtimes,
    clients,
    calls,
    rateLimited,
    ...(databaseName ? { databaseName } : {}),
    close: async () => {
      await engine.stop();
      for (const close of closers) await close();
    },
  };
}

/** Shop `s` of account `a`: the account is in its name (forShop above reads it back). */
const shopOf = (account: number, shop: number) => `shop-${account}-${shop}.myshopify.com`;

/** Orders folded before the clock starts, each in its account's shops in turn. */
async function backlogOf(engine: Engine, accounts: number[], perAccount: number, shops: number, first: number) {
  const backlog = series('Resync', first);
  let n = 0;
  for (const account of accounts) {
    for (let start = 0; start < perAccount; start += 500) {
      await Promise.all(
        Array.from({ length: Math.min(500, perAccount - start) }, (_, i) => {
          const event = { ...benchOrder(backlog, n + start + i), shop: shopOf(account, (start + i) % shops) };
          return engine.ingest.events(`resync-${event.orderId}`, [event], [], 'backfill');
        }),
      );
    }
    n += perAccount;
  }
  await engine.foldInbox();
}

async function waitForNoBackfill(engine: Engine): Promise<number> {
  for (;;) {
    const counts = await engine.store.laneCounts();
    if (counts.backfill.waiting === 0 && engine.worker.lanes.backfill.inFlight === 0) return performance.now();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The drain's end: every order's call made and no order under way, read from
 * the bench's own counters, then checked once in the ledger. (Asking the
 * ledger every 100 ms, as above, was a count over every waiting order each
 * time: on PostgreSQL, 4% of its CPU in the drain, charged to the bridge.)
 */
async function waitForDrain(bench: Bench, orders: number): Promise<number> {
  const made = () => [...bench.calls.values()].reduce((sum, times) => sum + times.length, 0);
  // Every second regardless, should an order end without its call (it would never add to the count).
  let lookedAt = performance.now();
  for (;;) {
    const now = performance.now();
    const idle = bench.engine.worker.lanes.backfill.inFlight === 0;
    if (idle && (made() >= orders || now - lookedAt > 1_000)) {
      lookedAt = now;
      if ((await bench.engine.store.laneCounts()).backfill.waiting === 0) return now;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const callsPerMinute = (times: number[]) =>
  times.length < 2 ? 0 : ((times.length - 1) / (times.at(-1)! - times[0]!)) * 60_000;

async function limitedRun(backend: 'lowdb' | 'postgres', profile: AccountsProfile) {
  const { sandbox, accounts } = await sandboxWithAccounts(profile.accounts, profile.limitPerMinute);
  try {
    const bench = await openBench(backend, sandbox.url, accounts, profile.limitPerMinute);
    try {
      const { engine } = bench;
      const backlogged = Array.from({ length: profile.backlogged }, (_, i) => i);
      await backlogOf(engine, backlogged, profile.backlogPerAccount, profile.shopsPerAccount, 8_400_000_000_000);
      await engine.startWorker();
      const started = performance.now();
      const others = earnTimes(engine);
      const live = series('Live', 8_500_000_000_000);
      let sent = 0;
      let stop = false;
      const arrivals = (async () => {
        while (!stop) {
          const account = sent % profile.accounts;
          const event = { ...benchOrder(live, sent), shop: shopOf(account, Math.floor(sent / profile.accounts) % 2) };
          await engine.ingest.events(`live-${event.orderId}`, [event], [], 'live');
          if (account >= profile.backlogged) others.watch(`shopify:${event.shop}:${event.orderId}`);
          sent++;
          await new Promise((resolve) => setTimeout(resolve, 1000 / profile.livePerSecond));
        }
      })();
      const finished = await waitForNoBackfill(engine);
      // At least one live order for every account, however quickly the backlogs went.
      while (sent < profile.accounts) await new Promise((resolve) => setTimeout(resolve, 20));
      stop = true;
      await arrivals;
      const otherTimes = await others.done();
      await engine.drain();
      const shares = backlogged.map((i) => callsPerMinute(bench.calls.get(`account-${i}`) ?? []));
      const planned = (bench.runtimes[0]!.client as LoyaltyClient).limiter.stats().effectiveLimit;
      return {
        seconds: Number(((finished - started) / 1000).toFixed(1)),
        backloggedShare: {
          min: round(Math.min(...shares) / profile.limitPerMinute),
          median: round(median(shares) / profile.limitPerMinute),
          max: round(Math.max(...shares) / profile.limitPerMinute),
        },
        backloggedShareOfPlanned: {
          min: round(Math.min(...shares) / planned),
          median: round(median(shares) / planned),
        },
        rateLimited: bench.rateLimited.count,
        others: {
          orders: otherTimes.length,
          p50Ms: Math.round(percentile(otherTimes, 50)),
          p99Ms: Math.round(percentile(otherTimes, 99)),
          maxMs: Math.round(Math.max(0, ...otherTimes)),
        },
      };
    } finally {
      await bench.close();
    }
  } finally {
    await sandbox.stop();
  }
}

/** Every limit lifted: the bridge's calls a second, and a bare loop's making the same calls to the same sandbox. */
async function ceilingRun(backend: 'lowdb' | 'postgres', profile: AccountsProfile) {
  const lifted = 1_000_000;
  const { sandbox, accounts } = await sandboxWithAccounts(profile.accounts, lifted);
  try {
    const bench = await openBench(backend, sandbox.url, accounts, lifted);
    try {
      const { engine } = bench;
      const perAccount = Math.ceil(profile.ceilingOrders / profile.accounts);
      const all = Array.from({ length: profile.accounts }, (_, i) => i);
      await backlogOf(engine, all, perAccount, profile.shopsPerAccount, 8_600_000_000_000);
      const orders = perAccount * profile.accounts;
      const started = performance.now();
      const cpuStarted = cpuTime(sandbox, bench.databaseName);
      await engine.startWorker();
      const finished = await waitForDrain(bench, orders);
      const bridgeCpu = cpuPer(cpuStarted, cpuTime(sandbox, bench.databaseName), orders);
      const bridgePerSecond = orders / ((finished - started) / 1000);

      // The same earns, made by the accounts' own clients, as many at once as the worker's slots.
      const bare = series('Bare', 8_700_000_000_000);
      let next = 0;
      const bareStarted = performance.now();
      const bareCpuStarted = cpuTime(sandbox, bench.databaseName);
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          for (let n = next++; n < orders; n = next++) {
            const event = benchOrder(bare, n);
            await bench.clients[n % bench.clients.length]!.earn({
              activityId: '1',
              name: event.customer.name ?? '',
              email: event.customer.email ?? '',
              mobile: event.customer.mobile ?? '',
              orderId: event.orderId,
            });
          }
        }),
      );
      const barePerSecond = orders / ((performance.now() - bareStarted) / 1000);
      return {
        orders,
        bridgePerSecond: Math.round(bridgePerSecond),
        barePerSecond: Math.round(barePerSecond),
        ratio: round(bridgePerSecond / barePerSecond),
        cpuMsPerCall: { bridge: bridgeCpu, bare: cpuPer(bareCpuStarted, cpuTime(sandbox, bench.databaseName), orders) },
      };
    } finally {
      await bench.close();
    }
  } finally {
    await sandbox.stop();
  }
}

const round = (value: number) => Number(value.toFixed(3));

export async function accountsScenario(
  profile: AccountsProfile,
  log: (line: string) => void = () => undefined,
  { backends = ['lowdb', 'postgres'] }: { backends?: ReadonlyArray<'lowdb' | 'postgres'> } = {},
): Promise<AccountsRun[]> {
  const runs: AccountsRun[] = [];
  for (const backend of backends) {
    if (backend === 'postgres' && !(await probePostgres())) continue;
    log(
      `  accounts, ${backend}: ${profile.accounts} accounts at ${profile.limitPerMinute}/min, ${profile.backlogged} with ${profile.backlogPerAccount} to resync ...`,
    );
    const limited = await limitedRun(backend, profile);
    const ceiling = await ceilingScenario(backend, profile, log);
    runs.push({
      backend,
      accounts: profile.accounts,
      limitPerMinute: profile.limitPerMinute,
      backlogged: profile.backlogged,
      backlogPerAccount: profile.backlogPerAccount,
      ...limited,
      ceiling,
    });
  }
  return runs;
}

/** The drain ceiling alone (npm run bench:accounts -- --ceiling), for work on the store's cost per order. */
export async function ceilingScenario(
  backend: 'lowdb' | 'postgres',
  profile: AccountsProfile,
  log: (line: string) => void = () => undefined,
): Promise<AccountsRun['ceiling']> {
  log(`  accounts, ${backend}: the drain ceiling, every limit lifted, ${profile.ceilingOrders} orders ...`);
  return ceilingRun(backend, profile);
}
