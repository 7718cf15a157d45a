// Review L of issue 64: an export or erasure asked for a pool's second store reads the holders of the pool's first
// account as it is now (review J3). Once the first account took a key of its own, the second store's codes reserved
// before stay under the former first's holders (pool-firsts.ts), which that request never read: the code stayed
// usable and the customer's e-mail kept. A real engine and worker on the sandbox over HTTP, both ledgers.
import { describe, expect, it } from 'vitest';
import { poolOf } from '../../src/accounts/account-pools.ts';
import { RewardPrivacy } from '../../src/core/storefront/reward-privacy.ts';
import { createLogger } from '../../src/logger.ts';
import { sandboxWithEngines } from '../helpers/engine.ts';
import { ledgerBackends } from '../helpers/ledger-backends.ts';
import {
  BIG,
  redeemIn,
  secondStoreIn,
  twoStores,
  SETTLE_MS,
  rewardWorld,
  customerWithCode as withCode,
  type RewardWorld,
} from '../helpers/reward-world.ts';

const world = sandboxWithEngines();

let next = 0;
const orderId = () => String(64_998_000 + ++next);

const customerWithCode = (w: RewardWorld, earned: number) =>
  withCode(world, w, { earned, orderId, prefix: 'review-l-erase' });

describe.each(ledgerBackends())('a pool’s second store’s erasure, review L (%s)', (_n, runs, open) => {
  it.runIf(runs)('L3: after the pool’s first took a key of its own, it still finds the store’s codes', async () => {
    const w = await rewardWorld(world, await open(), { rewards: [BIG] });
    const { email } = await customerWithCode(w, 400);
    let candidates = twoStores(w, 'the same key', 'the same key');
    const second = secondStoreIn(w, async () => poolOf('second-store', candidates));
    const there = await redeemIn(w, second, email, 'shop-2');
    expect(there.kind).toBe('issued');
    // The first store's account is given a key of its own: the second store is alone now.
    candidates = [{ ...candidates[0]!, key: 'a new key' }, candidates[1]!];
    const accounts = {
      all: async () => [w.account, second],
      runtime: async (id: string) => [w.account, second].find((each) => each.id === id),
    };
    const privacy = new RewardPrivacy({
      ...{ store: w.ledger, accounts, codesOf: () => w.store.parts, settleMs: SETTLE_MS },
      ...{ logger: createLogger({ level: 'silent' }), now: () => new Date(w.clock.now) },
    });
    // The second store's merchant asks for the customer's data, then their erasure.
    const match = { emails: [email], phones: [], orderIds: [] };
    const exported = JSON.stringify(await privacy.exportCustomer(match, 'second-store'));
    await privacy.eraseCustomer(match, 'second-store');
    const left = (await w.reservations(email)).map((each) => each.shop);
    // The export showed the second store's code, and the erasure took it (the first store's is not its to erase).
    expect([exported.includes('shop-2'), left.filter((shop) => shop === 'shop-2')]).toEqual([true, []]);
  });
});
