// Found in a review of the WooCommerce callback's writes (failing when
// written): an operator's connect made for the merchant saved the new key,
// then kept the merchant's return ticket. A failed ticket write answered
// WooCommerce with an error, so it deleted the key it had sent, while the
// store's record already held that key and no longer the old one: every call
// to the store failed until it was connected again. The key's save is now the
// callback's last write. On both ledgers: lowdb and PostgreSQL.
import { afterAll, describe, expect, it } from 'vitest';
import { beginWooConnect } from '../../adapters/woocommerce/connect.ts';
import { WooStores, wooConnectionId, type WooConnection } from '../../adapters/woocommerce/stores.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { keepWooKeys } from '../../adapters/woocommerce/key-callback.ts';
import { createLogger } from '../../src/logger.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { postgresAvailable } from '../helpers/postgres.ts';
import { freshStore } from '../helpers/postgres-store.ts';
import { raw } from '../helpers/raw-records.ts';
import type { RecordType } from '../../src/core/store/roles/record-types.ts';

const silent = createLogger({ level: 'silent' });
const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of closers) await close();
});

const callbackOf = (authorizeUrl: string, n: number) => ({
  key_id: n,
  user_id: new URL(authorizeUrl).searchParams.get('user_id'),
  consumer_key: `ck_${String(n).repeat(40)}`,
  consumer_secret: `cs_${String(n).repeat(40)}`,
  key_permissions: 'read_write',
});

/** The ledger, but every write of a return ticket fails (a full disk, a lost connection). */
const failingTickets = (store: LedgerStore): LedgerStore =>
  new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'putRecord')
        return (type: RecordType<unknown>, id: string, value: unknown) =>
          type.kind === 'woocommerce-return' ? Promise.reject(new Error('ENOSPC')) : target.putRecord(type, id, value);
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });

/** Each ledger the bridge runs on, opened empty, closed after the file's tests. */
const ledgers: Array<{ name: string; available: boolean; open: () => Promise<LedgerStore> }> = [
  {
    name: 'lowdb',
    available: true,
    open: async () => {
      const ledger = new LowdbStore({ dataDir: tempDataDir() });
      await ledger.open();
      closers.push(() => ledger.close());
      return ledger;
    },
  },
  {
    name: 'PostgreSQL',
    available: postgresAvailable(),
    open: async () => {
      const opened = await freshStore();
      closers.push(() => opened.close());
      return opened.store;
    },
  },
];

describe.each(ledgers)('the WooCommerce callback’s writes, on $name', ({ available, open }) => {
  it.skipIf(!available)('leaves the store on its old key when a write before the new key’s save fails', async () => {
    const ledger = await open();
    const addresses = { allowPrivate: true };
    const options = {
      publicUrl: 'https://bridge.example',
      appName: 'lb',
      returnPath: '/woocommerce/return',
      addresses,
    };
    const url = 'http://127.0.0.1:8089/x';
    const first = await beginWooConnect(ledger, url, options);
    const stores = new WooStores({ store: ledger, env: {}, storeAddresses: addresses });
    const connected = await keepWooKeys(
      { store: ledger, stores, logger: silent, addresses },
      callbackOf(first.authorizeUrl, 1),
    );
    expect(connected).toMatchObject({ ok: true });

    // The operator connects it again, for its merchant; the ticket's write fails, so the callback answers an error.
    const again = await beginWooConnect(ledger, url, { ...options, forMerchant: true });
    const failing = failingTickets(ledger);
    const failingStores = new WooStores({ store: failing, env: {}, storeAddresses: addresses });
    await expect(
      keepWooKeys(
        { store: failing, stores: failingStores, logger: silent, addresses },
        callbackOf(again.authorizeUrl, 2),
      ),
    ).rejects.toThrow('ENOSPC');
    // WooCommerce deletes key 2 on that answer: the store keeps key 1, which still works.
    const kept = await ledger.getRecord(raw<WooConnection>('session'), wooConnectionId(first.shop));
    expect(kept).toMatchObject({ keyId: 1, consumerKey: `ck_${'1'.repeat(40)}` });
  });

  it.skipIf(!available)(
    'replaces a store’s key at a sign-in only while the store is the connection the sign-in saw',
    async () => {
      const ledger = await open();
      const addresses = { allowPrivate: true };
      const options = { publicUrl: 'https://bridge.example', appName: 'lb', returnPath: '/admin/', addresses };
      const url = 'http://127.0.0.1:8089/x';
      const stores = new WooStores({ store: ledger, env: {}, storeAddresses: addresses });
      const first = await beginWooConnect(ledger, url, options);
      await keepWooKeys({ store: ledger, stores, logger: silent, addresses }, callbackOf(first.authorizeUrl, 1));
      const seen = (await ledger.getRecord(raw<WooConnection>('session'), wooConnectionId(first.shop)))!;
      const offered = { consumerKey: `ck_${'3'.repeat(40)}`, consumerSecret: `cs_${'3'.repeat(40)}`, keyId: 3 };
      // The operator connects it again while the sign-in waited on the store: the sign-in's key does not land.
      await new Promise((resolve) => setTimeout(resolve, 5));
      const again = await beginWooConnect(ledger, url, options);
      await keepWooKeys({ store: ledger, stores, logger: silent, addresses }, callbackOf(again.authorizeUrl, 2));
      expect(await stores.replaceKey(first.shop, seen, { ...offered, keyPermissions: 'read_write' })).toBe(false);
      expect(await ledger.getRecord(raw<WooConnection>('session'), wooConnectionId(first.shop))).toMatchObject({
        keyId: 2,
      });
      // Disconnected meanwhile: it stays so.
      const now = (await ledger.getRecord(raw<WooConnection>('session'), wooConnectionId(first.shop)))!;
      await ledger.deleteRecord(raw('session'), wooConnectionId(first.shop));
      expect(await stores.replaceKey(first.shop, now, { ...offered, keyPermissions: 'read_write' })).toBe(false);
      expect(await ledger.getRecord(raw('session'), wooConnectionId(first.shop))).toBeUndefined();
    },
  );
});
