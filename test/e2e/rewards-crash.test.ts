// The kill test of reward codes (issues 52, 53 and 54): a real bridge process, set up as a Shopify app, a BigCommerce
// app or a WooCommerce store's bridge (helpers/rewards-bridge-child.ts), is killed with SIGKILL between every pair of
// steps of a code's life: reserve, code made, code shown, order paid, redeem sent, redeem recorded, expiry. The fake
// store (its codes: Shopify's discounts, BigCommerce's promotions, WooCommerce's coupons; helpers/kill-test-stores.ts)
// and the sandbox (the customer's points) run in this process, so they outlive every kill; a call the test wants the
// kill to land in is held there until the process is gone. After each restart, what a customer and a merchant would
// notice: the sandbox holds exactly the redeems it should (one per paid code), every code live in the store has a
// held reservation, nothing the bridge made is left in the store without its code, nothing is left 'reserving', and
// the balance the storefront shows is right. Each platform on lowdb, and on PostgreSQL with two bridge processes on
// one database; every kill point on each backend and on each store's code maker, not every pair (ON_LOWDB below).
import { randomBytes } from 'node:crypto';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type Listening } from '../../src/http/listen.ts';
import { createSandbox, type Sandbox } from '../../src/sandbox/app.ts';
import { CODE_KIND, HOLDER_KIND, codeIndexId, type Holder } from '../../src/core/storefront/reservations.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { eventually, tempDataDir } from '../helpers/engine.ts';
import {
  bigCommerceKillStore,
  holder,
  shopifyKillStore,
  type Answer,
  type Held,
  type KillTestCustomer,
  type KillTestStore,
  wooKillStore,
} from '../helpers/kill-test-stores.ts';
import { freshDatabase, postgresAvailable, type TestDatabase } from '../helpers/postgres.ts';
import { kill, startChild, stop, withLedger as ledgerOf, type Child } from '../helpers/rewards-bridge-process.ts';
import { SANDBOX_CREDENTIALS } from '../helpers/sandbox-server.ts';
import type { RewardBenefit } from '../../src/core/reward-benefit.ts';

const GRACE = 'grace@example.com';
const START_POINTS = 1000;
const REWARD_POINTS = 100;

/** The sandbox, with a hook that holds a call to a path before it takes effect or after (its answer held). */
async function startHoldingSandbox() {
  const sandbox: Sandbox = createSandbox({ ...SANDBOX_CREDENTIALS, rateLimit: 1_000_000 });
  const holds: Array<{ path: string; phase: 'before' | 'after'; held: ReturnType<typeof holder> }> = [];
  const app = express();
  app.use((req, res, next) => {
    const at = holds.findIndex((each) => req.path.startsWith(each.path));
    if (at < 0) return next();
    const [{ phase, held }] = holds.splice(at, 1) as [(typeof holds)[number]];
    if (phase === 'before')
      return void held.arrive().then(
        () => next(),
        () => res.destroy(),
      );
    const end = res.end.bind(res) as (...args: unknown[]) => void;
    (res as unknown as { end: (...args: unknown[]) => unknown }).end = (...args: unknown[]) => {
      void held.arrive().then(
        () => end(...args),
        () => res.destroy(),
      );
      return res;
    };
    next();
  });
  app.use(sandbox.app);
  const http: Listening = await listen(app, 0, '127.0.0.1');
  return {
    url: http.localUrl,
    store: sandbox.store,
    hold(path: string, phase: 'before' | 'after'): Held {
      const held = holder();
      holds.push({ path, phase, held });
      return held;
    },
    close: () => http.close(),
  };
}

/** Where a suite's kills land, one test each ('paid' goes on from the code 'shown' left). */
type KillPoint = 'make-before' | 'make-after' | 'shown' | 'paid' | 'redeem-lost' | 'recorded' | 'sweeper';

function killSuite(
  name: string,
  startStore: (customer: KillTestCustomer) => Promise<KillTestStore>,
  backend: () => Promise<{ env: Record<string, string>; drop(): Promise<void> }>,
  instances: number,
  options: {
    /** Kill also between the two calls that make a code, where the store makes one in two (BigCommerce). */
    madeInParts?: boolean;
    /** Only these kill points (the others not run here, to keep the test's time down); all by default. */
    only?: readonly KillPoint[];
    /** What the reward gives: each kind runs on each backend, on one platform or another. */
    benefit: RewardBenefit;
  },
) {
  const shared = instances > 1;
  const { madeInParts = false, only, benefit } = options;
  /** The test of a kill point; not registered at all where this suite does not run it (no skipped test to read). */
  const notHere = (() => undefined) as unknown as typeof it;
  const at = (point: KillPoint) => (only === undefined || only.includes(point) ? it : notHere);
  describe(name, () => {
    let shop: KillTestStore;
    let sandbox: Awaited<ReturnType<typeof startHoldingSandbox>>;
    let env: Record<string, string>;
    let dropBackend: () => Promise<void> = async () => undefined;
    let children: Child[] = [];
    /** Redeems each paid code should have made at the sandbox, and the points held by codes still open. */
    let redeemed = 0;
    let held = 0;

    const start = (extra: Record<string, string> = {}) => startChild({ ...env, ...extra });
    const restartAll = async () => {
      await Promise.all(children.map(kill));
      children = await Promise.all(Array.from({ length: instances }, () => start()));
    };
    const first = () => children[0]!;
    const points = async (child = first()): Promise<Answer> => shop.points(child.url);
    const redeem = async (child = first()): Promise<Answer> => shop.redeem(child.url, rewardId);
    const graceRedeems = () => sandbox.store.snapshot().redemptions.filter((each) => each.email === GRACE);
    /** The ledger, read (or changed) while every bridge process is down. */
    const withLedger = <T>(use: (store: LedgerStore) => Promise<T>) => ledgerOf({ ...env, ...shop.ledgerEnv }, use);
    const reservations = async () =>
      withLedger(async (store) => {
        const holders = await store.listRecords(HOLDER_KIND);
        const codes = await store.listRecords(CODE_KIND);
        return {
          all: holders.flatMap(({ value }) => value.reservations),
          codes: codes.map(({ id }) => id),
          deadLetters: await store.listDeadLetters(),
        };
      });
    /** What must hold after every restart, once the sweeper had its turn (on lowdb, its processes started again after
     * the ledger is read unless `thenDown`: a suite's last check, which nothing follows). */
    const expectExact = async ({ thenDown = false } = {}) => {
      await eventually(async () => {
        expect(graceRedeems()).toHaveLength(redeemed);
        // Nothing in the store that no code needs (a promotion whose code the make or the removal did not reach).
        expect(shop.strays()).toEqual([]);
        // Every process shows it: what reservations hold is counted at each answer, whichever process changed it.
        for (const child of children)
          expect((await points(child)).body.balance.available).toBe(START_POINTS - redeemed * REWARD_POINTS - held);
      }, 20_000);
      // lowdb: one process holds the ledger, so it is read with the process stopped (a kill could lose a write the
      // balance already showed, held in memory before its flush); PostgreSQL is read beside them.
      if (!shared) await Promise.all(children.map(stop));
      const ledger = await reservations();
      if (!shared && !thenDown) children = await Promise.all(Array.from({ length: instances }, () => start()));
      expect(ledger.all.filter((each) => each.state === 'reserving')).toEqual([]);
      const heldCodes = new Set(
        ledger.all.filter((each) => each.state === 'issued' || each.state === 'used').map((each) => each.code),
      );
      for (const code of shop.liveCodes()) expect(heldCodes).toContain(code);
      expect(graceRedeems()).toHaveLength(redeemed);
      return ledger;
    };

    let rewardId = '';
    beforeAll(async () => {
      const db = await backend();
      dropBackend = db.drop;
      sandbox = await startHoldingSandbox();
      // Grace has 1,000 approved points at the service.
      sandbox.store.earn({
        activityId: '1',
        points: START_POINTS,
        name: 'Grace Hopper',
        email: GRACE,
        mobile: '',
        description: null,
        orderId: 'seed',
      });
      sandbox.store.updatePoints('seed', 'approve');
      shop = await startStore({ email: GRACE });
      env = {
        ...db.env,
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        DEMO_STORE: 'off',
        RECONCILE_INTERVAL_MINUTES: '0',
        LOYALTY_BASE_URL: sandbox.url,
        LOYALTY_API_KEY: SANDBOX_CREDENTIALS.apiKey,
        LOYALTY_BRAND_ID: SANDBOX_CREDENTIALS.brandId,
        LOYALTY_RATE_LIMIT_PER_MINUTE: '100000',
        ...shop.env,
        ALLOW_PRIVATE_STORE_ADDRESSES: 'true',
        WORKER_LEASE_SECONDS: '5',
        // A code is settled at its expiry; the sweeper runs every second and repairs an unmade code after 1.5 s.
        REWARD_SETTLE_MINUTES: '0',
        REWARD_SWEEP_SECONDS: '1',
        REWARD_REPAIR_MS: '1500',
        SECRETS_KEY: randomBytes(32).toString('base64'),
      };
      await withLedger((store) => shop.beforeStart(store));
      children = await Promise.all(Array.from({ length: instances }, () => start()));
      rewardId = await shop.setUp(first().url, {
        points: REWARD_POINTS,
        benefit,
        minimumOrder: null,
        expiresInDays: 1,
        combines: false,
      });
      expect((await points()).body.balance.available).toBe(START_POINTS);
    }, 90_000);
    afterAll(async () => {
      await Promise.all(children.map(kill));
      await shop?.close();
      await sandbox?.close();
      await dropBackend();
    });

    at('make-before')(
      'killed after the reservation, before the make reached the store: the points come back, no code',
      async () => {
        const hold = shop.holdMake('before');
        const asked = redeem().catch(() => undefined);
        await hold.reached;
        await kill(first());
        hold.drop();
        await asked;
        await restartAll();
        await expectExact();
        expect(shop.inStore()).toEqual([]);
        expect(shop.strays()).toEqual([]);
      },
      90_000,
    );

    at('make-after')(
      'killed after the store made the code, its answer lost: the code is removed and the points come back',
      async () => {
        const hold = shop.holdMake('after');
        const asked = redeem().catch(() => undefined);
        await hold.reached;
        await kill(first());
        hold.go();
        await asked;
        expect(shop.liveCodes()).toHaveLength(1);
        await restartAll();
        await eventually(() => expect(shop.liveCodes()).toEqual([]), 20_000);
        await expectExact();
      },
      90_000,
    );

    if (madeInParts)
      it('killed after the store made the first part of a code, its answer lost: removed, the points come back', async () => {
        const hold = shop.holdFirstPartMade!();
        const asked = redeem().catch(() => undefined);
        await hold.reached;
        await kill(first());
        hold.go();
        await asked;
        // A promotion with no code: no use to anyone, and the bridge never learnt its id.
        expect(shop.strays()).toHaveLength(1);
        await restartAll();
        await expectExact();
        expect(shop.liveCodes()).toEqual([]);
      }, 90_000);

    let shown = '';
    at('shown')(
      'killed after the code was shown: the code stays, its points held',
      async () => {
        const answer = await redeem();
        expect(answer.status).toBe(200);
        shown = answer.body.code as string;
        await kill(first());
        held += REWARD_POINTS;
        await restartAll();
        const ledger = await expectExact();
        expect(shop.liveCodes()).toEqual([shown]);
        expect(ledger.all.find((each) => each.code === shown)?.state).toBe('issued');
        expect((await points()).body.codes.map((each: { code: string }) => each.code)).toEqual([shown]);
      },
      90_000,
    );

    at('paid')(
      'killed after the order paid with it was acknowledged, before its redeem: redeemed once after the restart',
      async () => {
        expect(shop.pay(shown)).toBe(true);
        // The order's earn comes before its redeem: held at the sandbox, so the kill lands before the redeem.
        const earn = sandbox.hold('/loyalty/v1/earn/', 'before');
        await shop.deliverPaid(first().url, 1, shown);
        await earn.reached;
        await kill(first());
        earn.drop();
        await restartAll();
        held -= REWARD_POINTS;
        redeemed += 1;
        const ledger = await expectExact();
        expect(graceRedeems()[0]).toMatchObject({ points: REWARD_POINTS });
        expect(ledger.all.find((each) => each.code === shown)?.state).toBe('redeemed');
      },
      90_000,
    );

    at('redeem-lost')(
      'killed after the redeem reached the service, its answer lost: one redeem at most, and a dead letter that says so',
      async () => {
        const answer = await redeem();
        expect(answer.status).toBe(200);
        const code = answer.body.code as string;
        expect(shop.pay(code)).toBe(true);
        const sent = sandbox.hold('/loyalty/v1/redeem', 'after');
        await shop.deliverPaid(first().url, 2, code);
        await sent.reached;
        await kill(first());
        sent.go();
        await restartAll();
        // The service took it once; the bridge cannot know, so a person decides, and the points stay held until then
        // (the customer sees 100 less for now, never more).
        redeemed += 1;
        held += REWARD_POINTS;
        const saysSo = (ledger: Awaited<ReturnType<typeof reservations>>) => {
          const letter = ledger.deadLetters.find((each) => each.orderKey?.endsWith(shop.orderId(2)));
          expect(letter?.reason).toMatch(/may or may not have been applied/);
          expect(letter?.reason).toContain(code);
          expect(ledger.all.find((each) => each.code === code)?.state).toBe('used');
        };
        const ledger = await expectExact();
        // On PostgreSQL the dead letter comes once a live process takes the order up, after the dead one's lease;
        // lowdb's ledger is read with its one process down (expectExact), after its restart has looked at the order.
        if (shared) await eventually(async () => saysSo(await reservations()), 20_000);
        else saysSo(ledger);
      },
      90_000,
    );

    at('recorded')(
      'killed after the redeem was recorded, before its reservation was marked: marked by the sweeper, never redeemed again',
      async () => {
        const answer = await redeem();
        expect(answer.status).toBe(200);
        const code = answer.body.code as string;
        expect(shop.pay(code)).toBe(true);
        await shop.deliverPaid(first().url, 3, code);
        await eventually(() => expect(graceRedeems()).toHaveLength(redeemed + 1), 20_000);
        redeemed += 1;
        // The worker saves the order's redeem, then marks the reservation, after the service took it: the balance is
        // right once both are done (before, the points count as spent and held), so the kill comes after them.
        await eventually(
          async () =>
            expect((await points(first())).body.balance.available).toBe(START_POINTS - redeemed * REWARD_POINTS - held),
          20_000,
        );
        await Promise.all(children.map(kill));
        // The worker saves the order's redeem, then marks the reservation: no outside call between the two to hold,
        // so the state a kill there leaves is written here, with the processes down: the reservation still 'used',
        // its code's record still there.
        await withLedger(async (store) => {
          const [{ id, value }] = (await store.listRecords(HOLDER_KIND)) as [{ id: string; value: Holder }];
          const reservation = value.reservations.find((each) => each.code === code)!;
          await store.addRecord(CODE_KIND, codeIndexId(shop.platform, shop.shop, code), {
            platform: shop.platform,
            shop: shop.shop,
            holder: id,
            reservation: reservation.id,
            createdAt: reservation.createdAt,
          });
          await store.changeRecord(HOLDER_KIND, id, () => ({
            put: {
              ...value,
              reservations: value.reservations.map((each) =>
                each.code === code
                  ? { ...each, state: 'used' as const, redeemedAt: undefined, endedAt: undefined }
                  : each,
              ),
            },
          }));
        });
        children = await Promise.all(Array.from({ length: instances }, () => start()));
        // Held until the sweeper marks it (the balance shows 100 less till then), and never redeemed again.
        const ledger = await expectExact();
        expect(ledger.all.find((each) => each.code === code)?.state).toBe('redeemed');
      },
      90_000,
    );

    at('sweeper')(
      'killed while the sweeper removed an expired code: removed, its points let go, nothing redeemed',
      async () => {
        const answer = await redeem();
        expect(answer.status).toBe(200);
        const code = answer.body.code as string;
        held += REWARD_POINTS;
        const before = await expectExact();
        // The codes the earlier steps spent on their orders are removed from the store by the sweeper: gone first,
        // so that the removal held below is this code's.
        const spent = new Set(
          before.all.filter((each) => each.state === 'redeemed' || each.state === 'refused').map((each) => each.code),
        );
        await eventually(() => expect(shop.inStore().filter((each) => spent.has(each))).toEqual([]), 20_000);
        // A child's clock cannot be moved: the reservation's expiry is set in the past in the ledger, with every
        // process down (the store's code still runs to its own end, a day away).
        await Promise.all(children.map(kill));
        await withLedger(async (store) => {
          const [{ id, value }] = (await store.listRecords(HOLDER_KIND)) as [{ id: string; value: Holder }];
          await store.changeRecord(HOLDER_KIND, id, () => ({
            put: {
              ...value,
              reservations: value.reservations.map((each) =>
                each.code === code ? { ...each, expiresAt: new Date(Date.now() - 60_000).toISOString() } : each,
              ),
            },
          }));
          // A spent code's record the kills left behind (its removal done, the record's drop not yet) would have
          // the sweeper ask the store to remove it again first; it is gone from the store, so its record goes.
          for (const spentCode of spent)
            await store.deleteRecord(CODE_KIND, codeIndexId(shop.platform, shop.shop, spentCode));
        });
        const removal = shop.holdRemoval();
        const sweeping = await start();
        children = [sweeping];
        await removal.reached;
        await kill(sweeping);
        removal.go();
        expect(shop.inStore()).not.toContain(code);
        held -= REWARD_POINTS;
        children = await Promise.all(Array.from({ length: instances }, () => start()));
        const ledger = await expectExact({ thenDown: true });
        expect(ledger.all.find((each) => each.code === code)?.state).toBe('released');
        expect(ledger.codes.some((each) => each.endsWith(code))).toBe(false);
      },
      90_000,
    );
  });
}

const PLATFORMS = [
  ['Shopify', shopifyKillStore],
  ['BigCommerce', bigCommerceKillStore],
  ['WooCommerce', wooKillStore],
] as const;

/**
 * On lowdb, Shopify runs all seven kill points; BigCommerce and WooCommerce the kills around a code's make, show and
 * removal, which go through their own stores' calls (promotions, coupons). The order's way after its webhook (a code
 * paid, its redeem lost or recorded) is the worker's and the ledger's whichever store made the code: killed there
 * for Shopify alone, on both backends, so that each kill point runs on each backend and on each store's code maker,
 * with a third fewer bridge starts (issue 67). `npm run soak` runs every point on every platform and backend
 * (KILL_SOAK=1).
 */
const KILL_SOAK = process.env.KILL_SOAK === '1';
const ON_LOWDB: Record<(typeof PLATFORMS)[number][0], readonly KillPoint[] | undefined> = {
  Shopify: undefined,
  BigCommerce: KILL_SOAK ? undefined : ['make-before', 'make-after', 'shown', 'sweeper'],
  WooCommerce: KILL_SOAK ? undefined : ['make-before', 'make-after', 'shown', 'sweeper'],
};

/** The kind of reward each platform's suite spends, per backend: every kind on each backend (reward-benefit.ts). */
const BENEFITS: Record<'lowdb' | 'postgres', Record<(typeof PLATFORMS)[number][0], RewardBenefit>> = {
  lowdb: {
    Shopify: { kind: 'amount_off', amount: '1.00' },
    BigCommerce: { kind: 'percent_off', percent: 10 },
    WooCommerce: { kind: 'free_shipping' },
  },
  postgres: {
    Shopify: { kind: 'percent_off', percent: 10 },
    BigCommerce: { kind: 'free_shipping' },
    WooCommerce: { kind: 'amount_off', amount: '1.00' },
  },
};

// BigCommerce's code in two calls: the kill between them on lowdb only (the repair that finds its promotion is the
// same on both backends, and the test's time is kept down).
for (const [platform, startStore] of PLATFORMS)
  killSuite(
    `${platform}: reward codes survive kills (lowdb)`,
    startStore,
    async () => ({ env: { DATA_DIR: tempDataDir() }, drop: async () => undefined }),
    1,
    {
      madeInParts: platform === 'BigCommerce',
      benefit: BENEFITS.lowdb[platform],
      ...(ON_LOWDB[platform] ? { only: ON_LOWDB[platform] } : {}),
    },
  );

/**
 * Two processes on one database: each kill point runs there for at least one platform, and all of them on lowdb
 * above. Shopify takes the order's way after its webhook (its code paid, its
 * redeem lost or recorded), whose repairs run in whichever process takes the order; BigCommerce and WooCommerce the
 * kills around a code's make, show and removal, whose repairs find and delete a promotion or coupon from either
 * process. The test's added time stays near a minute a platform (issue 67).
 */
const ON_TWO_PROCESSES: Record<(typeof PLATFORMS)[number][0], readonly KillPoint[]> = {
  Shopify: ['shown', 'paid', 'redeem-lost', 'recorded'],
  BigCommerce: ['make-before', 'make-after', 'shown', 'sweeper'],
  WooCommerce: ['make-before', 'make-after', 'shown', 'sweeper'],
};

// Two processes on one database: each shows what the other's redeems and sweeps did to the customer's balance.
describe.skipIf(!postgresAvailable())('PostgreSQL', () => {
  for (const [platform, startStore] of PLATFORMS) {
    let database: TestDatabase | undefined;
    killSuite(
      `${platform}: reward codes survive kills (two processes on one PostgreSQL)`,
      startStore,
      async () => {
        database = await freshDatabase();
        return { env: { DATABASE_URL: database.url, DATA_DIR: tempDataDir() }, drop: () => database!.drop() };
      },
      2,
      { benefit: BENEFITS.postgres[platform], ...(KILL_SOAK ? {} : { only: ON_TWO_PROCESSES[platform] }) },
    );
  }
});
