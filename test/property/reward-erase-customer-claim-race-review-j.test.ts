// Two bridges on one PostgreSQL ledger (issue 64, review J): one erases a customer (RewardPrivacy's eraseCustomer,
// then the ledger's), while the other's worker takes the customer's reward code for an order paid with it at checkout
// and redeems it (claimForOrder, redeemFor, the call, settled), fast-check's scheduler interleaving every call each
// makes on its own store handle. The store counts the code's use, so its 200 points are the merchant's: taken once by
// the order's redeem, never twice, and once that redeem went nothing of the customer is left in the holders.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Accounts } from '../../src/core/accounts.ts';
import type { StoreCodes } from '../../src/core/platform-module.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import {
  CODE_KIND,
  HOLDER_KIND,
  codeIndexId,
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

const RUNS = Number(process.env.ERASE_CUSTOMER_CLAIM_RUNS ?? 40);
const logger = createLogger({ level: 'silent' });
const ACCOUNT = 'default';

let instances: Awaited<ReturnType<typeof twoInstances>>;
let run = 0;

/** The store's codes: the one code was used once at checkout; a removal removes nothing that matters here. */
const usedOnce: StoreCodes = {
  make: async () => {
    throw new Error('no code is made here');
  },
  find: async () => undefined,
  uses: async () => 1,
  remove: async () => undefined,
  forOneCustomer: false,
  notMade: {},
  setUpFirst: {},
  whyKindFails: async () => undefined,
  usesCountedLate: false,
  readiness: async () => ({ ready: true }),
};

function bridge(store: LedgerStore, now: () => Date) {
  const reader = { pointsToRedeem: async () => undefined, dropBalance: () => undefined };
  const codesOf = () => usedOnce;
  const codes = new RewardCodes({
    store,
    codesOf,
    reader: reader as unknown as RewardCodesParts['reader'],
    logger,
    now,
  });
  const accounts = { all: async () => [{ id: ACCOUNT }] } as unknown as Pick<Accounts, 'all' | 'runtime'>;
  const privacy = new RewardPrivacy({ store, accounts, codesOf, logger, now, settleMs: SETTLE_MS });
  return { codes, privacy };
}

async function world(store: LedgerStore, now: Date) {
  const shop = `erase-customer-${++run}-${process.pid}`;
  const email = `erase-customer-${run}-${process.pid}@example.com`;
  const holder = holderId(ACCOUNT, { email });
  const code = newCode();
  const reservation = {
    ...{ id: `reservation-${run}`, platform: PLATFORM, shop, customerId: 'c-1', rewardId: 'big', points: 200 },
    ...{
      benefit: { kind: 'amount_off' as const, amount: '5.00' },
      code,
      state: 'issued' as const,
      platformId: `gid-${run}`,
    },
    ...{ expiresAt: new Date(now.getTime() + 7 * DAY_MS).toISOString(), createdAt: now.toISOString() },
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
  const orderId = String(77_000 + run);
  const paid = orderEvent({ orderId, facts: ['placed', 'paid'], customer: { name: 'A', email, mobile: null } });
  await foldEvents(store, [{ ...paid, shop, discountCodes: [{ code, amount: '5.00' }] }]);
  return { shop, email, holder, code, orderKey: `${PLATFORM}:${shop}:${orderId}` };
}

async function workerStep(
  codes: RewardCodes,
  at: { shop: string; code: string; orderKey: string },
  taken: { count: number },
): Promise<void> {
  for (let step = 0; step < 2; step++) {
    const code = await codes.claimForOrder(PLATFORM, at.shop, at.code, at.orderKey);
    if (!code) return;
    const ready = await codes.redeemFor(code, at.orderKey);
    if (ready.kind === 'not-held') continue;
    if (ready.kind !== 'send') return;
    taken.count += 1;
    return codes.settled(code, 'redeemed', at.orderKey);
  }
}

describe.runIf(postgresAvailable())('a customer erased on one bridge while another takes their code (postgres)', () => {
  beforeAll(async () => {
    instances = await twoInstances();
  });
  afterAll(async () => instances?.close());

  it('takes the used code’s points once, and keeps nothing of the customer once its redeem went', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), async (s) => {
        const clock = new Date();
        const now = () => clock;
        const first = instances.first.store;
        const at = await world(first, clock);
        const eraser = bridge(scheduledStore(s, first), now);
        const worker = bridge(scheduledStore(s, instances.second.store), now);
        const taken = { count: 0 };
        const match = { emails: [at.email], phones: [], orderIds: [] };
        const erasing = s.schedule(Promise.resolve('erase')).then(() => eraser.privacy.eraseCustomer(match));
        const working = s.schedule(Promise.resolve('work')).then(() => workerStep(worker.codes, at, taken));
        await s.waitFor(Promise.all([erasing, working]));
        // The order's worker steps again (a retry, a reinstall's import): no second redeem.
        await workerStep(bridge(first, now).codes, at, taken);
        const holders = JSON.stringify(await first.listRecords(HOLDER_KIND));
        expect([taken.count, holders.includes(at.email)], `${s.report().length} steps`).toEqual([1, false]);
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
  }, 120_000);
});
