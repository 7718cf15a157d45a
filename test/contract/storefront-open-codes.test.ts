// A customer who holds as many unused reward codes as one may (MAX_OPEN_CODES) and presses Redeem again is told, in
// their words, to use one first, and no code is made; the codes they were given do not count toward the pace of
// their presses. The storefront's service (src/services/storefront.ts) over the reward codes wired as the bridge
// wires them (test/helpers/reward-world.ts), on the sandbox over HTTP.
import { describe, expect, it } from 'vitest';
import { CustomerPace, PACE_REFUSALS } from '../../src/core/storefront/customer-pace.ts';
import { MAX_OPEN_CODES } from '../../src/core/storefront/reward-codes.ts';
import { StorefrontReader } from '../../src/core/storefront/storefront-reader.ts';
import { createLogger } from '../../src/logger.ts';
import { REDEEM_WORDS, storefrontService } from '../../src/services/storefront.ts';
import { sandboxWithEngines } from '../helpers/engine.ts';
import { ledgerBackends } from '../helpers/ledger-backends.ts';
import { BIG, PLATFORM, SHOP, customerWithPoints, rewardWorld } from '../helpers/reward-world.ts';

const world = sandboxWithEngines();
let next = 0;
const orderId = () => String(71_000_000 + ++next);

describe.each(ledgerBackends())('a customer at the limit of open codes (%s)', (_name, runs, open) => {
  it.runIf(runs)(
    'is told to use a code first, no code is made, and the codes made do not count toward the pace',
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: [BIG] });
      const service = storefrontService({
        partsOf: (platform) => (platform === PLATFORM ? { codes: w.store.parts } : undefined),
        store: w.ledger,
        accounts: { forShop: async () => w.account.id, runtime: async () => w.account },
        reader: new StorefrontReader({
          ...{ accounts: w.engine.accounts, store: w.ledger, share: 0.5, logger: createLogger({ level: 'silent' }) },
          liveFirst: (budgetId) => w.engine.worker.liveFirst(budgetId),
        }),
        rewardCodes: w.codes,
        pace: new CustomerPace({ sleep: async () => undefined }),
      });
      // Points enough for one more code than the limit: what refuses the last press is the limit, not the balance.
      const email = await customerWithPoints(world, w, {
        earned: (MAX_OPEN_CODES + 1) * BIG.points,
        orderId,
        prefix: 'limit',
      });
      const asker = { kind: 'customer' as const, shop: SHOP, customerId: `customer-${email}`, contact: { email } };
      for (let n = 0; n < MAX_OPEN_CODES; n++) expect((await service.redeem(PLATFORM, asker, BIG.id)).status).toBe(200);
      expect(w.store.live()).toHaveLength(MAX_OPEN_CODES);
      // Each press now is refused in words, and only these refusals count toward the pace: the codes made do not.
      for (let n = 0; n < PACE_REFUSALS; n++)
        expect(await service.redeem(PLATFORM, asker, BIG.id)).toEqual({
          status: 409,
          json: { redeemed: false, error: REDEEM_WORDS.tooMany },
        });
      expect(w.store.live()).toHaveLength(MAX_OPEN_CODES);
      const held = await service.redeem(PLATFORM, asker, BIG.id);
      expect(held).toMatchObject({ status: 429, json: { redeemed: false, error: REDEEM_WORDS.tooFast } });
    },
  );
});
