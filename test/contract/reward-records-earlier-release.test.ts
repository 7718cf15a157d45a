// The release before rewards had kinds reads a reward's amount off from amountOff alone, and may run beside this
// one on one ledger (docs/upgrading.md: same format, side by side). What this release writes keeps amountOff beside
// the benefit, so that release still reads a shop's rewards and a customer's codes; and what it writes, this reads.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HOLDER_KIND } from '../../src/core/storefront/reward-records.ts';
import { holderId } from '../../src/core/storefront/reservations.ts';
import { shopRewards } from '../../src/core/storefront/rewards.ts';
import { sandboxWithEngines } from '../helpers/engine.ts';
import { ledgerBackends } from '../helpers/ledger-backends.ts';
import { raw } from '../helpers/raw-records.ts';
import { BIG, PLATFORM, SHOP, customerWithPoints, rewardWorld } from '../helpers/reward-world.ts';

const world = sandboxWithEngines();
let next = 0;
const orderId = () => String(72_000_000 + ++next);

/** What the earlier release's schemas demand of a reward and a reservation (rewards.ts, reward-records.ts there). */
const earlierReward = z.looseObject({ id: z.string(), points: z.number(), amountOff: z.string() });
const earlierReservation = z.looseObject({
  id: z.string(),
  points: z.number(),
  amountOff: z.string(),
  code: z.string(),
});

describe.each(ledgerBackends())(
  'records of rewards beside the release before their kinds (%s)',
  (_name, runs, open) => {
    it.runIf(runs)('writes the amount off that release reads, and reads what that release writes', async () => {
      const w = await rewardWorld(world, await open(), { rewards: [BIG] });
      const email = await customerWithPoints(world, w, { earned: 200, orderId, prefix: 'earlier' });
      expect((await w.redeem(email, BIG)).kind).toBe('issued');

      const rewards = (await w.ledger.getRecord(raw('rewards'), `${PLATFORM}:${SHOP}`)) as { rewards: unknown[] };
      expect(earlierReward.parse(rewards.rewards[0])).toMatchObject({ amountOff: '5.00' });
      const holder = holderId(w.account.id, { email });
      const kept = (await w.ledger.getRecord(raw(HOLDER_KIND.kind), holder)) as { reservations: unknown[] };
      expect(earlierReservation.parse(kept.reservations[0])).toMatchObject({ amountOff: '5.00', points: 200 });

      // The earlier release adds a reservation of its own shape: this one reads it as the amount off it is.
      const theirs: Record<string, unknown> = { ...(kept.reservations[0] as object), id: 'theirs', code: 'LB-THEIRS' };
      delete theirs.benefit;
      await w.ledger.putRecord(raw(HOLDER_KIND.kind), holder, {
        ...kept,
        reservations: [...kept.reservations, theirs],
      });
      const read = await w.ledger.getRecord(HOLDER_KIND, holder);
      expect(read?.reservations.map((each) => each.benefit)).toEqual([
        { kind: 'amount_off', amount: '5.00' },
        { kind: 'amount_off', amount: '5.00' },
      ]);
      // The merchant's list shows the benefit alone: what the page sends back is what it was given.
      expect(await shopRewards(w.ledger, PLATFORM, SHOP)).toEqual([BIG]);
    });
  },
);
