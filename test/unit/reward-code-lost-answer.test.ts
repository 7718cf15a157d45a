// A Redeem whose last write (the reservation marked 'issued' with the code the store made) landed, but whose answer
// was lost: PostgreSQL committed and the connection went before it said so (a restart, a connection terminated).
// The Redeem cannot tell a write that landed from one that did not; removing the code as if it had not landed left
// the customer an issued code in their list (openCodes) that the store no longer has, its points held for it until
// its expiry and settling window: points gone for days, for a code that pays nothing.
import { afterAll, describe, expect, it } from 'vitest';
import { alone, type AccountRuntime } from '../../src/core/accounts.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { HOLDER_KIND, holderId, type Holder } from '../../src/core/storefront/reservations.ts';
import { RewardCodes } from '../../src/core/storefront/reward-codes.ts';
import { createLogger } from '../../src/logger.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { FakeCodeStore } from '../helpers/fake-code-store.ts';
import { FIVE_OFF } from '../helpers/amount-off.ts';

const SHOP = 'acme.example';
const ADA = { email: 'ada@example.com' };
const HOLDER = holderId('acct', ADA);
const REWARD = FIVE_OFF;
const logger = createLogger({ level: 'silent' });

const stores: LowdbStore[] = [];
afterAll(async () => {
  for (const store of stores) await store.close();
});

/** The ledger, whose next write that marks a reservation 'issued' lands and then throws, as a lost commit answer. */
function losingIssuedAnswer(
  store: LowdbStore,
): Pick<LedgerStore, 'getRecord' | 'addRecord' | 'deleteRecord' | 'changeRecord' | 'customerOrders'> {
  let armed = true;
  return {
    getRecord: (kind, id) => store.getRecord(kind, id),
    addRecord: (kind, id, value) => store.addRecord(kind, id, value),
    deleteRecord: (kind, id) => store.deleteRecord(kind, id),
    customerOrders: (customer) => store.customerOrders(customer),
    async changeRecord(kind, id, change) {
      const result = await store.changeRecord(kind, id, change);
      const issued = (result.value as Holder | undefined)?.reservations?.some((each) => each.state === 'issued');
      if (armed && kind === HOLDER_KIND && result.changed && issued) {
        armed = false;
        throw new Error('Connection terminated unexpectedly');
      }
      return result;
    },
  };
}

describe('a Redeem whose issued write landed but whose answer was lost', () => {
  it('leaves the customer a code the store has, or none held: never points held for a code removed', async () => {
    const store = new LowdbStore({ dataDir: tempDataDir(), settleAfterMs: 1 });
    await store.open();
    stores.push(store);
    const fake = new FakeCodeStore();
    const balance = {
      approved: 500,
      redeemed: 0,
      held: 0,
      pending: 0,
      available: 500,
      pendingUntil: null,
      source: 'service' as const,
      missingElsewhere: false,
    };
    const codes = new RewardCodes({
      store: losingIssuedAnswer(store),
      codesOf: () => fake.parts,
      reader: {
        pointsToRedeem: async () => ({ ok: true, points: { balance, history: [] }, readStartedAt: Date.now() }),
        dropBalance: () => undefined,
      },
      logger,
    });
    const account = { id: 'acct', pool: alone('acct') } as unknown as AccountRuntime;
    const asked = {
      platform: 'testshop',
      shop: SHOP,
      customerId: '42',
      account,
      customer: ADA,
      reward: { ...REWARD, on: true },
    };
    const answer = await codes.redeem(asked).catch((error: unknown) => ({ kind: 'thrown', error }));
    const open = await codes.openCodes('acct', ADA, 'testshop', SHOP, '42');
    const held = (await store.getRecord(HOLDER_KIND, HOLDER))?.reservations.filter(
      (each) => each.state === 'issued' || each.state === 'reserving',
    );
    // Every code the customer is shown is one the store has, and any point held is held for such a code.
    for (const each of open) expect(await fake.parts.find(SHOP, each.code)).toBeDefined();
    for (const each of held ?? []) expect(await fake.parts.find(SHOP, each.code)).toBeDefined();
    // The write landed: the customer is given the code their points now hold.
    expect(answer).toMatchObject({ kind: 'issued' });
  });
});
