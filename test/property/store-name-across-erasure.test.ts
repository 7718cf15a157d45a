// A shop record put across the shop's erasure, on the ledger's own backends: a store's name
// (adapters/shared/store-names.ts) read while the shop is erased, its put held until the erasure is done, must not
// be left naming the erased shop (on PostgreSQL the race happened unpinned too, 9 runs in 200).
import { describe, expect, it } from 'vitest';
import { StoreNames, storeNameType } from '../../adapters/shared/store-names.ts';
import { Privacy } from '../../src/core/privacy.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { createLogger } from '../../src/logger.ts';
import { gate, ledgerBackends } from '../helpers/ledger-backends.ts';
import { raw } from '../helpers/raw-records.ts';

const logger = createLogger({ level: 'silent' });
const backends = ledgerBackends();

describe.each(backends)('a shop record put across the shop’s erasure (%s)', (_name, available, open) => {
  it.runIf(available)('a store name read as the shop is erased does not outlive the erasure', async () => {
    const store = await open();
    const [platform, shop] = ['bigcommerce', 'h1'];
    // The shop is connected: a record naming it, as the module's own store record does.
    await store.putRecord(raw('session'), `${platform}:${shop}`, { platform, shop, token: 't' });
    const privacy = new Privacy({ store, adapterFor: () => undefined, logger });
    const reached = gate();
    const held = gate();
    const slowPut: LedgerStore = Object.create(store, {
      putRecord: {
        value: async (kind: never, id: string, value: unknown) => {
          reached.open();
          await held.opened;
          return store.putRecord(kind, id, value);
        },
      },
      // The store's own methods on the store itself (lowdb keeps its state in private fields).
      getRecord: { value: store.getRecord.bind(store) },
      deleteRecord: { value: store.deleteRecord.bind(store) },
    });
    const names = new StoreNames({
      store: slowPut,
      type: storeNameType('bigcommerce-store-name'),
      platform,
      read: async () => 'Jane Doe Crafts',
      served: async (s) => (await store.getRecord(raw('session'), `${platform}:${s}`)) !== undefined,
    });

    const learning = names.learn(shop);
    await reached.opened; // served() said yes; the put is on its way
    await privacy.eraseShop(platform, shop, 'platform');
    expect(await store.getRecord(raw('session'), `${platform}:${shop}`)).toBeUndefined();
    held.open();
    await learning;

    // The name read as the shop was erased is not left behind, naming the erased shop.
    expect(await store.getRecord(raw('bigcommerce-store-name'), `${platform}:${shop}`)).toBeUndefined();
  });
});
