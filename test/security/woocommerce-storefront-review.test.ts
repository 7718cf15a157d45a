// An adversarial review of the WooCommerce storefront (issue 54, docs/wordpress-plugin.md §3): what a customer, a
// guest or another store can get from the bridge's /woocommerce/storefront routes over HTTP, beyond the e2e tests'
// happy paths. Identity tokens forged or confused (another store's key, a replaced key, a door or disconnect
// signature, odd JSON, times, sizes, a store named beside the token); acting for another customer or store (their
// codes, a code of store A named in store B's order); what a guest reads; the answers' CORS and cache headers; and
// that no answer carries the customer's e-mail or phone. Two stores, each with its own sandbox account, both plugins
// connected, both storefronts on with rewards; Ada earns 300 points at the first. The plugin played by hand.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CUSTOMER_WORDS } from '../../src/http/storefront-routes.ts';
import { HOLDER_KIND } from '../../src/core/storefront/reservations.ts';
import { eventually } from '../helpers/engine.ts';
import type { FakeWooCommerce } from '../helpers/fake-woocommerce.ts';
import { withCoupons } from '../helpers/fake-woocommerce-coupons.ts';
import { opensslAvailable } from '../helpers/https-front.ts';
import { wooOrderJson } from '../helpers/woocommerce.ts';
import {
  connectPlugin,
  DOOR_PURPOSE,
  identityToken,
  IDENTITY_PURPOSE,
  pluginSigned,
  signInByApproval,
  type PluginConnection,
} from '../helpers/woocommerce-plugin.ts';
import { startWooPageWorld, type WooPageWorld } from '../helpers/woocommerce-store-page.ts';

const DISCONNECT_PURPOSE = 'loyalty-bridge disconnect v1';
/** Her orders' billing phone (wooOrderJson's), in E.164 as the ledger keeps it. */
const ADA = { id: 42, email: 'ada@example.com', phone: '+33 6 12 34 56 78' };
const GRACE = { id: 43, email: 'grace@example.com' };
const STORE_PAGE = 'https://www.review-woo.example';
const REFUSED = { error: 'this request is not signed by the store' };

let world: WooPageWorld;
let woo: FakeWooCommerce;
let other: FakeWooCommerce;
const sessions = new Map<FakeWooCommerce, string>();
const brands = new Map<FakeWooCommerce, string>();
let connection: PluginConnection;
let otherConnection: PluginConnection;
let rewardId = '';
let otherRewardId = '';

const asPage = async (fake: FakeWooCommerce, method: string, path: string, body?: unknown) => {
  const answer = await world.asPage(sessions.get(fake)!, path, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: answer.status, body: (await answer.json()) as Record<string, any> };
};

interface Asked {
  token?: string;
  authorization?: string;
  query?: string;
  path?: string;
  method?: string;
  origin?: string | null;
}
/** What the widget on a store's page asks the bridge. */
const ask = async ({ token, authorization, query = '', path = '', method = 'GET', origin = STORE_PAGE }: Asked) => {
  const auth = authorization ?? (token === undefined ? undefined : `Bearer ${token}`);
  const answer = await fetch(`${world.bridge.http.localUrl}/woocommerce/storefront/points${path}${query}`, {
    method,
    headers: {
      accept: 'application/json',
      ...(origin === null ? {} : { origin }),
      ...(auth === undefined ? {} : { authorization: auth }),
    },
  });
  const text = await answer.text();
  return { status: answer.status, headers: answer.headers, text, body: JSON.parse(text || 'null') as any };
};
/**
 * A signed-in customer's whole answer, balance and codes: the storefront's share of the account's budget is counted
 * per second, and this file's many reads can fill a second (the answer then says "try again"): asked again until read.
 */
const read = async (token: () => string) => {
  let answer: Awaited<ReturnType<typeof ask>> | undefined;
  await eventually(async () => {
    answer = await ask({ token: token() });
    expect(answer.status).toBe(200);
    expect(answer.body.balance, answer.text).toBeDefined();
  }, 10_000);
  return answer!;
};
const sandboxOf = (fake: FakeWooCommerce) =>
  world.bridge.sandbox!.accounts.find((each) => each.credentials.brandId === brands.get(fake))!;
const reservations = async () =>
  (await world.bridge.engine.store.listRecords(HOLDER_KIND)).flatMap(({ value }) => value.reservations);

const nowS = () => Math.floor(Date.now() / 1000);
/** A token the store's key signs over exactly this JSON text (the plugin's PHP never writes such; a key holder could). */
const rawToken = (json: string, key: string, purpose = IDENTITY_PURPOSE) => {
  const payload = Buffer.from(json).toString('base64url');
  const sig = createHmac('sha256', Buffer.from(key, 'base64url')).update(`${purpose}.${payload}`).digest('base64url');
  return `${payload}.${sig}`;
};

async function expectRefused(asked: Asked, why: string) {
  const answer = await ask(asked);
  expect(answer.status, why).toBe(401);
  expect(answer.body, why).toEqual(REFUSED);
  expect(answer.headers.get('cache-control'), why).toBe('no-store');
}

describe.skipIf(!opensslAvailable)('the WooCommerce storefront under attack', () => {
  beforeAll(async () => {
    // The balance reads here are many and quick: the storefront may use the whole of the account's budget.
    world = await startWooPageWorld(2, [], { landing: 'store-page', env: { STOREFRONT_SHARE: '1' } });
    [woo, other] = world.stores as [FakeWooCommerce, FakeWooCommerce];
    for (const fake of [woo, other]) {
      withCoupons(fake);
      sessions.set(fake, await signInByApproval(world, fake));
      const made = await asPage(fake, 'POST', '/account', { sandbox: true });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      brands.set(fake, made.body.account.brandId as string);
    }
    connection = await connectPlugin(world, woo);
    otherConnection = await connectPlugin(world, other);
    for (const fake of [woo, other]) {
      expect((await asPage(fake, 'PUT', '/storefront', { on: true })).status).toBe(200);
      const saved = await asPage(fake, 'PUT', '/storefront/rewards', {
        rewards: [{ points: 200, amountOff: '5.00', minimumOrder: null, expiresInDays: 30, combines: false }],
      });
      expect(saved.status, JSON.stringify(saved.body)).toBe(200);
      if (fake === woo) rewardId = saved.body.rewards[0].id as string;
      else otherRewardId = saved.body.rewards[0].id as string;
    }
    // Ada's three completed orders at the first store: 300 approved points there.
    for (const id of [9101, 9102, 9103]) {
      woo.orders.set(id, JSON.parse(wooOrderJson({ id, status: 'completed', email: ADA.email })));
      expect(await woo.deliver('order.updated', id)).toEqual([200]);
    }
    await eventually(() => {
      const approved = sandboxOf(woo)
        .store.snapshot()
        .earnings.filter((each) => each.status === 'approved');
      expect(approved.reduce((sum, each) => sum + each.points, 0)).toBe(300);
    }, 20_000);
    await eventually(async () => {
      expect((await ask({ token: identityToken(connection, ADA) })).body.balance?.available).toBe(300);
    }, 20_000);
  }, 120_000);
  afterAll(async () => {
    await world?.stop();
  });

  it('refuses tokens under another store’s key, or naming a store beside them', async () => {
    await expectRefused({ token: identityToken({ ...connection, key: otherConnection.key }, ADA) }, 'B’s key, A’s id');
    await expectRefused({ token: identityToken({ ...otherConnection, store: woo.host }, ADA) }, 'B’s key and id, A');
    // Store B's own plugin, signing a payload that names B first and A last: JSON.parse keeps the last.
    const twice = JSON.stringify({ purpose: 'storefront-identity', store: other.host, keyId: otherConnection.keyId });
    const dup = `${twice.slice(0, -1)},"customerId":"42","email":"${ADA.email}","iat":${nowS()},"exp":${nowS() + 300},"store":"${woo.host}"}`;
    await expectRefused({ token: rawToken(dup, otherConnection.key) }, 'duplicate store keys');
    // A's good token with a store named too, A's or B's: one or the other, never both.
    const good = identityToken(connection, ADA);
    await expectRefused({ token: good, query: `?store=${other.host}` }, '?store=B');
    await expectRefused({ token: good, query: `?store=${woo.host}` }, '?store=A');
    // Without a key id, or another's.
    await expectRefused({ token: identityToken(connection, ADA, { keyId: undefined }) }, 'no keyId');
    await expectRefused({ token: identityToken(connection, ADA, { keyId: otherConnection.keyId }) }, 'B’s keyId');
    expect((await ask({ token: good })).status).toBe(200);
  }, 30_000);

  it('refuses a door’s or a disconnect’s signature as an identity, and an identity as a door', async () => {
    const door = { purpose: 'merchant-door', store: woo.host, keyId: connection.keyId, nonce: 'x'.repeat(43) };
    for (const [purpose, fields] of [
      [DOOR_PURPOSE, {}],
      [DISCONNECT_PURPOSE, {}],
      // The identity HMAC over what another purpose's payload says.
      [IDENTITY_PURPOSE, { purpose: 'merchant-door' }],
      [IDENTITY_PURPOSE, { purpose: 'disconnect' }],
      [IDENTITY_PURPOSE, { purpose: undefined }],
    ] as const) {
      await expectRefused({ token: identityToken(connection, ADA, fields, purpose) }, `${purpose} ${fields.purpose}`);
    }
    // A door's payload and signature, as its finish link carries them, sent as a token.
    const signed = pluginSigned(DOOR_PURPOSE, { ...door, user: 42, iat: nowS() }, connection.key);
    await expectRefused({ token: `${signed.payload}.${signed.sig}` }, 'door link as token');
    // Every customer holds an identity token: it opens no merchant's page, even in a browser with a live door.
    const started = await world.browse(`/woocommerce/plugin-door?store=${encodeURIComponent(woo.host)}`);
    expect(started.status).toBe(303);
    const cookie = (started.headers.get('set-cookie') ?? '').split(';')[0]!;
    const nonce = new URL(started.headers.get('location')!).searchParams.get('nonce')!;
    const [payload, sig] = identityToken(connection, ADA, { nonce, user: 42 }).split('.') as [string, string];
    const finish = await world.browse(`/woocommerce/plugin-door/finish?payload=${payload}&sig=${sig}`, cookie);
    expect(finish.status).toBe(401);
    expect(await finish.text()).not.toContain('loyalty-bridge-session');
  }, 30_000);

  it('refuses customer ids, times and sizes the plugin never signs, though signed with the store’s key', async () => {
    for (const customerId of [42, '042', ' 42', '42 ', '0', '-42', '4.2e1', '', null, ['42'], { id: '42' }])
      await expectRefused(
        { token: identityToken(connection, ADA, { customerId }) },
        `customerId ${JSON.stringify(customerId)}`,
      );
    const at = nowS();
    for (const times of [
      { iat: at + 60, exp: at + 360 },
      { iat: at, exp: at + 301 },
      { iat: at, exp: at },
      { iat: at - 400, exp: at - 100 },
      { iat: String(at), exp: at + 300 },
      { iat: at, exp: String(at + 300) },
      { iat: undefined, exp: at + 300 },
      { iat: at, exp: undefined },
      { iat: -1e308, exp: at + 1 },
    ])
      await expectRefused({ token: identityToken(connection, ADA, times) }, `times ${JSON.stringify(times)}`);
    // Well inside the allowed clock difference: taken (so the refusals above are about their times).
    expect((await ask({ token: identityToken(connection, ADA, { iat: at + 20, exp: at + 320 }) })).status).toBe(200);
    // Genuinely signed, but longer than any token the plugin makes: not read.
    await expectRefused({ token: identityToken(connection, ADA, { padding: 'x'.repeat(4000) }) }, 'oversized');
    // A header past what the server reads: refused before anything, never a failure of the bridge.
    const huge = await ask({ authorization: `Bearer ${'A'.repeat(20_000)}.${'B'.repeat(43)}` });
    expect(huge.status).toBeGreaterThanOrEqual(400);
    expect(huge.status).toBeLessThan(500);
    const token = identityToken(connection, ADA);
    const [payload, sig] = token.split('.') as [string, string];
    for (const authorization of [
      `bearer ${token}`,
      `Bearer  ${token}`,
      `Bearer ${token} ${token}`,
      `Bearer ${token}, Bearer ${token}`,
      `Basic ${token}`,
      token,
      `Bearer ${payload}.${sig}=`,
      `Bearer ${payload}=.${sig}`,
      `Bearer ${payload}.${Buffer.from(sig, 'base64url').toString('base64')}`,
      `Bearer ${payload}`,
      'Bearer ',
    ])
      await expectRefused({ authorization }, authorization.slice(0, 30));
  }, 30_000);

  it('forgets a replaced key’s tokens the moment the plugin connects again', async () => {
    const earlier = connection;
    const before = identityToken(earlier, ADA);
    connection = await connectPlugin(world, woo);
    await expectRefused({ token: before }, 'made before the reconnect');
    await expectRefused({ token: identityToken(earlier, ADA) }, 'made after, with the old key');
    await expectRefused({ token: identityToken({ ...earlier, keyId: connection.keyId }, ADA) }, 'old key, new id');
    expect((await ask({ token: identityToken(connection, ADA) })).status).toBe(200);
  }, 30_000);

  it('takes the e-mail in any case or spacing as one customer, whose holds count whichever spelling asks', async () => {
    const shouted = { ...ADA, email: `  ${ADA.email.toUpperCase()} ` };
    const first = await ask({
      token: identityToken(connection, shouted),
      path: '/redeem',
      query: `?reward=${rewardId}`,
      method: 'POST',
    });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ redeemed: true, available: 100 });
    // The same points, asked for again in the plain spelling, or by another id of the store with her e-mail.
    for (const who of [ADA, { ...ADA, id: 99 }]) {
      const again = await ask({
        token: identityToken(connection, who),
        path: '/redeem',
        query: `?reward=${rewardId}`,
        method: 'POST',
      });
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ redeemed: false, available: 100 });
    }
    const now = await read(() => identityToken(connection, ADA));
    expect(now.body.balance?.available, now.text).toBe(100);
    // A look-alike address (a Cyrillic "а") is someone else: none of her points.
    const alike = await read(() => identityToken(connection, { ...ADA, id: 77, email: 'ada@ex\u0430mple.com' }));
    expect(alike.body.balance.available).toBe(0);
  }, 60_000);

  it('shows a customer only their own codes, and spends nobody else’s points', async () => {
    const ada = await read(() => identityToken(connection, ADA));
    expect(ada.body.codes).toHaveLength(1);
    const code = ada.body.codes[0].code as string;
    // Another customer, and another store id bearing her e-mail: none of her codes.
    for (const who of [GRACE, { ...ADA, id: 99 }]) {
      const seen = await read(() => identityToken(connection, who));
      expect(seen.status).toBe(200);
      expect(seen.body.codes).toEqual([]);
      expect(seen.text).not.toContain(code);
    }
    // Grace names Ada in the query: the token alone says who asks.
    const grace = await ask({
      token: identityToken(connection, GRACE),
      path: '/redeem',
      query: `?reward=${rewardId}&customerId=42&email=${encodeURIComponent(ADA.email)}&store=${woo.host}`,
      method: 'POST',
    });
    expect(grace.status).toBe(401);
    const graceAlone = await ask({
      token: identityToken(connection, GRACE),
      path: '/redeem',
      query: `?reward=${rewardId}&customerId=42&email=${encodeURIComponent(ADA.email)}`,
      method: 'POST',
    });
    expect(graceAlone.status).toBe(409);
    expect(graceAlone.body).toMatchObject({ redeemed: false, available: 0 });
    // Ada at the first store asks for the other store's reward, or names a reward twice: nothing made.
    const before = (await reservations()).length;
    for (const query of [
      `?reward=${otherRewardId}`,
      `?reward=${rewardId}&reward=${rewardId}`,
      `?reward[]=${rewardId}`,
    ]) {
      const asked = await ask({ token: identityToken(connection, ADA), path: '/redeem', query, method: 'POST' });
      expect(asked.status, query).toBe(409);
      expect(asked.body, query).toMatchObject({ redeemed: false });
      expect(asked.body.code).toBeUndefined();
    }
    expect((await reservations()).length).toBe(before);
    // At the other store, Ada (its own customer 42, her e-mail) sees no code of the first store's.
    const elsewhere = await read(() => identityToken(otherConnection, ADA));
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.codes).toEqual([]);
    expect(elsewhere.text).not.toContain(code);
  }, 30_000);

  it('redeems nothing when another store’s order names a code made at the first', async () => {
    const [held] = (await reservations()).filter((each) => each.state === 'issued' && each.shop === woo.host);
    expect(held).toBeDefined();
    other.orders.set(
      9201,
      JSON.parse(
        wooOrderJson({
          id: 9201,
          status: 'processing',
          email: ADA.email,
          coupons: [{ code: held!.code.toLowerCase(), discount: '5.00' }],
        }),
      ),
    );
    expect(await other.deliver('order.updated', 9201)).toEqual([200]);
    await eventually(() => expect(sandboxOf(other).store.snapshot().earnings.length).toBeGreaterThan(0), 20_000);
    await world.bridge.engine.drain();
    expect(sandboxOf(woo).store.snapshot().redemptions).toEqual([]);
    expect(sandboxOf(other).store.snapshot().redemptions).toEqual([]);
    const after = (await reservations()).find((each) => each.id === held!.id);
    expect(after).toMatchObject({ state: 'issued' });
  }, 60_000);

  it('tells a guest only what the store’s pages tell anyone, and lets a guest do nothing', async () => {
    const guest = await ask({ query: `?store=${encodeURIComponent(woo.host)}` });
    expect(guest.status).toBe(200);
    expect(Object.keys(guest.body).sort()).toEqual(['customer', 'rewards', 'signIn', 'waysToEarn']);
    expect(guest.text).not.toContain(ADA.email);
    const before = (await reservations()).length;
    const redeem = await ask({
      query: `?store=${encodeURIComponent(woo.host)}&reward=${rewardId}`,
      path: '/redeem',
      method: 'POST',
    });
    expect(redeem.status).toBe(401);
    expect(redeem.body.code).toBeUndefined();
    expect((await reservations()).length).toBe(before);
    for (const query of [
      '',
      '?store=',
      `?store=${encodeURIComponent(` ${woo.host}`)}`,
      `?store=${encodeURIComponent(woo.host)}&store=${encodeURIComponent(woo.host)}`,
      `?store[]=${encodeURIComponent(woo.host)}`,
      '?store=unknown-store.example',
      `?store=${encodeURIComponent(`https://${woo.host}`)}`,
    ])
      await expectRefused({ query }, `guest ${query}`);
  }, 30_000);

  it('answers with no-store, to the page’s origin only, never with credentials', async () => {
    const ada = await read(() => identityToken(connection, ADA));
    expect(ada.status).toBe(200);
    expect(ada.headers.get('cache-control')).toBe('no-store');
    expect(ada.headers.get('vary')?.toLowerCase()).toContain('origin');
    expect(ada.headers.get('access-control-allow-origin')).toBe(STORE_PAGE);
    expect(ada.headers.get('access-control-allow-credentials')).toBeNull();
    // Nothing of who she is in her own answer either: the page never needs it.
    expect(ada.text).not.toContain(ADA.email);
    expect(ada.text).not.toContain('612345678');
    const guest = await ask({ query: `?store=${encodeURIComponent(woo.host)}` });
    expect(guest.headers.get('cache-control')).toBe('no-store');
    // A sandboxed frame or a file ("null"), or no origin: no CORS header, so no script reads it.
    for (const origin of ['null', null, 'file://', 'https://a.example/path'])
      expect(
        (await ask({ token: identityToken(connection, ADA), origin })).headers.get('access-control-allow-origin'),
      ).toBeNull();
    const preflight = (headers: string) =>
      fetch(`${world.bridge.http.localUrl}/woocommerce/storefront/points/redeem`, {
        method: 'OPTIONS',
        headers: {
          origin: STORE_PAGE,
          'access-control-request-method': 'POST',
          'access-control-request-headers': headers,
        },
      });
    const approved = await preflight('authorization');
    expect(approved.status).toBe(204);
    expect(approved.headers.get('access-control-allow-credentials')).toBeNull();
    expect(approved.headers.get('access-control-allow-headers')).toBe('authorization');
    for (const headers of ['cookie', 'authorization, x-wp-nonce', 'content-type'])
      expect((await preflight(headers)).status).toBe(403);
  }, 30_000);

  it('takes no typed billing phone as who a customer is', async () => {
    // A WordPress user with no e-mail (made by a phone sign-in plugin, or an import) whose billing phone, typed at
    // any checkout or in My Account › Addresses, is Ada's: her orders' phone must not open her points.
    for (const email of ['', 'not-an-address']) {
      const seen = await ask({ token: identityToken(connection, { id: 55, email, phone: ADA.phone }) });
      expect(seen.status).toBe(200);
      expect(seen.body).toMatchObject({ customer: 'signed-in', unavailable: CUSTOMER_WORDS.noContact });
      expect(seen.body.balance).toBeUndefined();
      expect(seen.body.history).toBeUndefined();
      const redeem = await ask({
        token: identityToken(connection, { id: 55, email, phone: ADA.phone }),
        path: '/redeem',
        query: `?reward=${rewardId}`,
        method: 'POST',
      });
      expect(redeem.body).toMatchObject({ unavailable: CUSTOMER_WORDS.noContact });
      expect(redeem.body.code).toBeUndefined();
    }
  }, 30_000);

  // WooCommerce never verifies a customer's account e-mail: registration signs the new customer in at once
  // (WC_Form_Handler::process_registration, wc_set_customer_auth_cookie), and My Account › Account details sets
  // user_email with no confirmation (WC_Form_Handler::save_account_details). Someone who registers with Ada's
  // address is signed by the plugin as that address, but not as proven (email-proof.php): they see and spend none of
  // her points, and are offered the link, which goes to her mailbox.
  it('takes no account e-mail its owner never proved as who a customer is', async () => {
    const mallory = { id: 77, email: ADA.email };
    const unproven = () => identityToken(connection, mallory, { emailProven: false });
    const seen = await ask({ token: unproven() });
    expect(seen.status).toBe(200);
    expect(seen.body).toMatchObject({
      customer: 'signed-in',
      unavailable: expect.stringContaining('Confirm your e-mail address'),
      proveContact: { action: 'Send me the link' },
    });
    expect(seen.body.balance).toBeUndefined();
    expect(seen.body.codes).toBeUndefined();
    expect(seen.body.history).toBeUndefined();
    const before = (await reservations()).length;
    const spent = await ask({ token: unproven(), path: '/redeem', query: `?reward=${rewardId}`, method: 'POST' });
    expect(spent.body.redeemed).not.toBe(true);
    expect((await reservations()).length).toBe(before);
  });
});
