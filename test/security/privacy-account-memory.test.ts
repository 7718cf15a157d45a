// A request limited to one loyalty account and what the storefront keeps in memory: the erasure forgets the
// customer's contact and balances even when no order of theirs is in the ledger yet, and the export shows only
// that account's balances and the contacts read in its shops.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alone, type AccountRuntime } from '../../src/core/accounts.ts';
import { Privacy } from '../../src/core/privacy.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { StorefrontReader } from '../../src/core/storefront/storefront-reader.ts';
import { createLogger } from '../../src/logger.ts';
import { tempDataDir } from '../helpers/engine.ts';

const EMAIL = 'ada@example.com';
const match = { emails: [EMAIL], phones: [], orderIds: [] };
const logger = createLogger({ level: 'silent' });
// Shop "north" is linked to the account "north", shop "south" to "south".
const accounts = { forShop: async (_platform: string, shop: string) => shop, forgetShop: async () => undefined };

function accountOf(id: string, available: number): AccountRuntime {
  const figures = { balance: { approved: available, redeemed: 0, pending: 0, available }, earned: [], redeemed: [] };
  const client = { transactions: async () => ({ ok: true, data: figures, message: 'Success', attempts: 1 }) };
  return { id, pool: alone(id), client, policy: { pendingDays: 14 } } as unknown as AccountRuntime;
}

describe('a privacy request limited to one account, for what the storefront keeps', () => {
  let store: LowdbStore;
  let privacy: Privacy;
  let reader: StorefrontReader;
  beforeAll(async () => {
    store = new LowdbStore({ dataDir: tempDataDir(), settleAfterMs: 1 });
    await store.open();
    privacy = new Privacy({ store, adapterFor: () => undefined, logger, accounts });
    reader = new StorefrontReader({
      accounts: { ...accounts, runtime: async () => undefined },
      store,
      liveFirst: () => false,
      share: 0.5,
      logger,
    });
    privacy.inMemory.add(reader);
  });
  afterAll(() => store.close());

  async function visitBothShops(): Promise<void> {
    for (const shop of ['north', 'south']) {
      reader.dropBalance(shop, { email: EMAIL });
      await reader.contact('tinyshop', shop, 'c1', async () => ({ email: EMAIL }));
      await reader.points(
        accountOf(shop, shop === 'north' ? 120 : 40),
        { email: EMAIL },
        { platform: 'testshop', shop: 'acme' },
      );
    }
  }

  it("exports only that account's balance and the contact read in its shop", async () => {
    await visitBothShops();
    const data = await privacy.exportCustomer(match, 'south');
    const kept = (data.inMemory as { storefront: Awaited<ReturnType<StorefrontReader['exportCustomer']>> }).storefront;
    expect(kept.balances.map((balance) => [balance.account, balance.points.balance.available])).toEqual([
      ['south', 40],
    ]);
    expect(kept.contacts.map((contact) => contact.shop)).toEqual(['south']);
  });

  it('erases the contact and balances kept of a customer with no order in the ledger yet', async () => {
    await visitBothShops();
    await privacy.eraseCustomer(match, 'admin', 'north');
    const data = await privacy.exportCustomer(match);
    expect(data.inMemory).toEqual({ storefront: { contacts: [], balances: [] } });
  });
});
