// A store that no longer lets the bridge in, with no uninstall to say so (a WooCommerce merchant revokes the
// bridge's REST key): its customers' open codes can be neither counted nor removed. The sweeper lets a code's points
// go once the code has expired and settled (it pays for nothing more), and never before; a store that is only down
// for now gives nothing up; a spent code's record, which the sweeper keeps until the code is removed from the store,
// stays while the store cannot be asked, until the code has expired and settled (issue 64, review G8). The codes part is the in-memory store of codes, told to refuse as the platform would.
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { CoverChecks } from '../../src/core/storefront/cover-checks.ts';
import { CodeSweeper } from '../../src/core/storefront/code-sweeper.ts';
import {
  CODE_KIND,
  HOLDER_KIND,
  codeIndexId,
  holderId,
  type Reservation,
} from '../../src/core/storefront/reservations.ts';
import { RewardCodes } from '../../src/core/storefront/reward-codes.ts';
import { saveRewards } from '../../src/core/storefront/rewards.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { createLogger } from '../../src/logger.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { FakeCodeStore } from '../helpers/fake-code-store.ts';
import { raw } from '../helpers/raw-records.ts';
import { FIVE_OFF } from '../helpers/amount-off.ts';

const DAY = 86_400_000;
const SETTLE = 6 * 3_600_000;
const REPAIR = 2 * 60_000;
const SHOP = 'revoked.example';
const CUSTOMER = { email: 'ada@example.com' };
const HOLDER = holderId('acct', CUSTOMER);
const logger = createLogger({ level: 'silent' });

const stores: LowdbStore[] = [];
afterAll(async () => {
  for (const store of stores) await store.close();
});

let store: LowdbStore;
let fake: FakeCodeStore;
let refusal: Error | undefined;
/** Whether the bridge still serves the shop: false once it was uninstalled. */
let served = true;
let clock = Date.parse('2026-11-01T00:00:00Z');

beforeEach(async () => {
  store = new LowdbStore({ dataDir: tempDataDir(), settleAfterMs: 1 });
  await store.open();
  stores.push(store);
  fake = new FakeCodeStore();
  refusal = undefined;
  served = true;
  clock = Date.parse('2026-11-01T00:00:00Z');
});

/** The store's codes as the platform answers them now: refused with `refusal` while it is set. */
const parts = () => ({
  ...fake.parts,
  find: async (shop: string, code: string) => {
    if (refusal) throw refusal;
    return fake.parts.find(shop, code);
  },
  uses: async (shop: string, id: string) => {
    if (refusal) throw refusal;
    return fake.parts.uses(shop, id);
  },
  remove: async (shop: string, id: string) => {
    if (refusal) throw refusal;
    return fake.parts.remove(shop, id);
  },
});

/** A code of 200 points, issued to Ada, expiring in a week, its storefront and reward still on. */
async function issued(): Promise<{ reservation: Reservation; sweeper: CodeSweeper }> {
  const codes = parts();
  const made = await codes.make({
    shop: SHOP,
    customerId: '42',
    code: 'LB-ABCDEFGHJKLMNPQR',
    title: 'Loyalty reward',
    benefit: { kind: 'amount_off' as const, amount: '5.00' },
    minimumOrder: null,
    startsAt: new Date(clock).toISOString(),
    expiresAt: new Date(clock + 7 * DAY).toISOString(),
    combinesWithOthers: true,
  });
  if (made.kind !== 'made') throw new Error('not made');
  const reservation: Reservation = {
    id: 'r1',
    platform: 'shopify',
    shop: SHOP,
    customerId: '42',
    rewardId: 'rw1',
    points: 200,
    benefit: { kind: 'amount_off' as const, amount: '5.00' },
    code: 'LB-ABCDEFGHJKLMNPQR',
    state: 'issued',
    platformId: made.platformId,
    expiresAt: new Date(clock + 7 * DAY).toISOString(),
    createdAt: new Date(clock).toISOString(),
  };
  await store.putRecord(HOLDER_KIND, HOLDER, {
    account: 'acct',
    customer: CUSTOMER,
    reservations: [reservation],
  });
  await store.putRecord(CODE_KIND, codeIndexId('shopify', SHOP, reservation.code), {
    platform: 'shopify',
    shop: SHOP,
    holder: HOLDER,
    reservation: 'r1',
    createdAt: reservation.createdAt,
  });
  await store.putRecord(raw('storefront'), `shopify:${SHOP}`, {
    platform: 'shopify',
    shop: SHOP,
    on: true,
    by: 't',
    at: '',
  });
  const reward = FIVE_OFF;
  await saveRewards(store, 'shopify', SHOP, [{ ...reward, on: true }], 'test');
  const now = () => new Date(clock);
  const codesOf = () => codes;
  const reader = {
    pointsNow: () => Promise.reject(new Error('not read here')),
    pointsToRedeem: () => Promise.reject(new Error('not read here')),
    dropBalance: () => undefined,
  };
  const rewardCodes = new RewardCodes({ store, codesOf, reader, logger, now });
  const accounts = { runtime: async () => undefined, forShop: async () => undefined };
  return {
    reservation,
    sweeper: new CodeSweeper({
      store,
      codes: rewardCodes,
      checks: new CoverChecks({ store, codesOf, reader, codes: rewardCodes, logger, now }),
      codesOf,
      served: async () => served,
      accounts,
      logger,
      now,
      settleMs: SETTLE,
      repairMs: REPAIR,
    }),
  };
}

const stateNow = async () => (await store.getRecord(HOLDER_KIND, HOLDER))?.reservations[0];
const gone = () => Object.assign(new Error('the store refused the key'), { accessGone: true });

describe('the code sweeper, when a store no longer lets the bridge in', () => {
  it('holds an open code’s points while it could still pay, and lets them go once it expired and settled', async () => {
    const { sweeper } = await issued();
    refusal = gone();
    await store.putRecord(raw('storefront'), `shopify:${SHOP}`, {
      platform: 'shopify',
      shop: SHOP,
      on: false,
      by: 't',
      at: '',
    });
    await expect(sweeper.sweep()).resolves.toMatchObject({ released: 0, failed: 1 });
    expect((await stateNow())?.state).toBe('issued');
    clock += 7 * DAY + SETTLE + 1;
    await expect(sweeper.sweep()).resolves.toMatchObject({ released: 1, failed: 0 });
    expect(await stateNow()).toMatchObject({ state: 'released', endedWhy: expect.stringMatching(/no longer lets/) });
    expect(await store.listRecords(CODE_KIND)).toEqual([]);
  });

  it('keeps a spent code’s record it cannot remove from such a store until the code expired and settled', async () => {
    const { reservation, sweeper } = await issued();
    const spent = { ...reservation, state: 'redeemed' as const, orderKey: 'shopify:revoked.example:1' };
    await store.putRecord(HOLDER_KIND, HOLDER, { account: 'acct', customer: CUSTOMER, reservations: [spent] });
    refusal = new Error('the store did not answer');
    await expect(sweeper.sweep()).resolves.toMatchObject({ failed: 1 });
    expect(await store.listRecords(CODE_KIND)).toHaveLength(1);
    // The key may be mended with the code still paying: kept, to be removed then.
    refusal = gone();
    await expect(sweeper.sweep()).resolves.toMatchObject({ failed: 1, removed: 0 });
    expect(await store.listRecords(CODE_KIND)).toHaveLength(1);
    clock += 7 * DAY + SETTLE + 1;
    await expect(sweeper.sweep()).resolves.toMatchObject({ failed: 0, removed: 0 });
    expect(await store.listRecords(CODE_KIND)).toEqual([]);
  });

  it('gives nothing up for a store that is only down now, however long past its expiry', async () => {
    const { sweeper } = await issued();
    refusal = new Error('the store did not answer');
    clock += 30 * DAY;
    await expect(sweeper.sweep()).resolves.toMatchObject({ released: 0, failed: 1 });
    expect((await stateNow())?.state).toBe('issued');
    // Back: its count decides, as for any expired code.
    refusal = undefined;
    await expect(sweeper.sweep()).resolves.toMatchObject({ released: 1, removed: 1 });
  });

  it('holds the points of a code reserved as its shop was uninstalled until it could have expired, then lets them go', async () => {
    const { reservation, sweeper } = await issued();
    // Reserved as the shop was uninstalled; its make's answer never came (it may have made the code, which then pays).
    const reserving: Reservation = { ...reservation, state: 'reserving', platformId: undefined };
    await store.putRecord(HOLDER_KIND, HOLDER, {
      account: 'acct',
      customer: CUSTOMER,
      reservations: [reserving],
    });
    refusal = new Error('[API] Invalid API key or access token');
    clock += REPAIR + 1;
    // Still served (a store down now): the code may be there, so nothing is let go.
    await expect(sweeper.sweep()).resolves.toMatchObject({ released: 0, failed: 1 });
    expect((await stateNow())?.state).toBe('reserving');
    // Uninstalled: held, with nothing to warn about, until the code could pay for nothing more.
    served = false;
    await expect(sweeper.sweep()).resolves.toMatchObject({ released: 0, failed: 0 });
    expect((await stateNow())?.state).toBe('reserving');
    clock += 7 * DAY + SETTLE;
    await expect(sweeper.sweep()).resolves.toMatchObject({ released: 1, failed: 0 });
    expect(await stateNow()).toMatchObject({ state: 'released', endedWhy: expect.stringMatching(/uninstalled/) });
    expect(await store.listRecords(CODE_KIND)).toEqual([]);
  });
});

// Issue 64: an uninstall let the shop's open reservations go while their codes still paid in the store, so their
// points could be spent again (in another shop of the account, or here after a reinstall).
describe('the code sweeper, for a shop uninstalled', () => {
  it('holds an open code’s points while it may pay, and lets them go unasked once it expired and settled', async () => {
    const { sweeper } = await issued();
    // Shopify's and BigCommerce's answer after an uninstall: a 401, whose error says nothing of access.
    refusal = new Error('[API] Invalid API key or access token');
    served = false;
    await store.deleteRecord(raw('storefront'), `shopify:${SHOP}`);
    // Each pass holds it, with nothing failed to warn about.
    await expect(sweeper.sweep()).resolves.toMatchObject({ released: 0, failed: 0 });
    clock += 7 * DAY + SETTLE - 1_000;
    await expect(sweeper.sweep()).resolves.toMatchObject({ released: 0, failed: 0 });
    expect((await stateNow())?.state).toBe('issued');
    clock += 2_000;
    await expect(sweeper.sweep()).resolves.toMatchObject({ released: 1, failed: 0 });
    expect(await stateNow()).toMatchObject({ state: 'released', endedWhy: expect.stringMatching(/uninstalled/) });
  });
});

describe('the code sweeper, for a shop not served whose store still lets the bridge in', () => {
  it('removes a code made in the store before it lets its points go', async () => {
    const { reservation, sweeper } = await issued();
    // The make landed in the store, but its answer did not come back (a crash): the code is there and usable.
    const reserving: Reservation = { ...reservation, state: 'reserving', platformId: undefined };
    await store.putRecord(HOLDER_KIND, HOLDER, {
      account: 'acct',
      customer: CUSTOMER,
      reservations: [reserving],
    });
    // Not served (the shop taken off the bridge's list of shops, say), while its install still answers.
    served = false;
    clock += REPAIR + 1;
    await expect(sweeper.sweep()).resolves.toMatchObject({ released: 1, failed: 0 });
    expect((await stateNow())?.state).toBe('released');
    expect(await fake.parts.find(SHOP, reservation.code)).toBeUndefined();
  });

  it.each([
    ['its look for the code', 'find'],
    ['the removal of the code it found', 'remove'],
  ] as const)('lets nothing go while %s only fails for now (throttled, a 503)', async (_what, failing) => {
    const { reservation, sweeper } = await issued();
    // The make landed in the store, its answer lost: the code is there and usable.
    const reserving: Reservation = { ...reservation, state: 'reserving', platformId: undefined };
    await store.putRecord(HOLDER_KIND, HOLDER, {
      account: 'acct',
      customer: CUSTOMER,
      reservations: [reserving],
    });
    served = false;
    clock += REPAIR + 1;
    // As Shopify's and BigCommerce's admin clients say a call that may pass if asked again.
    const throttled = Object.assign(new Error('Shopify kept throttling the Admin API'), { transient: true });
    const real = fake.parts[failing];
    (fake.parts as unknown as Record<string, unknown>)[failing] = () => Promise.reject(throttled);
    await expect(sweeper.sweep()).resolves.toMatchObject({ released: 0 });
    expect((await stateNow())?.state).toBe('reserving');
    // Asked again once the store answers: the code is removed before its points go.
    (fake.parts as unknown as Record<string, unknown>)[failing] = real;
    await expect(sweeper.sweep()).resolves.toMatchObject({ released: 1, failed: 0 });
    expect(await fake.parts.find(SHOP, reservation.code)).toBeUndefined();
  });
});

describe('the code sweeper, for a shop not served whose store is only down now', () => {
  it('keeps the points of a code its store may have made until the store can say, then removes it', async () => {
    const { reservation, sweeper } = await issued();
    // The make landed in the store, its answer lost; the shop taken off the bridge's list, its install kept.
    const reserving: Reservation = { ...reservation, state: 'reserving', platformId: undefined };
    await store.putRecord(HOLDER_KIND, HOLDER, {
      account: 'acct',
      customer: CUSTOMER,
      reservations: [reserving],
    });
    served = false;
    clock += REPAIR + 1;
    // Shopify's own words for a store that did not answer: asking again later may succeed.
    refusal = Object.assign(new Error('Shopify Admin API of revoked.example did not answer (ETIMEDOUT)'), {
      transient: true,
    });
    await expect(sweeper.sweep()).resolves.toMatchObject({ released: 0 });
    // Its points stay held: the code may be in the store, usable, and its order must find them.
    expect((await stateNow())?.state).toBe('reserving');
    refusal = undefined;
    await expect(sweeper.sweep()).resolves.toMatchObject({ released: 1, failed: 0 });
    expect((await stateNow())?.state).toBe('released');
    expect(await fake.parts.find(SHOP, reservation.code)).toBeUndefined();
  });
});
