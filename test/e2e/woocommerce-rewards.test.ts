// A WooCommerce customer spends their points, end to end: the whole bridge in process behind an https front, the
// store connected through WooCommerce's app authentication (a Read/Write key), the WordPress plugin connected with a
// code from the merchant's page, and the fake WooCommerce's coupons and checkout (test/helpers/fake-woocommerce-
// coupons.ts, from WooCommerce's docs and source). Ada earns 300 points, redeems a reward with the token the plugin
// signs for her, gets a coupon that works once, and pays with it: the order arrives twice and her points leave the
// service once. The merchant's rewards are of each kind: free shipping is refused on save, with the fix, while no
// shipping zone of the store offers Free shipping for a coupon, and saved once one does; 10% off and free shipping
// then take off what they say, and each code's points leave once. Her export lists the
// reservation; her erasure removes a live coupon from the store and releases what it held; the plugin's Disconnect
// closes the storefront and removes her open coupon, keeping the one she paid with for its order; the store's
// erasure takes the plugin's key with it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BENEFIT_KINDS } from '../../src/core/reward-benefit.ts';
import { WOO_FREE_SHIPPING_NOTE } from '../../adapters/woocommerce/coupon-codes.ts';
import { FREE_SHIPPING_UNSET } from '../../adapters/woocommerce/shipping-zones.ts';
import { HOLDER_KIND } from '../../src/core/storefront/reservations.ts';
import { eventually } from '../helpers/engine.ts';
import type { FakeWooCommerce } from '../helpers/fake-woocommerce.ts';
import {
  madeCoupon,
  placeOrder,
  setFreeShipping,
  useCoupon,
  withCoupons,
} from '../helpers/fake-woocommerce-coupons.ts';
import { opensslAvailable } from '../helpers/https-front.ts';
import { wooOrderJson } from '../helpers/woocommerce.ts';
import {
  connectPlugin,
  disconnectPlugin,
  identityToken,
  signInByApproval,
  type PluginConnection,
} from '../helpers/woocommerce-plugin.ts';
import { ADMIN_TOKEN, startWooPageWorld, type WooPageWorld } from '../helpers/woocommerce-store-page.ts';
import { raw } from '../helpers/raw-records.ts';

const ADA = { id: 42, email: 'ada@example.com' };
/** Another customer, for the kinds: her presses spend her own few balance reads a minute, not Ada's. */
const GRACE = { id: 43, email: 'grace@example.com' };
const STORE_PAGE = 'https://www.rewards-woo.example';

let world: WooPageWorld;
let woo: FakeWooCommerce;
let session: string;
let connection: PluginConnection;
let brandId = '';

const asPage = async (method: string, path: string, body?: unknown) => {
  const answer = await world.asPage(session, path, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: answer.status, body: (await answer.json()) as Record<string, any> };
};
/** What the widget asks, from the store's page, with the token the plugin signed for her. */
const asCustomer = async (who: typeof ADA, path = '', method = 'GET') => {
  const answer = await fetch(`${world.bridge.http.localUrl}/woocommerce/storefront/points${path}`, {
    method,
    headers: { origin: STORE_PAGE, authorization: `Bearer ${identityToken(connection, who)}` },
  });
  return { status: answer.status, body: (await answer.json()) as Record<string, any> };
};
const asAda = (path = '', method = 'GET') => asCustomer(ADA, path, method);
const asGrace = (path = '', method = 'GET') => asCustomer(GRACE, path, method);
const operator = (method: string, path: string, body: unknown) =>
  fetch(`${world.bridge.http.localUrl}/admin/api${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const sandboxAccount = () => world.bridge.sandbox!.accounts.find((each) => each.credentials.brandId === brandId)!;
const deliver = async (
  id: number,
  status: string,
  coupons?: Array<{ code: string; discount: string }>,
  email = ADA.email,
) => {
  woo.orders.set(
    id,
    JSON.parse(wooOrderJson({ id, status, email, ...(coupons ? { coupons } : {}) })) as Record<string, unknown>,
  );
  expect(await woo.deliver('order.updated', id)).toEqual([200]);
};
const reservations = async () =>
  (await world.bridge.engine.store.listRecords(HOLDER_KIND)).flatMap(({ value }) => value.reservations);

describe.skipIf(!opensslAvailable)('a WooCommerce customer spends their points through the plugin', () => {
  beforeAll(async () => {
    world = await startWooPageWorld(1, [], { landing: 'store-page' });
    [woo] = world.stores as [FakeWooCommerce];
    withCoupons(woo);
    session = await signInByApproval(world, woo);
    const made = await asPage('POST', '/account', { sandbox: true });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    brandId = made.body.account.brandId as string;
    connection = await connectPlugin(world, woo);
    expect((await asPage('PUT', '/storefront', { on: true })).status).toBe(200);
    // Three completed orders: 300 approved points (the sandbox's activity 1 gives 100).
    for (const id of [8101, 8102, 8103]) await deliver(id, 'completed');
    await eventually(() => {
      const approved = sandboxAccount()
        .store.snapshot()
        .earnings.filter((each) => each.status === 'approved');
      expect(approved.reduce((sum, each) => sum + each.points, 0)).toBe(300);
    }, 20_000);
  }, 90_000);
  afterAll(async () => {
    await world?.stop();
  });

  let rewards: Array<Record<string, any>> = [];
  it('refuses a free-shipping reward, with the fix, while no shipping zone takes its code, and saves it once one does', async () => {
    const asked = {
      rewards: [
        { points: 200, amountOff: '5.00', minimumOrder: null, expiresInDays: 30, combines: true },
        { points: 50, amountOff: '1.00', minimumOrder: null, expiresInDays: 7, combines: false },
        {
          points: 50,
          benefit: { kind: 'percent_off', percent: 10 },
          minimumOrder: null,
          expiresInDays: 7,
          combines: false,
        },
        { points: 50, benefit: { kind: 'free_shipping' }, minimumOrder: null, expiresInDays: 7, combines: false },
      ],
    };
    // A new store has no Free shipping: WooCommerce would take the code, and her points, and charge the shipping.
    const refused = await asPage('PUT', '/storefront/rewards', asked);
    expect(refused).toEqual({ status: 400, body: { errors: [`rewards.3.benefit: ${FREE_SHIPPING_UNSET}`] } });
    expect((await asPage('GET', '/storefront/rewards')).body.rewards).toEqual([]);
    // The merchant does as it says: the zone offers Free shipping to a valid free shipping coupon.
    setFreeShipping(woo, { requires: 'coupon', minAmount: '0.00' });
    const saved = await asPage('PUT', '/storefront/rewards', asked);
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    rewards = saved.body.rewards as Array<Record<string, any>>;
    expect(rewards.map((each) => each.benefit.kind)).toEqual([
      'amount_off',
      'amount_off',
      'percent_off',
      'free_shipping',
    ]);
  }, 30_000);

  it('redeems a reward into a coupon that works once, and her points leave the service once', async () => {
    const answer = await asAda(`/redeem?reward=${rewards[0]!.id}`, 'POST');
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toMatchObject({ redeemed: true, amountOff: '5.00', available: 100 });
    const code = answer.body.code as string;
    // WooCommerce keeps it in lower case; for her e-mail, used once, alone in its order even where the reward
    // "combines" (two of the bridge's codes in one order would be redeemed as one).
    const { coupon } = madeCoupon(woo, code)!;
    expect(coupon).toMatchObject({
      discount_type: 'fixed_cart',
      amount: '5.00',
      usage_limit: 1,
      usage_limit_per_user: 1,
      individual_use: true,
      email_restrictions: [ADA.email],
    });
    // Another billing e-mail is refused at checkout; hers goes through once.
    expect(useCoupon(woo, code, { billingEmail: 'someone@example.com' })).toBe(false);
    expect(useCoupon(woo, code, { billingEmail: ADA.email })).toBe(true);
    expect(useCoupon(woo, code, { billingEmail: ADA.email })).toBe(false);
    await deliver(8200, 'processing', [{ code: code.toLowerCase(), discount: '5.00' }]);
    await deliver(8200, 'processing', [{ code: code.toLowerCase(), discount: '5.00' }]);
    const redeemed = () => sandboxAccount().store.snapshot().redemptions;
    await eventually(() => expect(redeemed()).toHaveLength(1), 20_000);
    await world.bridge.engine.drain();
    expect(redeemed()).toEqual([expect.objectContaining({ points: 200, email: ADA.email })]);
    await eventually(async () => expect((await asAda()).body.balance?.available).toBe(100), 20_000);
  }, 60_000);

  it('redeems 10% off and free shipping into coupons that take off what they say, each code’s points leaving once', async () => {
    // WooCommerce makes every kind: the merchant's Rewards refuses none (free shipping comes with a note).
    expect((await asPage('GET', '/storefront/rewards')).body.kinds).toEqual(
      BENEFIT_KINDS.map((kind) => ({
        kind,
        notMade: null,
        setUpFirst: kind === 'free_shipping' ? WOO_FREE_SHIPPING_NOTE : null,
      })),
    );
    await deliver(8104, 'completed', undefined, GRACE.email);
    await eventually(async () => expect((await asGrace()).body.balance?.available).toBe(100), 20_000);
    const kinds = [
      { reward: rewards[2]!, order: 8210, coupon: { discount_type: 'percent', amount: '10', free_shipping: false } },
      { reward: rewards[3]!, order: 8220, coupon: { discount_type: 'fixed_cart', amount: '0', free_shipping: true } },
    ];
    // Pressed at once, as a customer may: the two share one read of her balance (she has a few a minute).
    const answers = await Promise.all(kinds.map(({ reward }) => asGrace(`/redeem?reward=${reward.id}`, 'POST')));
    const taken: Array<Record<string, string>> = [];
    for (const [i, { reward, order, coupon }] of kinds.entries()) {
      expect(answers[i]!.body).toMatchObject({ redeemed: true, benefit: reward.benefit });
      const code = answers[i]!.body.code as string;
      expect(madeCoupon(woo, code)!.coupon).toMatchObject({
        ...coupon,
        usage_limit: 1,
        email_restrictions: [GRACE.email],
      });
      // A cart of 64.00 shipped for 4.90; the coupon goes through once.
      const placed = placeOrder(woo, code, { billingEmail: GRACE.email, subtotal: '64.00', shipping: '4.90' });
      if ('refused' in placed) throw new Error(`refused at checkout: ${placed.refused}`);
      taken.push({ discount: placed.discount, shippingOff: placed.shippingOff });
      expect(useCoupon(woo, code, { billingEmail: GRACE.email })).toBe(false);
      const before = sandboxAccount().store.snapshot().redemptions.length;
      await deliver(order, 'processing', [{ code: placed.code, discount: placed.discount }], GRACE.email);
      await deliver(order, 'processing', [{ code: placed.code, discount: placed.discount }], GRACE.email);
      await eventually(() => expect(sandboxAccount().store.snapshot().redemptions).toHaveLength(before + 1), 20_000);
      await world.bridge.engine.drain();
      expect(sandboxAccount().store.snapshot().redemptions.slice(before)).toEqual([
        expect.objectContaining({ points: 50, email: GRACE.email }),
      ]);
    }
    // 10% of the items; then the shipping, all of it.
    expect(taken).toEqual([
      { discount: '6.40', shippingOff: '0.00' },
      { discount: '0.00', shippingOff: '4.90' },
    ]);
    // Read from the service, once a redeem just made no longer counts as held too (REDEEM_SKEW_MS).
    await eventually(
      async () => expect((await asGrace()).body.balance).toMatchObject({ available: 0, stale: false }),
      20_000,
    );
  }, 60_000);

  it('exports her reservation, and her erasure removes a live coupon and releases what it held', async () => {
    const held = await asAda(`/redeem?reward=${rewards[1]!.id}`, 'POST');
    expect(held.body).toMatchObject({ redeemed: true, available: 50 });
    const code = held.body.code as string;
    expect(madeCoupon(woo, code)?.deleted).toBe(false);
    const exported = await fetch(
      `${world.bridge.http.localUrl}/admin/api/customers/export?email=${encodeURIComponent(ADA.email)}`,
      { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } },
    );
    expect(exported.status).toBe(200);
    expect(JSON.stringify(await exported.json())).toContain(code);
    const erased = await operator('POST', '/customers/erase', { email: ADA.email });
    expect(erased.status).toBe(200);
    // The coupon is gone from the store: nobody pays with it later.
    expect(madeCoupon(woo, code)?.deleted).toBe(true);
    expect((await reservations()).some((each) => each.code === code && each.state === 'issued')).toBe(false);
  }, 30_000);

  it('the plugin’s Disconnect closes the storefront: an open coupon leaves the store, one used at checkout stays held', async () => {
    const open = await asAda(`/redeem?reward=${rewards[1]!.id}`, 'POST');
    const used = await asAda(`/redeem?reward=${rewards[1]!.id}`, 'POST');
    expect([open.status, used.status]).toEqual([200, 200]);
    const [openCode, usedCode] = [open.body.code as string, used.body.code as string];
    // Used at checkout, its order not yet delivered (WooCommerce counts the use when the order is placed).
    expect(useCoupon(woo, usedCode, { billingEmail: ADA.email })).toBe(true);
    expect((await disconnectPlugin(world, connection)).status).toBe(200);
    expect((await asPage('GET', '/storefront')).body).toMatchObject({ on: false });
    await eventually(() => expect(madeCoupon(woo, openCode)?.deleted).toBe(true), 20_000);
    const stateOf = async (code: string) => (await reservations()).find((each) => each.code === code)?.state;
    await eventually(async () => expect(await stateOf(openCode)).toBe('released'), 20_000);
    // The one she already paid with stays, and its order, when it comes, spends its points once.
    expect(madeCoupon(woo, usedCode)?.deleted).toBe(false);
    expect(await stateOf(usedCode)).toBe('issued');
    const before = sandboxAccount().store.snapshot().redemptions.length;
    await deliver(8300, 'processing', [{ code: usedCode.toLowerCase(), discount: '1.00' }]);
    await eventually(() => expect(sandboxAccount().store.snapshot().redemptions).toHaveLength(before + 1), 20_000);
    // Marked once the worker has the service's answer, just after the service recorded the redeem.
    await eventually(async () => expect(await stateOf(usedCode)).toBe('redeemed'), 20_000);
    // Connected again, the storefront waits for its merchant to turn it on.
    connection = await connectPlugin(world, woo);
    expect((await asAda()).status).not.toBe(200);
    expect((await asPage('PUT', '/storefront', { on: true })).status).toBe(200);
    expect((await asAda()).status).toBe(200);
  }, 60_000);

  it('the store’s erasure takes the plugin’s key: what it signed opens nothing', async () => {
    const erased = await operator('POST', '/shops/erase', { platform: 'woocommerce', shop: woo.host, confirm: true });
    expect(erased.status).toBe(200);
    expect(await world.bridge.engine.store.getRecord(raw('woo-plugin-key'), `woocommerce:${woo.host}`)).toBeUndefined();
    expect((await asAda()).status).toBe(401);
  }, 30_000);
});
