// A code made in the store and reserved under a holder with no balance read, as a release before phones were refused
// a redeem left one under a phone's own holder (customer-holders.ts): what the bridge's checks still withdraw.
import {
  CODE_KIND,
  HOLDER_KIND,
  codeIndexId,
  holderId,
  newCode,
  type Reservation,
} from '../../src/core/storefront/reservations.ts';
import type { ServiceCustomer } from '../../src/core/storefront/customer-points.ts';
import { BIG, PLATFORM, SHOP, type RewardWorld } from './reward-world.ts';

/** A code of BIG's 200 points for `customerId`, held under `customer`'s holder; answers the code. */
export async function codeHeld(w: RewardWorld, customer: ServiceCustomer, customerId: string): Promise<string> {
  const code = newCode();
  const at = new Date(w.clock.now).toISOString();
  const expiresAt = new Date(w.clock.now + 7 * 86_400_000).toISOString();
  const made = await w.store.parts.make({
    ...{ shop: SHOP, customerId, code, title: 'Loyalty reward', benefit: BIG.benefit, minimumOrder: null },
    ...{ startsAt: at, expiresAt, combinesWithOthers: true },
  });
  if (made.kind !== 'made') throw new Error('the fake store makes every code');
  const holder = holderId(w.account.id, customer);
  const reservation: Reservation = {
    ...{ id: `held-${customerId}`, platform: PLATFORM, shop: SHOP, customerId, rewardId: BIG.id, points: 200 },
    ...{ benefit: BIG.benefit, code, state: 'issued', platformId: made.platformId, expiresAt, createdAt: at },
  };
  await w.ledger.addRecord(CODE_KIND, codeIndexId(PLATFORM, SHOP, code), {
    ...{ platform: PLATFORM, shop: SHOP, holder, reservation: reservation.id, createdAt: at },
  });
  await w.ledger.putRecord(HOLDER_KIND, holder, {
    account: w.account.id,
    customer,
    reservations: [reservation],
  });
  return code;
}
