// Upgrading a bridge that served open installs on its one account: the shops
// installed before keep earning there (linked to the default account at the
// first start, and named in the log); a shop installed after earns on
// nobody's account until the operator links it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EARLIER_SHOPS_MIGRATION } from '../../src/accounts/earlier-shops.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { createLogger } from '../../src/logger.ts';
import type { RunningBridge } from '../../src/composition/main.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { orderEvent } from '../helpers/order-events.ts';
import { postShopifyOrder, SHOPIFY_SECRET } from '../helpers/shopify.ts';
import { raw } from '../helpers/raw-records.ts';

const EARLIER = 'installed-before.myshopify.com';
const LATER = 'installed-after.myshopify.com';
const REINSTALLED = 'reinstalled-before.myshopify.com';
const dataDir = tempDataDir();
const lines: string[] = [];
let bridge: RunningBridge;

beforeAll(async () => {
  // What an earlier release left: the app installed on a shop open installs let in.
  const ledger = new LowdbStore({ dataDir });
  await ledger.open();
  await ledger.putRecord(raw('session'), `shopify:${EARLIER}`, {
    platform: 'shopify',
    shop: EARLIER,
    mode: 'token_exchange',
    accessToken: 'shpat_earlier',
    expiresAt: null,
    updatedAt: new Date().toISOString(),
  });
  // And a shop whose app was uninstalled and installed again (no session kept): an order placed, nothing sent yet.
  await ledger.accept({
    key: 'before-upgrade',
    aliases: [],
    receivedAt: new Date().toISOString(),
    events: [orderEvent({ platform: 'shopify', shop: REINSTALLED, orderId: '7500000000003', facts: ['placed'] })],
    retry: null,
  });
  const claimed = await ledger.claimInbox('upgrade-test', 10);
  await ledger.commitIntake(claimed.map((each) => ({ entryKey: each.key, events: each.events ?? [] })));
  await ledger.close();
  bridge = await startTestBridge(
    { DATA_DIR: dataDir, SHOPIFY_API_SECRET: SHOPIFY_SECRET, SHOPIFY_SHOPS: '', SHOPIFY_OPEN_INSTALLS: 'true' },
    createLogger({ level: 'warn', destination: { write: (line: string) => void lines.push(line) } }),
  );
});
afterAll(() => bridge?.stop());

async function deliver(shop: string, id: string) {
  expect((await postShopifyOrder(bridge.http.localUrl, shop, id)).body.result).toBe('accepted');
}
const earned = (id: string) => bridge.sandbox?.store.snapshot().earnings.filter((earning) => earning.orderId === id);

describe('a bridge upgraded to accounts, which served open installs', () => {
  it('keeps a shop installed before on the default account, and says so once', async () => {
    expect(await bridge.accounts.forShop('shopify', EARLIER)).toBe('default');
    await deliver(EARLIER, '7500000000001');
    await bridge.engine.drain();
    expect(earned('7500000000001')).toEqual([expect.objectContaining({ status: 'pending' })]);
    expect(lines.filter((line) => line.includes(EARLIER) && line.includes('stay on the default account'))).toHaveLength(
      1,
    );
    expect(await bridge.engine.store.getRecord(raw('migration'), EARLIER_SHOPS_MIGRATION)).toMatchObject({
      linked: [`shopify ${EARLIER}`, `shopify ${REINSTALLED}`],
    });
  });

  it('keeps the orders a shop had before on the default account, though its installation was not kept', async () => {
    expect(await bridge.accounts.forShop('shopify', REINSTALLED)).toBe('default');
    // The order is paid after the upgrade: it earns where it would have before.
    await deliver(REINSTALLED, '7500000000003');
    await bridge.engine.drain();
    expect(earned('7500000000003')).toEqual([expect.objectContaining({ status: 'pending' })]);
  });

  it('earns nowhere for a shop installed after, until it is linked', async () => {
    await deliver(LATER, '7500000000002');
    await bridge.engine.drain();
    expect(earned('7500000000002')).toEqual([]);
    expect(await bridge.accounts.forShop('shopify', LATER)).toBeUndefined();
  });
});
