// A platform's own record kinds are sealed at rest as its module declares them (PlatformModule.records):
// a shipped module's (WooCommerce's connect return, under its kind as earlier releases wrote it) and a
// registered one's, in every file under DATA_DIR and every row of the database, and read back plain; a
// record the modules leave out stays as it is. On both stores, built as the bridge builds them
// (recordSecretsFromConfig): written by every write a store has, sealed at the first start with a key when
// an earlier start kept them plain, counted in status, and refused new without a key outside sandbox mode.
import { afterEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.ts';
import { recordSecretsFromConfig } from '../../src/composition/open-store.ts';
import type { AnyPlatformModule } from '../../src/core/platform-module.ts';
import type { LedgerStore, OpenReport, RecordKind } from '../../src/core/store/ledger-store.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import type { RecordSecrets } from '../../src/core/store/record-secrets.ts';
import { tinyShop } from '../platforms/tinyshop/module.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { freshDatabase, postgresAvailable, type TestDatabase } from '../helpers/postgres.ts';
import { openStoreOn } from '../helpers/postgres-store.ts';
import { databaseAsText, filesAsText, TEST_SECRETS_KEY } from '../helpers/secrets.ts';
import { raw } from '../helpers/raw-records.ts';

const WITH_KEY = { SECRETS_KEY: TEST_SECRETS_KEY, LOYALTY_BASE_URL: 'https://loyalty.example' } as Config;
const SANDBOX = {} as Config;
const NO_KEY = { LOYALTY_BASE_URL: 'https://loyalty.example' } as Config;
const VAULT = raw('tinyshop-vault' as RecordKind);
const vault: AnyPlatformModule = { ...tinyShop, records: { [VAULT.kind]: ['token'] } };
const RETURN = raw('woocommerce-return');

interface Opened {
  store: LedgerStore;
  report: OpenReport;
  close(): Promise<void>;
}

interface Backend {
  fresh(): Promise<void>;
  open(secrets: RecordSecrets): Promise<Opened>;
  kept(): Promise<string>;
  drop(): Promise<void>;
}

function lowdbBackend(): Backend {
  let dataDir = '';
  return {
    async fresh() {
      dataDir = tempDataDir();
    },
    async open(secrets) {
      const store = new LowdbStore({ dataDir, secrets });
      const report = await store.open();
      return { store, report, close: () => store.close() };
    },
    kept: async () => filesAsText(dataDir),
    drop: async () => undefined,
  };
}

function postgresBackend(): Backend {
  let database: TestDatabase | undefined;
  return {
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
    async drop() {
      await database?.drop();
      database = undefined;
    },
  };
}

const backends: Array<[string, () => Backend]> = [
  ['lowdb', lowdbBackend],
  ...(postgresAvailable() ? [['postgres', postgresBackend] as [string, () => Backend]] : []),
];

const ticket = (n: number) => ({
  forShop: 'shop.example',
  consumerKey: `ck_LEAKCHECK_return_${n}`,
  consumerSecret: `cs_LEAKCHECK_return_${n}`,
});

describe.each(backends)('a platform’s own records at rest, on the %s store', (_name, make) => {
  const backend = make();
  afterEach(async () => backend.drop());

  it('are sealed as the modules declare, shipped and registered alike, by every write, and read back plain', async () => {
    await backend.fresh();
    const { store, close } = await backend.open(recordSecretsFromConfig(WITH_KEY, [vault]));
    try {
      await store.putRecord(RETURN, 'woocommerce-return:put', ticket(1));
      await store.addRecord(RETURN, 'woocommerce-return:add', ticket(2));
      await store.changeRecord(RETURN, 'woocommerce-return:change', () => ({ put: ticket(3) }));
      await store.putRecord(VAULT, 'one', { token: 'LEAKCHECK-vault-token-4', note: 'kept as it is' });
      await store.putRecord(raw('test-order'), 'two', { token: 'not-a-declared-secret' });

      const kept = await backend.kept();
      for (const secret of [1, 2, 3]
        .flatMap((n) => Object.values(ticket(n)).slice(1))
        .concat('LEAKCHECK-vault-token-4'))
        expect(kept.includes(secret), `${secret} kept in plain text`).toBe(false);
      expect(kept).toContain('kept as it is');
      expect(kept).toContain('not-a-declared-secret');

      expect(await store.getRecord(RETURN, 'woocommerce-return:put')).toEqual(ticket(1));
      expect(await store.getRecord(RETURN, 'woocommerce-return:add')).toEqual(ticket(2));
      expect(await store.getRecord(RETURN, 'woocommerce-return:change')).toEqual(ticket(3));
      expect((await store.listRecords(RETURN)).map((each) => each.value)).toEqual(
        expect.arrayContaining([ticket(1), ticket(2), ticket(3)]),
      );
      expect(await store.getRecord(VAULT, 'one')).toMatchObject({ token: 'LEAKCHECK-vault-token-4' });
    } finally {
      await close();
    }
  });

  it('kept plain by a sandbox start are sealed at the first start with a key, and counted', async () => {
    await backend.fresh();
    const earlier = await backend.open(recordSecretsFromConfig(SANDBOX, [vault]));
    await earlier.store.putRecord(RETURN, 'woocommerce-return:plain', ticket(5));
    await earlier.store.putRecord(VAULT, 'one', { token: 'LEAKCHECK-vault-token-6' });
    await earlier.close();
    expect(await backend.kept()).toContain(ticket(5).consumerKey);

    const { store, report, close } = await backend.open(recordSecretsFromConfig(WITH_KEY, [vault]));
    try {
      const kept = await backend.kept();
      for (const secret of [ticket(5).consumerKey, ticket(5).consumerSecret, 'LEAKCHECK-vault-token-6'])
        expect(kept.includes(secret), `${secret} kept in plain text`).toBe(false);
      expect(report.secrets?.counts.plain).toBe(0);
      expect(report.secrets?.counts.current).toBeGreaterThanOrEqual(3);
      expect(await store.getRecord(RETURN, 'woocommerce-return:plain')).toEqual(ticket(5));
    } finally {
      await close();
    }
  });

  it('are refused new without a key outside sandbox mode', async () => {
    await backend.fresh();
    const { store, close } = await backend.open(recordSecretsFromConfig(NO_KEY));
    try {
      await expect(store.putRecord(RETURN, 'woocommerce-return:refused', ticket(7))).rejects.toThrow(/SECRETS_KEY/);
      expect(await backend.kept()).not.toContain(ticket(7).consumerKey);
    } finally {
      await close();
    }
  });
});
