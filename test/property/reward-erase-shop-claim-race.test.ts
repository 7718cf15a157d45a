// Two bridges on one PostgreSQL ledger (issue 64, review H 3): one erases a shop (shop/redact: RewardPrivacy's
// eraseShop, then the ledger's), while the other's worker takes a reward code for an order paid in that shop and
// redeems it (claimForOrder, redeemFor, the call, settled), fast-check's scheduler interleaving every call each makes
// on its own store handle. The order paid with the code, so its 200 points are taken once by its redeem, and nothing
// stays held past the code's expiry and settling: not taken and held too (spent twice), nor let go unredeemed, nor
// held for good. Found: a redeem settled after the erasure held its points as owed (both), and a claim whose
// reservation the erasure took off between its read of the index and its write (neither).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Accounts } from '../../src/core/accounts.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import {
  CODE_KIND,
  HOLDER_KIND,
  codeIndexId,
  heldPoints,
  holderId,
  newCode,
  type CodeIndex,
} from '../../src/core/storefront/reservations.ts';
import { RewardCodes, type RewardCodesParts } from '../../src/core/storefront/reward-codes.ts';
import { RewardPrivacy } from '../../src/core/storefront/reward-privacy.ts';
import { createLogger } from '../../src/logger.ts';
import { orderEvent } from '../helpers/order-events.ts';
import { postgresAvailable } from '../helpers/postgres.ts';
import { foldEvents, twoInstances } from '../helpers/postgres-store.ts';
import { DAY_MS, PLATFORM, SETTLE_MS } from '../helpers/reward-world.ts';
import { scheduledStore } from '../helpers/store-model-harness.ts';

const RUNS = Number(process.env.ERASE_CLAIM_RUNS ?? 40);
const logger = createLogger({ level: 'silent' });
const ACCOUNT = 'default';

let instances: Awaited<ReturnType<typeof twoInstances>>;
let run = 0;

/** A bridge's reward parts on its own store handle; the service's redeems are counted in `taken`. */
function bridge(store: LedgerStore, now: () => Date) {
  const reader = { pointsToRedeem: async () => undefined, dropBalance: () => undefined };
  const codes = new RewardCodes({
    store,
    codesOf: () => undefined,
    reader: reader as unknown as RewardCodesParts['reader'],
    logger,
    now,
  });
  const accounts = { all: async () => [{ id: ACCOUNT }] } as unknown as Pick<Accounts, 'all' | 'runtime'>;
  const privacy = new RewardPrivacy({ store, accounts, codesOf: () => undefined, logger, now, settleMs: SETTLE_MS });
  return { codes, privacy };
}

/** A customer's issued code of 200 in a shop of its own, and a paid order of someone else's carrying it. */
async function world(store: LedgerStore, now: Date) {
  const shop = `race-shop-${++run}`;
  const email = `race-${run}-${process.pid}@example.com`;
  const holder = holderId(ACCOUNT, { email });
  const code = newCode();
  const expiresAt = new Date(now.getTime() + 7 * DAY_MS).toISOString();
  const reservation = {
    ...{ id: `reservation-${run}`, platform: PLATFORM, shop, customerId: 'c-1', rewardId: 'big', points: 200 },
    ...{
      benefit: { kind: 'amount_off' as const, amount: '5.00' },
      code,
      state: 'issued' as const,
      platformId: `gid-${run}`,
    },
    ...{ expiresAt, createdAt: now.toISOString() },
  };
  await store.putRecord(HOLDER_KIND, holder, {
    account: ACCOUNT,
    customer: { email },
    reservations: [reservation],
  });
  const index: CodeIndex = {
    platform: PLATFORM,
    shop,
    holder,
    reservation: reservation.id,
    createdAt: now.toISOString(),
  };
  await store.putRecord(CODE_KIND, codeIndexId(PLATFORM, shop, code), index);
  const orderId = String(88_000 + run);
  const paid = orderEvent({
    orderId,
    facts: ['placed', 'paid'],
    customer: { name: 'P', email: 'p@example.com', mobile: null },
  });
  await foldEvents(store, [{ ...paid, shop, discountCodes: [{ code, amount: '5.00' }] }]);
  return { shop, holder, code, orderKey: `${PLATFORM}:${shop}:${orderId}` };
}

/** What the worker does for a paid order with the code: takes it, and redeems it if it is the order's to redeem. */
async function workerStep(
  codes: RewardCodes,
  at: { shop: string; code: string; orderKey: string },
  taken: { count: number },
): Promise<void> {
  for (let step = 0; step < 2; step++) {
    const code = await codes.claimForOrder(PLATFORM, at.shop, at.code, at.orderKey);
    if (!code) return;
    const ready = await codes.redeemFor(code, at.orderKey);
    // Not the order's now: it takes the code anew on its next step (worker.ts).
    if (ready.kind === 'not-held') continue;
    if (ready.kind !== 'send') return;
    taken.count += 1;
    return codes.settled(code, 'redeemed', at.orderKey);
  }
}

describe.runIf(postgresAvailable())('a shop erased on one bridge while another takes its code (postgres)', () => {
  beforeAll(async () => {
    instances = await twoInstances();
  });
  afterAll(async () => instances?.close());

  it('spends the code’s points once, and holds none for good once its order is redeemed', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), async (s) => {
        const clock = new Date();
        const now = () => clock;
        const first = instances.first.store;
        const at = await world(first, clock);
        const eraser = bridge(scheduledStore(s, first), now);
        const worker = bridge(scheduledStore(s, instances.second.store), now);
        const taken = { count: 0 };
        const erasing = s.schedule(Promise.resolve('erase')).then(async () => {
          await eraser.privacy.eraseShop(PLATFORM, at.shop);
          await scheduledStore(s, first).eraseShop(PLATFORM, at.shop);
        });
        const working = s.schedule(Promise.resolve('work')).then(() => workerStep(worker.codes, at, taken));
        await s.waitFor(Promise.all([erasing, working]));
        const later = clock.getTime() + 7 * DAY_MS + SETTLE_MS + 60_000;
        const holdAfter = async () => heldPoints(await first.getRecord(HOLDER_KIND, at.holder), later, 'service');
        // Taken once by the order's redeem, and held no more: never spent twice, never kept for good.
        expect([taken.count, await holdAfter()], `${s.report().length} steps`).toEqual([1, 0]);
        // The order comes again (a reinstall's import of the same paid order): no second redeem.
        await workerStep(bridge(first, now).codes, at, taken);
        expect([taken.count, await holdAfter()]).toEqual([1, 0]);
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
  }, 120_000);
});
