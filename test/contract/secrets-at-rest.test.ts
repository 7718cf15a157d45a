// Secrets at rest, on both stores: written through the code that keeps them
// (a Shopify session, a WooCommerce connection, a BigCommerce install, the
// sandbox's credentials, an account), they are sealed in every file under
// DATA_DIR and every row of the database, and read back plain; a format 1
// ledger's plain secrets are sealed at the first start with a key, backups
// and old row versions included; a rotation re-seals everything under the
// new key, and an instance holding only the old key gets a clear error; and
// without a key outside sandbox mode a new secret is refused.
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { BigCommerceStores, type BigCommerceInstall } from '../../adapters/bigcommerce/stores.ts';
import { ShopifyAccess, type ShopifySession } from '../../adapters/shopify/access.ts';
import { WooStores, type WooConnection } from '../../adapters/woocommerce/stores.ts';
import type { Config } from '../../src/config.ts';
import type { LedgerStore, OpenReport } from '../../src/core/store/ledger-store.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { RecordSecrets, SecretsKeyMissingError } from '../../src/core/store/record-secrets.ts';
import { bridgeSandboxCredentials } from '../../src/composition/kept-sandbox-credentials.ts';
import type { SandboxCredentials } from '../../src/sandbox/credentials.ts';
import { keyIdOf, MAKE_KEY, SecretBox, SecretKeyUnknownError } from '../../src/secrets/secret-box.ts';
import { eventually, tempDataDir } from '../helpers/engine.ts';
import { freshDatabase, postgresAvailable, type TestDatabase } from '../helpers/postgres.ts';
import { openStoreOn } from '../helpers/postgres-store.ts';
import { databaseAsText, filesAsText } from '../helpers/secrets.ts';
import { LEDGER_FORMAT } from '../../src/core/store/format/ledger-format.ts';
import { ACCOUNT_KIND } from '../../src/accounts/account-records.ts';
import { raw } from '../helpers/raw-records.ts';

const OLD_KEY = randomBytes(32);
const NEW_KEY = randomBytes(32);
const sealedUnder = (...keys: Buffer[]) =>
  new RecordSecrets({ box: new SecretBox(keys[0]!, keys[1]), plainAllowed: false });
const NO_KEY = new RecordSecrets({ plainAllowed: false });
const SANDBOX_NO_KEY = new RecordSecrets({ plainAllowed: true });

const SHOP = 'lb-secrets.myshopify.com';
const WOO = 'woo-secrets.example';
const BC = 'bcsecret1';
/** Recognisable, so that a copy anywhere is found. */
const PLAIN = {
  shopifyAccess: 'shpat_LEAKCHECK_access_0001',
  shopifyRefresh: 'shprt_LEAKCHECK_refresh_0002',
  wooKey: 'ck_LEAKCHECKconsumerkey0003',
  wooSecret: 'cs_LEAKCHECKconsumersecret0004',
  wooWebhook: 'LEAKCHECK-woo-webhook-secret-0005',
  bcToken: 'LEAKCHECK-bc-access-token-0006',
  bcHeader: 'LEAKCHECK-bc-header-secret-0007',
  accountKey: 'LEAKCHECK-account-api-key-0008',
};

interface Opened {
  store: LedgerStore;
  report: OpenReport;
  close(): Promise<void>;
}

interface Backend {
  name: string;
  /** A new, empty ledger for one test. */
  fresh(): Promise<void>;
  open(secrets: RecordSecrets): Promise<Opened>;
  /** Everything the ledger keeps, as text: where a plain secret must not be. */
  kept(): Promise<string>;
  /** Marks the ledger as an earlier release (format 1) left it. */
  markFormat1(): Promise<void>;
  /** The ledger's format mark now. */
  format(): Promise<number>;
  drop(): Promise<void>;
}

function lowdbBackend(): Backend {
  let dataDir = '';
  return {
    name: 'lowdb',
    async fresh() {
      dataDir = tempDataDir();
    },
    async open(secrets) {
      const store = new LowdbStore({ dataDir, secrets });
      const report = await store.open();
      return { store, report, close: () => store.close() };
    },
    kept: async () => filesAsText(dataDir),
    async markFormat1() {
      const path = join(dataDir, 'format.json');
      const mark = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
      writeFileSync(path, JSON.stringify({ ...mark, format: 1, writtenBy: 'loyalty-bridge 0.1.0 (ledger format 1)' }));
    },
    format: async () => (JSON.parse(readFileSync(join(dataDir, 'format.json'), 'utf8')) as { format: number }).format,
    drop: async () => undefined,
  };
}

function postgresBackend(): Backend {
  let database: TestDatabase | undefined;
  const run = async <R extends pg.QueryResultRow>(sql: string): Promise<R[]> => {
    const client = new pg.Client({ connectionString: database!.url });
    await client.connect();
    try {
      return (await client.query<R>(sql)).rows;
    } finally {
      await client.end();
    }
  };
  return {
    name: 'postgres',
    async fresh() {
      database = await freshDatabase();
    },
    async open(secrets) {
      const opened = await openStoreOn(database!.url, { secrets });
      return { store: opened.store, report: opened.report, close: opened.close };
    },
    async kept() {
      const { rows, pages } = await databaseAsText(database!.url);
      return pages === undefined ? rows : `${rows}\n${pages}`;
    },
    async markFormat1() {
      await run(`UPDATE lb_ledger_format SET format = 1, written_by = 'loyalty-bridge 0.1.0 (ledger format 1)'`);
    },
    format: async () => (await run<{ format: number }>('SELECT format FROM lb_ledger_format'))[0]!.format,
    async drop() {
      await database?.drop();
      database = undefined;
    },
  };
}

/** Writes a secret of every kind through the code that keeps it; returns the sandbox credentials it made. */
async function keepSecrets(store: LedgerStore): Promise<SandboxCredentials> {
  const now = new Date('2026-11-01T00:00:00Z');
  await new ShopifyAccess({ store }).saveInstalled({
    shop: SHOP,
    accessToken: PLAIN.shopifyAccess,
    refreshToken: PLAIN.shopifyRefresh,
    expires: new Date(now.getTime() + 3_600_000),
    refreshTokenExpires: new Date(now.getTime() + 90 * 86_400_000),
    scope: 'read_orders',
  });
  const connection: WooConnection = {
    platform: 'woocommerce',
    shop: WOO,
    url: `https://${WOO}`,
    consumerKey: PLAIN.wooKey,
    consumerSecret: PLAIN.wooSecret,
    keyId: 12,
    keyPermissions: 'read_write',
    webhookSecret: PLAIN.wooWebhook,
    connectedAt: now.toISOString(),
    updatedAt: now.toISOString(),
  };
  await new WooStores({ store, env: {}, storeAddresses: { allowPrivate: false } }).save(connection);
  const install: BigCommerceInstall = {
    platform: 'bigcommerce',
    shop: BC,
    accessToken: PLAIN.bcToken,
    scope: 'store_v2_orders_read_only',
    headerSecret: PLAIN.bcHeader,
    accountUuid: null,
    installedAt: now.toISOString(),
    updatedAt: now.toISOString(),
  };
  await new BigCommerceStores({ store, env: {}, apiUrl: 'https://api.bigcommerce.com' }).save(install);
  await store.addRecord(raw(ACCOUNT_KIND.kind), 'acct-1', {
    name: 'Merchant one',
    apiKey: PLAIN.accountKey,
    brandId: 'b1',
  });
  const sandboxConfig = { SANDBOX_API_KEY: 'sandbox-key', SANDBOX_BRAND_ID: 'sandbox-brand' } as Config;
  return bridgeSandboxCredentials(sandboxConfig, store);
}

/** Every secret reads back plain, whatever the store keeps. */
async function expectPlain(store: LedgerStore, sandbox?: SandboxCredentials): Promise<void> {
  expect(await store.getRecord(raw<ShopifySession>('session'), `shopify:${SHOP}`)).toMatchObject({
    accessToken: PLAIN.shopifyAccess,
    refreshToken: PLAIN.shopifyRefresh,
  });
  expect(await store.getRecord(raw<WooConnection>('session'), `woocommerce:${WOO}`)).toMatchObject({
    consumerKey: PLAIN.wooKey,
    consumerSecret: PLAIN.wooSecret,
    webhookSecret: PLAIN.wooWebhook,
  });
  const installs = (await store.listRecords(raw<BigCommerceInstall>('session'))).filter(
    (each) => each.value.platform === 'bigcommerce',
  );
  expect(installs.map((each) => each.value)).toMatchObject([
    { accessToken: PLAIN.bcToken, headerSecret: PLAIN.bcHeader },
  ]);
  expect(await store.getRecord(raw(ACCOUNT_KIND.kind), 'acct-1')).toMatchObject({
    apiKey: PLAIN.accountKey,
    name: 'Merchant one',
  });
  if (sandbox) expect(await store.getRecord(raw('sandbox-credentials'), 'bridge')).toEqual(sandbox);
}

function expectNoPlainIn(kept: string, sandbox: SandboxCredentials | undefined): void {
  for (const [name, value] of Object.entries({ ...PLAIN, ...(sandbox ? { sandboxKey: sandbox.apiKey } : {}) }))
    expect(kept.includes(value), `${name} kept in plain text`).toBe(false);
}

const notes = (report: OpenReport) => (report.secrets?.notes ?? []).map((note) => `${note.level}: ${note.message}`);

const backends: Array<[string, () => Backend]> = [
  ['lowdb', lowdbBackend],
  ...(postgresAvailable() ? [['postgres', postgresBackend] as [string, () => Backend]] : []),
];

describe.each(backends)('%s', (_name, make) => {
  const backend = make();
  const open: Opened[] = [];
  const openStore = async (secrets: RecordSecrets) => {
    const opened = await backend.open(secrets);
    open.push(opened);
    return opened;
  };
  afterEach(async () => {
    for (const opened of open.splice(0)) await opened.close().catch(() => undefined);
    await backend.drop();
  });

  it('keeps every secret sealed, and hands callers the plain values', async () => {
    await backend.fresh();
    const { store } = await openStore(sealedUnder(NEW_KEY));
    const sandbox = await keepSecrets(store);
    await expectPlain(store, sandbox);
    // A rewrite through the code (an uninstall check that finds another token) and a backup keep them sealed too.
    await new BigCommerceStores({ store, env: {}, apiUrl: 'https://api.bigcommerce.com' }).forget(BC, 'another');
    await store.backUp();
    const kept = await backend.kept();
    expectNoPlainIn(kept, sandbox);
    expect(kept).toContain(`sealed:v1:${keyIdOf(NEW_KEY)}:`);
    expect((await store.secretsStatus()).counts).toEqual({ plain: 0, current: 9, previous: 0, unknown: 0 });
  });

  it('seals the plain secrets of a format 1 ledger at the first start with a key, copies and old versions included', async () => {
    await backend.fresh();
    const earlier = await openStore(SANDBOX_NO_KEY);
    const sandbox = await keepSecrets(earlier.store);
    // Rewritten once, so that PostgreSQL holds an old version of the row besides; a backup as each start takes.
    const session = await earlier.store.getRecord(raw<ShopifySession>('session'), `shopify:${SHOP}`);
    await earlier.store.putRecord(raw('session'), `shopify:${SHOP}`, {
      ...session,
      scope: 'read_orders,read_customers',
    });
    await earlier.store.backUp();
    await earlier.close();
    open.splice(0);
    await backend.markFormat1();
    // What the test looks for is there before the start.
    expect(await backend.kept()).toContain(PLAIN.shopifyAccess);

    const { store, report } = await openStore(sealedUnder(NEW_KEY));
    expect(await backend.format()).toBe(LEDGER_FORMAT);
    expect(notes(report).join('\n')).toContain(
      `info: secrets kept in plain text until this start, now sealed under SECRETS_KEY (key ${keyIdOf(NEW_KEY)}): 9`,
    );
    await expectPlain(store, sandbox);
    expectNoPlainIn(await backend.kept(), sandbox);
  });

  it('re-seals everything under the new key of a rotation, says when the previous key can go, and an instance with the old key alone fails the read clearly', async () => {
    await backend.fresh();
    const before = await openStore(sealedUnder(OLD_KEY));
    const sandbox = await keepSecrets(before.store);
    await before.close();
    open.splice(0);

    // An instance not yet restarted: the old key alone (on PostgreSQL it stays connected through the rotation).
    const oldInstance = backend.name === 'postgres' ? await openStore(sealedUnder(OLD_KEY)) : undefined;
    const rotated = await openStore(sealedUnder(NEW_KEY, OLD_KEY));
    const said = notes(rotated.report).join('\n');
    expect(said).toContain(
      `info: secrets sealed under SECRETS_KEY_PREVIOUS (key ${keyIdOf(OLD_KEY)}), now sealed under SECRETS_KEY (key ${keyIdOf(NEW_KEY)}): 9`,
    );
    expect(said).toContain(
      `info: nothing in the ledger is sealed under SECRETS_KEY_PREVIOUS (key ${keyIdOf(OLD_KEY)}) any more`,
    );
    await expectPlain(rotated.store, sandbox);
    const kept = await backend.kept();
    expect(kept).not.toContain(`sealed:v1:${keyIdOf(OLD_KEY)}:`);
    expect((await rotated.store.secretsStatus()).counts).toEqual({ plain: 0, current: 9, previous: 0, unknown: 0 });

    let stale: LedgerStore;
    if (oldInstance) stale = oldInstance.store;
    else {
      await rotated.close();
      open.splice(0);
      stale = (await openStore(sealedUnder(OLD_KEY))).store;
    }
    const failed = await stale.getRecord(raw('session'), `shopify:${SHOP}`).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(SecretKeyUnknownError);
    expect((failed as Error).message).toContain(
      `the accessToken of the 'session' record shopify:${SHOP} is sealed with key ${keyIdOf(NEW_KEY)}, which this instance does not hold (it holds ${keyIdOf(OLD_KEY)})`,
    );
    await expect(stale.listRecords(raw('session'))).rejects.toThrow(SecretKeyUnknownError);
    await expect(
      stale.changeRecord(raw(ACCOUNT_KIND.kind), 'acct-1', (current) =>
        current ? { put: { ...current, name: 'x' } } : undefined,
      ),
    ).rejects.toThrow(SecretKeyUnknownError);
    // The instance goes on: what holds no secret reads as before, and it says what it cannot read.
    await stale.putRecord(raw('shop'), `shopify:${SHOP}`, { platform: 'shopify', shop: SHOP, uninstalledAt: null });
    expect(await stale.getRecord(raw('shop'), `shopify:${SHOP}`)).toMatchObject({ shop: SHOP });
    expect((await stale.secretsStatus()).counts.unknown).toBe(9);
  });

  it('leaves no window in a rotation whose instances first took the new key as the previous one', async () => {
    // Several instances at once share a ledger only on PostgreSQL; on lowdb there is no instance to be left behind.
    if (backend.name !== 'postgres') return;
    await backend.fresh();
    const before = await openStore(sealedUnder(OLD_KEY));
    const sandbox = await keepSecrets(before.store);
    // First every instance restarts with the old key sealing and the new one able to open (docs/upgrading.md).
    const ready = await openStore(sealedUnder(OLD_KEY, NEW_KEY));
    await expectPlain(ready.store, sandbox);
    // Then one restarts with the new key sealing: everything is sealed under it.
    const rotated = await openStore(sealedUnder(NEW_KEY, OLD_KEY));
    expect((await rotated.store.secretsStatus()).counts).toMatchObject({ current: 9, previous: 0, unknown: 0 });
    // An instance not restarted yet reads every value sealed under the new key: no failed read, no 503.
    await expectPlain(ready.store, sandbox);
    expect((await ready.store.secretsStatus()).counts.unknown).toBe(0);
    // Without the first step, the same instance fails those reads (the test above): the step is what closes the window.
    await expect(before.store.getRecord(raw('session'), `shopify:${SHOP}`)).rejects.toThrow(SecretKeyUnknownError);
  });

  it('outside sandbox mode without a key, refuses a new secret with the line that makes a key, and keeps plain ones it has', async () => {
    await backend.fresh();
    const earlier = await openStore(SANDBOX_NO_KEY);
    const sandbox = await keepSecrets(earlier.store);
    await earlier.close();
    open.splice(0);

    const { store, report } = await openStore(NO_KEY);
    // Starts, and says once what is wrong and how to put it right.
    expect(notes(report)).toEqual([
      `warn: SECRETS_KEY is not set: a new secret (a store's token, key or webhook secret) is refused, and the secrets the ledger holds (9) stay in plain text until a start with a key seals them. Make a key with ${MAKE_KEY} and set it as SECRETS_KEY`,
    ]);
    await expectPlain(store, sandbox);
    // The secret it holds may be written back as it is (a session marked, say).
    const session = await store.getRecord(raw<ShopifySession>('session'), `shopify:${SHOP}`);
    await store.putRecord(raw('session'), `shopify:${SHOP}`, { ...session, renewalRefusedAt: '2026-11-02T00:00:00Z' });
    // A new one is refused, and nothing is written.
    const access = new ShopifyAccess({ store });
    const refused = await access
      .saveInstalled({ shop: 'another.myshopify.com', accessToken: 'shpat_LEAKCHECK_new_0009' })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SecretsKeyMissingError);
    expect((refused as Error).message).toContain(MAKE_KEY);
    expect((refused as Error).message).not.toContain('shpat_LEAKCHECK_new_0009');
    expect(await store.getRecord(raw('session'), 'shopify:another.myshopify.com')).toBeUndefined();
    await expect(
      store.putRecord(raw('session'), `shopify:${SHOP}`, { ...session, accessToken: 'shpat_LEAKCHECK_new_0010' }),
    ).rejects.toThrow(SecretsKeyMissingError);
    await expect(
      store.addRecord(raw(ACCOUNT_KIND.kind), 'acct-2', { apiKey: 'LEAKCHECK-new-account-key' }),
    ).rejects.toThrow(SecretsKeyMissingError);
    expect(await store.getRecord(raw(ACCOUNT_KIND.kind), 'acct-2')).toBeUndefined();
    expect(await backend.kept()).not.toContain('LEAKCHECK_new');
    // Records without secrets are written as ever.
    await store.putRecord(raw('shop'), `shopify:${SHOP}`, { platform: 'shopify', shop: SHOP, uninstalledAt: null });
  });

  it('in sandbox mode without a key, keeps secrets plain, and says so', async () => {
    await backend.fresh();
    const { store } = await openStore(SANDBOX_NO_KEY);
    const sandbox = await keepSecrets(store);
    expect(await backend.kept()).toContain(PLAIN.shopifyAccess);
    expect((await store.secretsStatus()).notes).toEqual([
      {
        level: 'info',
        message:
          'sandbox mode without SECRETS_KEY: secrets are kept in plain text (9 in the ledger); set SECRETS_KEY to seal them',
      },
    ]);
    await expectPlain(store, sandbox);
  });
});

describe.runIf(postgresAvailable())('moving a ledger', () => {
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await database?.drop();
    database = undefined;
  });

  it('carries the secrets over sealed: opened from the files, sealed again in the database', async () => {
    const dataDir = tempDataDir();
    const secrets = sealedUnder(NEW_KEY);
    const source = new LowdbStore({ dataDir, secrets });
    await source.open();
    const sandbox = await keepSecrets(source);
    const items = [];
    for await (const item of source.exportAll()) items.push(item);
    await source.close();
    database = await freshDatabase();
    const target = await openStoreOn(database.url, { secrets });
    try {
      await target.store.importItems(items);
      await expectPlain(target.store, sandbox);
      const { rows } = await databaseAsText(database.url);
      expectNoPlainIn(rows, sandbox);
      expect(rows).toContain(`sealed:v1:${keyIdOf(NEW_KEY)}:`);
    } finally {
      await target.close();
    }
  });
});

describe.runIf(postgresAvailable())('old row versions on a busy server', () => {
  const databases: TestDatabase[] = [];
  afterEach(async () => {
    for (const database of databases.splice(0)) await database.drop();
  });

  it('are removed after a rotation even while a write in another database sits between two statements', async () => {
    const ledger = await freshDatabase();
    const other = await freshDatabase();
    databases.push(ledger, other);
    const before = await openStoreOn(ledger.url, { secrets: sealedUnder(OLD_KEY) });
    await keepSecrets(before.store);
    await before.close();
    // Another application's transaction: it has an id (it wrote), and no
    // snapshot while its client works between statements. VACUUM's snapshot
    // counts it as running, so the old versions it could see must wait for it.
    const writer = new pg.Client({ connectionString: other.url });
    await writer.connect();
    await writer.query('BEGIN');
    await writer.query('SELECT pg_current_xact_id()');
    // It commits once the rotation waits for it (vacuumRecords in open-postgres.ts asks pg_stat_activity for
    // transactions older than the seal, every 200 ms): that wait is what this tests. (Before, a commit after
    // 600 ms, by which a loaded machine's rotation might not yet have begun to wait, testing nothing.)
    const watcher = new pg.Client({ connectionString: ledger.url });
    await watcher.connect();
    const committed = (async () => {
      try {
        await eventually(async () => {
          const { rows } = await watcher.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE '%backend_xid IS NOT NULL%'",
          );
          expect(rows[0]?.n).toBeGreaterThan(0);
        });
      } finally {
        await watcher.end();
        await writer.query('COMMIT');
        await writer.end();
      }
    })();
    const rotated = await openStoreOn(ledger.url, { secrets: sealedUnder(NEW_KEY, OLD_KEY) });
    try {
      await committed;
      const { pages } = await databaseAsText(ledger.url);
      if (pages !== undefined) {
        expect(pages).toContain(`sealed:v1:${keyIdOf(NEW_KEY)}:`);
        expect(pages).not.toContain(`sealed:v1:${keyIdOf(OLD_KEY)}:`);
      }
    } finally {
      await rotated.close();
    }
  });
});
