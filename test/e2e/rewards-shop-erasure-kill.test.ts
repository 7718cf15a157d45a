// A shop's erasure (shop/redact) killed half done (issue 64, review H 4): a real bridge process, a Shopify app on
// lowdb (helpers/rewards-bridge-child.ts), is killed with SIGKILL inside RewardPrivacy.eraseShop once it has rewritten
// the first of three customers' holders (its erased codes kept, its reservations in the shop turned into holds by
// amount), the other two not yet: the interesting point, where a second run meets holders already done beside ones
// not. The delivery was taken into the inbox before the kill, so the next process runs the erasure again. What a
// customer and a merchant would notice: the paid code's redeem was taken once and is not held again; each open code's
// points are held once, by amount, until its expiry (its due time), then released; nothing of the shop's orders, its
// deliveries or its customers' contacts is left but the holders' own (account-wide, by design).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { ERASED_CODE_KIND } from '../../src/core/storefront/erased-codes.ts';
import {
  CODE_KIND,
  HOLDER_KIND,
  codeIndexId,
  heldPoints,
  holderId,
  newCode,
  type CodeIndex,
  type Holder,
  type Reservation,
} from '../../src/core/storefront/reservations.ts';
import { eventually, tempDataDir } from '../helpers/engine.ts';
import { shopifyKillStore, type KillTestStore } from '../helpers/kill-test-stores.ts';
import { kill, startChild, stop, withLedger as ledgerOf, type Child } from '../helpers/rewards-bridge-process.ts';
import { SANDBOX_CREDENTIALS, startTestSandbox, type TestSandbox } from '../helpers/sandbox-server.ts';

const GRACE = 'grace@example.com';
const OTHERS = ['ada@example.com', 'edsger@example.com'];
const START_POINTS = 1000;
const REWARD_POINTS = 100;

describe('a shop’s erasure killed after its first holder was rewritten (Shopify, lowdb)', () => {
  let sandbox: TestSandbox;
  let shop: KillTestStore;
  let env: Record<string, string>;
  let child: Child | undefined;

  const withLedger = <T>(use: (store: LedgerStore) => Promise<T>): Promise<T> =>
    ledgerOf({ ...env, ...shop.ledgerEnv }, use);
  const graceRedeems = () => sandbox.store.snapshot().redemptions.filter((each) => each.email === GRACE);

  beforeAll(async () => {
    sandbox = await startTestSandbox({ rateLimit: 1_000_000 });
    sandbox.store.earn({
      ...{ activityId: '1', points: START_POINTS, name: 'Grace Hopper', email: GRACE, mobile: '' },
      ...{ description: null, orderId: 'seed' },
    });
    sandbox.store.updatePoints('seed', 'approve');
    shop = await shopifyKillStore({ email: GRACE });
    env = {
      ...{ DATA_DIR: tempDataDir(), HOST: '127.0.0.1', LOG_LEVEL: 'info', DEMO_STORE: 'off' },
      ...{ RECONCILE_INTERVAL_MINUTES: '0', LOYALTY_BASE_URL: sandbox.url },
      ...{ LOYALTY_API_KEY: SANDBOX_CREDENTIALS.apiKey, LOYALTY_BRAND_ID: SANDBOX_CREDENTIALS.brandId },
      ...{ LOYALTY_RATE_LIMIT_PER_MINUTE: '100000', ...shop.env, ALLOW_PRIVATE_STORE_ADDRESSES: 'true' },
      ...{ WORKER_LEASE_SECONDS: '5', REWARD_SETTLE_MINUTES: '0', REWARD_SWEEP_SECONDS: '1' },
      SECRETS_KEY: randomBytes(32).toString('base64'),
    };
    await withLedger((store) => shop.beforeStart(store));
  }, 60_000);
  afterAll(async () => {
    if (child) await kill(child);
    await shop?.close();
    await sandbox?.close();
  });

  it('runs again after the restart: the paid code taken once, each open code held once until its expiry', async () => {
    child = await startChild(env);
    const rewardId = await shop.setUp(child.url, {
      ...{ points: REWARD_POINTS, amountOff: '1.00', minimumOrder: null, expiresInDays: 1, combines: false },
    });
    // Grace's first code pays an order (its redeem taken); her second stays open.
    const paid = (await shop.redeem(child.url, rewardId)).body.code as string;
    expect(shop.pay(paid)).toBe(true);
    await shop.deliverPaid(child.url, 1, paid);
    await eventually(() => expect(graceRedeems()).toHaveLength(1), 20_000);
    // Pressed again while the bridge answers "busy, try again" (503): the paid code's redeem, just taken, is still
    // being checked against her points, as a customer pressing at once after paying may see.
    let second = await shop.redeem(child.url, rewardId);
    for (let press = 0; second.status === 503 && press < 10; press++) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      second = await shop.redeem(child.url, rewardId);
    }
    const open = second.body.code as string;
    expect(open, JSON.stringify(second.body)).toMatch(/^LB-/);
    await eventually(async () => {
      const grace = await shop.points(child!.url);
      expect(grace.body.balance.available).toBe(START_POINTS - 2 * REWARD_POINTS);
    }, 20_000);
    // Two more customers of the shop, each with an open code (written with the process down: one customer's storefront).
    await stop(child);
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    await withLedger(async (store) => {
      for (const email of OTHERS) await openCodeOf(store, shop, email, expiresAt);
    });
    // The erasure: killed once the first holder is rewritten.
    child = await startChild({ ...env, KILL_AFTER_ERASED_HOLDERS: '1' });
    const killed = new Promise<void>((resolve) => child!.process.once('exit', () => resolve()));
    await shop.eraseShop!(child.url);
    await killed;
    expect(child.process.signalCode).toBe('SIGKILL');
    const half = await withLedger(async (store) => store.listRecords(HOLDER_KIND));
    const inShop = (holder: Holder) => holder.reservations.filter((each) => each.shop === shop.shop);
    expect(half.filter(({ value }) => inShop(value).length === 0)).toHaveLength(1);
    // The next process takes the delivery from the inbox and erases the shop again, whole.
    child = await startChild(env);
    await eventually(() => expect(child!.output()).toContain("a shop's data was erased"), 20_000);
    await stop(child);
    child = undefined;
    await withLedger(async (store) => {
      const holders = await store.listRecords(HOLDER_KIND);
      expect(holders).toHaveLength(3);
      const now = Date.now();
      for (const { id, value } of holders) {
        expect(inShop(value)).toEqual([]);
        // Held once: Grace's open code alone (her paid one was taken, not held again), each other's own.
        expect(value.erasedShopHolds?.map((each) => each.points)).toEqual([REWARD_POINTS]);
        expect(heldPoints(value, now, 'service')).toBe(REWARD_POINTS);
        // Released at its due time: the code's expiry (REWARD_SETTLE_MINUTES=0), not for good.
        const until = Date.parse(value.erasedShopHolds![0]!.until);
        expect(until).toBeLessThanOrEqual(now + 86_400_000 + 60_000);
        expect(heldPoints(value, until + 1, 'service')).toBe(0);
        expect(id).toBe(holderId(value.account, value.customer!));
      }
      expect(await store.listRecords(ERASED_CODE_KIND)).toHaveLength(3);
      expect(JSON.stringify(await store.listRecords(ERASED_CODE_KIND))).not.toMatch(/@example\.com/);
      expect(await store.listRecords(CODE_KIND)).toEqual([]);
      // Nothing of the shop's orders, deliveries or dead letters is left to name a customer.
      for (const email of [GRACE, ...OTHERS]) {
        const left = await store.exportCustomer({ emails: [email], phones: [], orderIds: [] }, (delivery) => ({
          about: delivery.body.includes(email),
          redacted: delivery,
        }));
        expect([left.orders, left.inbox, left.deadLetters]).toEqual([[], [], []]);
      }
    });
    expect(graceRedeems()).toHaveLength(1);
  }, 120_000);
});

/** A customer of the shop with an open code of REWARD_POINTS, as a redeem leaves it: their holder and the code's record. */
async function openCodeOf(store: LedgerStore, shop: KillTestStore, email: string, expiresAt: string): Promise<void> {
  const holder = holderId('default', { email });
  const reservation: Reservation = {
    ...{
      id: randomBytes(8).toString('hex'),
      platform: shop.platform,
      shop: shop.shop,
      customerId: `customer-${randomBytes(4).toString('hex')}`,
      rewardId: 'r',
    },
    ...{
      points: REWARD_POINTS,
      benefit: { kind: 'amount_off' as const, amount: '1.00' },
      code: newCode(),
      state: 'issued',
      expiresAt,
    },
    createdAt: new Date().toISOString(),
  };
  await store.putRecord(HOLDER_KIND, holder, {
    account: 'default',
    customer: { email },
    reservations: [reservation],
  });
  const index: CodeIndex = {
    platform: shop.platform,
    shop: shop.shop,
    holder,
    reservation: reservation.id,
    createdAt: reservation.createdAt,
  };
  await store.putRecord(CODE_KIND, codeIndexId(shop.platform, shop.shop, reservation.code), index);
}
