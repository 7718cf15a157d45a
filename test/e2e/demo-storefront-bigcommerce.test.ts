// The BigCommerce demo store, as `npm start` starts it with nothing configured: its orders reach the bridge as
// BigCommerce sends them (a hook naming the order only, signed with the app's client secret), read by the module
// from the demo store's API; its store page loads the widget a BigCommerce store loads, whose current-customer
// token the bridge's origin signs for the page's signed-in customer alone (404 for a guest), checked by the bridge
// with the module's own check. Over HTTP: a guest sees the reward, the customer their balance, redeems it, pays with
// the code at the checkout (BigCommerce's signed store/order/created), the points leave once, and the merchant's
// Orders shows the order paid with the code. Once the demo stops, the page, the store's origin and its tokens are gone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CLIENT_ID, demoCurrentCustomerToken } from '../../adapters/bigcommerce/demo-storefront.ts';
import { bigCommerceWidgetScript } from '../../adapters/bigcommerce/storefront-widget.ts';
import type { RunningBridge } from '../../src/composition/main.ts';
import { orderKey } from '../../src/core/order-event.ts';
import { demoSignIn, startFirstRunBridge } from '../helpers/bridge.ts';
import { eventually } from '../helpers/engine.ts';
import { expectDemoRewardsOffered } from '../helpers/demo-rewards.ts';

const STORE = 'lbdemo01';

describe('the BigCommerce demo store', () => {
  let bridge: RunningBridge;
  let page = '';
  /** This run's sign-in cookie, as the page's sign-in sets it. */
  let SIGNED_IN = { cookie: '' };
  let points = '';
  let jwt = '';

  /** The current-customer token the store's origin answers for who the cookie says is signed in. */
  const currentJwt = (headers: Record<string, string>, clientId = DEMO_CLIENT_ID) =>
    fetch(`${bridge.http.localUrl}/customer/current.jwt?app_client_id=${clientId}`, { headers, redirect: 'manual' });
  const asked = async (token: string) =>
    (await (await fetch(points, { headers: { authorization: `Bearer ${token}` } })).json()) as Record<string, any>;

  beforeAll(async () => {
    bridge = await startFirstRunBridge();
    page = `${bridge.firstRun!.storefrontLink()!}bigcommerce/`;
    SIGNED_IN = await demoSignIn(page);
    points = `${bridge.http.localUrl}/bigcommerce/storefront/points`;
    await eventually(() => expect(bridge.demo?.played ?? 0).toBeGreaterThanOrEqual(bridge.demo!.handful), 60_000);
    await bridge.engine.drain();
  }, 90_000);
  afterAll(async () => {
    await bridge?.stop();
  });

  it('sends its orders as BigCommerce does, and the module reads each from the demo store’s API', async () => {
    const sent = bridge.demo!.sentTo('bigcommerce', STORE);
    expect(sent.length).toBeGreaterThanOrEqual(2);
    const [first] = sent[0]!.deliveries;
    expect(first!.headers['webhook-signature']).toMatch(/^v1,/);
    expect(JSON.parse(first!.body)).toMatchObject({
      scope: 'store/order/created',
      producer: `stores/${STORE}`,
      data: { type: 'order', id: sent[0]!.id },
    });
    // Nothing of the order is in the hook: its total and its customer came from GET v2/orders/<id>.
    expect(first!.body).not.toContain('hedy@example.com');
    const shipped = await bridge.engine.store.getOrder(
      orderKey({ platform: 'bigcommerce', shop: STORE, orderId: String(sent[0]!.id) }),
    );
    expect(shipped?.snapshot.total).toEqual({ amount: '75.0000', currency: 'USD' });
    expect(shipped?.facts).toEqual(expect.arrayContaining(['paid', 'fulfilled']));
    const refunded = await bridge.engine.store.getOrder(
      orderKey({ platform: 'bigcommerce', shop: STORE, orderId: String(sent[1]!.id) }),
    );
    expect(refunded?.facts).toContain('fullyRefunded');
    // The API answers the module's token alone.
    const api = `${bridge.http.localUrl}/demo/api/bigcommerce/stores/${STORE}/v2/orders/${sent[0]!.id}`;
    expect((await fetch(api)).status).toBe(401);
  });

  it('resyncs the demo store from its API: every order read again, none changed', async () => {
    const operator = (path: string, init: RequestInit = {}) =>
      fetch(`${bridge.http.localUrl}/admin/api${path}`, {
        ...init,
        headers: { authorization: `Bearer ${/#token=(.+)$/.exec(bridge.signInUrl ?? '')?.[1]}`, ...init.headers },
      });
    const started = await operator('/resync', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ platform: 'bigcommerce', since: new Date(Date.now() - 60 * 60_000).toISOString() }),
    });
    const { job } = (await started.json()) as { job: { id: string } };
    let done: { status: string; progress: Record<string, number> } | undefined;
    await eventually(async () => {
      done = ((await (await operator(`/resync/${job.id}`)).json()) as { job: NonNullable<typeof done> }).job;
      expect(done.status).toBe('done');
    });
    const sent = bridge.demo!.sentTo('bigcommerce', STORE).length;
    expect(done!.progress).toMatchObject({ fetched: sent, changed: 0, unchanged: sent, failed: 0 });
  });

  it('loads the widget a BigCommerce store loads, as Script Manager puts it on the page', async () => {
    const html = await (await fetch(page)).text();
    expect(html).toContain(
      `<script defer src="/demo/storefront/bigcommerce/assets/widget.js?store=${STORE}"></script>`,
    );
    const script = await fetch(`${page}assets/widget.js`);
    expect(await script.text()).toBe(bigCommerceWidgetScript({ clientId: DEMO_CLIENT_ID, bridgeUrl: '' }));
    // Its sign-in link, BigCommerce's /login.php, opens the page's sign-in.
    const signIn = await fetch(`${bridge.http.localUrl}/login.php`, { redirect: 'manual' });
    expect(signIn.headers.get('location')).toBe('/demo/storefront/bigcommerce/#account');
  });

  it('answers a guest as BigCommerce does (no token), and the bridge shows them the reward', async () => {
    expect((await currentJwt({})).status).toBe(404);
    const answer = await fetch(`${points}?store=${STORE}`);
    const body = (await answer.json()) as Record<string, any>;
    expect(body.balance ?? null).toBeNull();
    expectDemoRewardsOffered(body.rewards);
  });

  it('signs the signed-in customer’s token for the app alone, and the bridge reads their balance from it', async () => {
    // The page's sign-in reaches the store's origin path too.
    const signIn = await fetch(`${page}sign-in`, { method: 'POST', redirect: 'manual' });
    expect(signIn.headers.getSetCookie()).toContain(
      `${SIGNED_IN.cookie}; Path=/customer/current.jwt; HttpOnly; SameSite=Strict`,
    );
    // A cookie made up by anyone else signs no one in.
    expect((await currentJwt({ cookie: 'demo_customer=1' })).status).toBe(404);
    expect((await currentJwt(SIGNED_IN, 'another-app')).status).toBe(404);
    const answer = await currentJwt(SIGNED_IN);
    expect(answer.status).toBe(200);
    jwt = await answer.text();
    // Hedy's first order shipped: its 100 points are approved once the bridge called.
    await eventually(async () => expect((await asked(jwt)).balance).toMatchObject({ available: 100 }), 30_000);
    expect((await asked(jwt)).customer).toBe('signed-in');
  }, 40_000);

  it('refuses a token signed with another secret, or none', async () => {
    const forged = demoCurrentCustomerToken({
      storeHash: STORE,
      customerId: '21',
      email: 'hedy@example.com',
      secret: 'not this run’s',
    });
    expect((await fetch(points, { headers: { authorization: `Bearer ${forged}` } })).status).toBe(401);
    expect((await fetch(points)).status).toBe(401);
  });

  it('redeems the reward, pays with its code once, and the points leave once; Orders shows the order', async () => {
    const redeemed = (await (
      await fetch(`${points}/redeem?reward=demo-reward`, {
        method: 'POST',
        headers: { authorization: `Bearer ${jwt}` },
      })
    ).json()) as { code: string };
    expect(redeemed.code).toMatch(/^LB-[A-Z2-9]{16}$/);
    const pay = (code: string) =>
      fetch(`${page}checkout`, {
        method: 'POST',
        headers: { ...SIGNED_IN, 'content-type': 'application/x-www-form-urlencoded', origin: new URL(page).origin },
        body: new URLSearchParams({ code }),
        redirect: 'manual',
      });
    const paid = await pay(redeemed.code);
    expect(paid.status).toBe(303);
    expect((await pay(redeemed.code)).status).toBe(400);
    const order = bridge.demo!.sentTo('bigcommerce', STORE).find((each) => each.order.code)!;
    expect(JSON.parse(order.deliveries[0]!.body)).toMatchObject({ scope: 'store/order/created' });
    // The redeem reaches the service once the order is in: the reward's points, once, and the code gone from the panel.
    await eventually(() => {
      const redemptions = bridge.sandbox!.accounts.flatMap((account) => account.store.snapshot().redemptions);
      expect(redemptions.filter((each) => each.points === 100)).toHaveLength(1);
    }, 30_000);
    await bridge.engine.drain();
    const after = await asked(jwt);
    expect(after.balance).toMatchObject({ available: 0 });
    expect(JSON.stringify(after)).not.toContain(redeemed.code);
    // The merchant's Orders, from the demo shop's own link: the order, paid with the code.
    const opened = await fetch(bridge.firstRun!.pageLink('bigcommerce')!);
    const session = /<meta name="loyalty-bridge-session" content="([^"]+)">/.exec(await opened.text())?.[1];
    const api = (path: string) =>
      fetch(`${bridge.http.localUrl}/admin/api/${path}`, { headers: { authorization: `Bearer ${session}` } });
    await eventually(async () => {
      const { orders } = (await (await api('orders?limit=100')).json()) as { orders: Array<Record<string, any>> };
      const row = orders.find((each) => each.orderId === String(order.id))!;
      // As BigCommerce names it: by its id, its amounts to four places (a coupon's discount a number).
      expect(row).toMatchObject({ orderName: `#${order.id}`, total: { amount: '35.0000', currency: 'USD' } });
      expect(row.points).toMatchObject({ redeemed: 100 });
      const detail = (await (await api(`orders/${encodeURIComponent(row.key)}`)).json()) as Record<string, any>;
      expect(detail.discountCodes ?? detail.order?.discountCodes).toEqual([{ code: redeemed.code, amount: '5' }]);
    }, 30_000);
  }, 60_000);

  it('is gone once the demo stops: the page, the store’s origin, its tokens', async () => {
    bridge.firstRun!.stop();
    expect((await fetch(page)).status).toBe(410);
    expect((await currentJwt(SIGNED_IN)).status).toBe(404);
    expect((await fetch(points, { headers: { authorization: `Bearer ${jwt}` } })).status).toBe(401);
  });
});
