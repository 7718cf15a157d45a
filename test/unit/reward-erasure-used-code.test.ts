// A customer's erasure while an order that paid with their code waits for its redeem ('used'). The redeem is still
// owed (the reservation is kept for it alone, marked, until it ends: contract/reward-money-review-h-erasure), and the
// code's one use is its order's: a store that gives a cancelled order's use back (some do) would let it pay again,
// for an order no reservation redeems. The erasure removes it from the store, as it does a spent one. The codes part
// is the in-memory store of codes.
import { afterAll, describe, expect, it } from 'vitest';
import {
  CODE_KIND,
  HOLDER_KIND,
  codeIndexId,
  holderId,
  type Reservation,
} from '../../src/core/storefront/reservations.ts';
import { RewardPrivacy } from '../../src/core/storefront/reward-privacy.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { createLogger } from '../../src/logger.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { FakeCodeStore } from '../helpers/fake-code-store.ts';

const SHOP = 'erased.example';
const CUSTOMER = { email: 'ada@example.com' };
const HOLDER = holderId('acct', CUSTOMER);
const logger = createLogger({ level: 'silent' });
const stores: LowdbStore[] = [];
afterAll(async () => {
  for (const store of stores) await store.close();
});

describe('a customer’s erasure, while an order that paid with their code waits for its redeem', () => {
  it('removes the code from the store, so the store giving the cancelled order’s use back lets it pay for nothing', async () => {
    const store = new LowdbStore({ dataDir: tempDataDir(), settleAfterMs: 1 });
    await store.open();
    stores.push(store);
    const fake = new FakeCodeStore();
    const now = Date.now();
    const made = await fake.parts.make({
      shop: SHOP,
      customerId: '42',
      code: 'LB-ABCDEFGHJKLMNPQR',
      title: 'Loyalty reward',
      benefit: { kind: 'amount_off' as const, amount: '5.00' },
      minimumOrder: null,
      startsAt: new Date(now).toISOString(),
      expiresAt: new Date(now + 7 * 86_400_000).toISOString(),
      combinesWithOthers: true,
    });
    if (made.kind !== 'made') throw new Error('not made');
    const code = fake.byId.get(made.platformId)!;
    // Paid for order 1001 at checkout: the store counts its use, and the order holds the reservation.
    fake.use(code);
    const used: Reservation = {
      id: 'r1',
      platform: 'shopify',
      shop: SHOP,
      customerId: '42',
      rewardId: 'rw1',
      points: 200,
      benefit: { kind: 'amount_off' as const, amount: '5.00' },
      code: code.code,
      state: 'used',
      platformId: made.platformId,
      orderKey: `shopify:${SHOP}:1001`,
      expiresAt: new Date(now + 7 * 86_400_000).toISOString(),
      createdAt: new Date(now).toISOString(),
    };
    await store.putRecord(HOLDER_KIND, HOLDER, { account: 'acct', customer: CUSTOMER, reservations: [used] });
    await store.putRecord(CODE_KIND, codeIndexId('shopify', SHOP, code.code), {
      platform: 'shopify',
      shop: SHOP,
      holder: HOLDER,
      reservation: 'r1',
      createdAt: used.createdAt,
    });
    const privacy = new RewardPrivacy({
      store,
      accounts: { all: async () => [{ id: 'acct' }] as never, runtime: async () => undefined },
      codesOf: () => fake.parts,
      settleMs: 0,
      logger,
    });
    await privacy.eraseCustomer({ emails: [CUSTOMER.email], phones: [], orderIds: [] });
    // Kept for its order's redeem alone, and forgotten when that ends.
    const kept = await store.getRecord(HOLDER_KIND, HOLDER);
    expect(kept?.reservations.map((each) => [each.id, each.state, typeof each.erasedAt])).toEqual([
      ['r1', 'used', 'string'],
    ]);
    // Order 1001 is cancelled, and the store gives the code's use back.
    code.uses = 0;
    expect(fake.usable(code.code, '42', now)).toBeUndefined();
  });
});
