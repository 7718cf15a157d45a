// An adversarial review of three WooCommerce changes (issue 54, docs/wordpress-plugin.md §2, §3, §5), against the
// running bridge with two fake stores, their plugins played by hand:
// - the e-mail proof's bridge side: only `"emailProven": true` makes the token's address who the customer is; an
//   unproven customer's answer tells nothing of the address's points (the same for a member's address as for
//   nobody's), carries no e-mail, and redeems nothing; a customer who proved once and then changed their address
//   sees nothing of the new one's;
// - the merchant door: a finish that the store's key did not sign writes nothing in the ledger;
// - the plugin's disconnect: store A's closes A's storefront and sweeps A's open coupons only, B's stay; replayed
//   after A reconnects (and its merchant turned the storefront on again) it turns nothing off.
// The PHP side of the proof is tried in wordpress/tests/EmailProofAbuseTest.php.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOLDER_KIND } from '../../src/core/storefront/reservations.ts';
import { eventually } from '../helpers/engine.ts';
import type { FakeWooCommerce } from '../helpers/fake-woocommerce.ts';
import { couponsOf, madeCoupon, withCoupons } from '../helpers/fake-woocommerce-coupons.ts';
import { opensslAvailable } from '../helpers/https-front.ts';
import { wooOrderJson } from '../helpers/woocommerce.ts';
import {
  connectPlugin,
  disconnectPlugin,
  DOOR_PURPOSE,
  identityToken,
  IDENTITY_PURPOSE,
  pluginSigned,
  signInByApproval,
  type PluginConnection,
} from '../helpers/woocommerce-plugin.ts';
import { sessionIn, startWooPageWorld, type WooPageWorld } from '../helpers/woocommerce-store-page.ts';
import { raw } from '../helpers/raw-records.ts';

const ADA = { id: 42, email: 'ada@example.com' };
const STORE_PAGE = 'https://www.proof-review.example';

let world: WooPageWorld;
let woo: FakeWooCommerce;
let other: FakeWooCommerce;
const sessions = new Map<FakeWooCommerce, string>();
const connections = new Map<FakeWooCommerce, PluginConnection>();
const rewards = new Map<FakeWooCommerce, string>();

const asPage = async (fake: FakeWooCommerce, method: string, path: string, body?: unknown) => {
  const answer = await world.asPage(sessions.get(fake)!, path, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: answer.status, body: (await answer.json()) as Record<string, any> };
};

/** What the widget on a store's page asks the bridge: a customer's token, or a guest's `?store=`. */
const ask = async ({
  token,
  query = '',
  redeem,
}: {
  token?: string;
  query?: string;
  redeem?: string;
}): Promise<{ status: number; text: string; body: any }> => {
  const path = redeem === undefined ? '' : `/redeem?reward=${redeem}`;
  const answer = await fetch(`${world.bridge.http.localUrl}/woocommerce/storefront/points${path}${query}`, {
    method: redeem === undefined ? 'GET' : 'POST',
    headers: {
      accept: 'application/json',
      origin: STORE_PAGE,
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
  });
  const text = await answer.text();
  return { status: answer.status, text, body: JSON.parse(text || 'null') };
};
const tokenAt = (fake: FakeWooCommerce, who: { id: number; email: string }, fields: Record<string, unknown> = {}) =>
  identityToken(connections.get(fake)!, who, fields);
/** A signed-in customer's answer with its balance (the storefront's share of the budget may say "again" first). */
const read = async (token: () => string) => {
  let answer: Awaited<ReturnType<typeof ask>> | undefined;
  await eventually(async () => {
    answer = await ask({ token: token() });
    expect(answer.status).toBe(200);
    expect(answer.body.balance, answer.text).toBeDefined();
  }, 10_000);
  return answer!;
};
const reservations = async () =>
  (await world.bridge.engine.store.listRecords(HOLDER_KIND)).flatMap(({ value }) => value.reservations);
const guestSees = async (fake: FakeWooCommerce) => (await ask({ query: `?store=${fake.host}` })).status;

describe.skipIf(!opensslAvailable)('the e-mail proof, the door and the disconnect under attack', () => {
  beforeAll(async () => {
    world = await startWooPageWorld(2, [], { landing: 'store-page', env: { STOREFRONT_SHARE: '1' } });
    [woo, other] = world.stores as [FakeWooCommerce, FakeWooCommerce];
    const brands = new Map<FakeWooCommerce, string>();
    for (const fake of [woo, other]) {
      withCoupons(fake);
      sessions.set(fake, await signInByApproval(world, fake));
      const made = await asPage(fake, 'POST', '/account', { sandbox: true });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      brands.set(fake, made.body.account.brandId as string);
      connections.set(fake, await connectPlugin(world, fake));
      expect((await asPage(fake, 'PUT', '/storefront', { on: true })).status).toBe(200);
      const saved = await asPage(fake, 'PUT', '/storefront/rewards', {
        rewards: [{ points: 200, amountOff: '5.00', minimumOrder: null, expiresInDays: 30, combines: false }],
      });
      expect(saved.status, JSON.stringify(saved.body)).toBe(200);
      rewards.set(fake, saved.body.rewards[0].id as string);
      // Ada's three completed orders at each store: 300 approved points at each.
      for (const id of [9101, 9102, 9103]) {
        fake.orders.set(id, JSON.parse(wooOrderJson({ id, status: 'completed', email: ADA.email })));
        expect(await fake.deliver('order.updated', id)).toEqual([200]);
      }
    }
    for (const fake of [woo, other]) {
      const sandbox = world.bridge.sandbox!.accounts.find((each) => each.credentials.brandId === brands.get(fake))!;
      await eventually(() => {
        const approved = sandbox.store.snapshot().earnings.filter((each) => each.status === 'approved');
        expect(approved.reduce((sum, each) => sum + each.points, 0)).toBe(300);
      }, 20_000);
      await eventually(async () => {
        expect((await ask({ token: tokenAt(fake, ADA) })).body.balance?.available).toBe(300);
      }, 20_000);
    }
  }, 120_000);
  afterAll(async () => {
    await world?.stop();
  });

  it('tells an unproven customer nothing of whether their address has points, nor the address', async () => {
    // Mallory registered with Ada's address (she has 300 points); Nobody with an address the service never saw.
    const asMallory = await ask({ token: tokenAt(woo, { id: 77, email: ADA.email }, { emailProven: false }) });
    const asNobody = await ask({
      token: tokenAt(woo, { id: 78, email: 'nobody@example.com' }, { emailProven: false }),
    });
    expect(asMallory.status).toBe(200);
    expect(asMallory.body).toEqual(asNobody.body);
    expect(asMallory.body).toMatchObject({ customer: 'signed-in', proveContact: { action: 'Send me the link' } });
    for (const kept of ['balance', 'history', 'codes', 'email', 'retryAfterSeconds'])
      expect(asMallory.body[kept], kept).toBeUndefined();
    expect(asMallory.text).not.toContain('ada@');
    expect(asMallory.text.toLowerCase()).not.toContain('example.com');
  });

  it('takes only the JSON true as proven, whatever else a key holder signs', async () => {
    for (const emailProven of ['true', 1, 'yes', null, [true], { proven: true }, undefined]) {
      const seen = await ask({ token: tokenAt(woo, ADA, { emailProven }) });
      expect(seen.status, JSON.stringify(emailProven)).toBe(200);
      expect(seen.body.balance, JSON.stringify(emailProven)).toBeUndefined();
      expect(seen.body.proveContact, JSON.stringify(emailProven)).toBeDefined();
    }
  });

  it('redeems nothing for an unproven customer: no hold, no coupon, no code', async () => {
    const coupons = couponsOf(woo).length;
    const held = (await reservations()).length;
    for (const who of [{ id: 77, email: ADA.email }, ADA]) {
      const spent = await ask({
        token: tokenAt(woo, who, { emailProven: false }),
        redeem: rewards.get(woo)!,
      });
      // Refused as every other refusal is: 409, redeemed false, and words saying what to do.
      expect(spent.status).toBe(409);
      expect(spent.body).toMatchObject({ redeemed: false, error: expect.stringMatching(/^Confirm your e-mail/) });
      expect(spent.body.code).toBeUndefined();
    }
    expect((await reservations()).length).toBe(held);
    expect(couponsOf(woo).length).toBe(coupons);
    expect((await read(() => tokenAt(woo, ADA))).body.balance.available).toBe(300);
  });

  it('shows a customer who proved once nothing once their account holds an address they did not prove', async () => {
    const before = await read(() => tokenAt(woo, ADA));
    expect(before.body.balance.available).toBe(300);
    // The same WordPress user, her address changed in My Account to another's: unproven, and nothing of either.
    const changed = await ask({
      token: tokenAt(woo, { id: ADA.id, email: 'grace@example.com' }, { emailProven: false }),
    });
    expect(changed.body.balance).toBeUndefined();
    expect(changed.body.proveContact).toBeDefined();
    // Ada's own address, back but unproven in the token: nothing kept by customer id stands in for the proof.
    const back = await ask({ token: tokenAt(woo, ADA, { emailProven: false }) });
    expect(back.body.balance).toBeUndefined();
  });

  it('writes no door record for a finish the store’s key did not sign', async () => {
    const doorRecords = async () => (await world.bridge.engine.store.listRecords(raw('woo-plugin-door'))).length;
    const started = await world.browse(`/woocommerce/plugin-door?store=${encodeURIComponent(woo.host)}`);
    expect(started.status).toBe(303);
    const cookie = (started.headers.get('set-cookie') ?? '').split(';')[0]!;
    const nonce = new URL(started.headers.get('location')!).searchParams.get('nonce')!;
    const mine = connections.get(woo)!;
    const theirs = connections.get(other)!;
    const fields = (more: Record<string, unknown> = {}) => ({
      purpose: 'merchant-door',
      store: mine.store,
      keyId: mine.keyId,
      nonce,
      user: 1,
      iat: Math.floor(Date.now() / 1000),
      ...more,
    });
    const link = ({ payload, sig }: { payload: string; sig: string }) =>
      `/woocommerce/plugin-door/finish?payload=${payload}&sig=${sig}`;
    const before = await doorRecords();
    const forged = [
      link({ ...pluginSigned(DOOR_PURPOSE, fields(), mine.key), sig: 'A'.repeat(43) }),
      link(pluginSigned(DOOR_PURPOSE, fields(), theirs.key)),
      link(pluginSigned(DOOR_PURPOSE, fields({ keyId: theirs.keyId }), theirs.key)),
      link(pluginSigned(IDENTITY_PURPOSE, fields(), mine.key)),
      link(pluginSigned(DOOR_PURPOSE, fields({ store: 'unknown.example' }), mine.key)),
      '/woocommerce/plugin-door/finish?payload=e30&sig=',
      '/woocommerce/plugin-door/finish',
    ];
    for (const path of forged)
      for (const withCookie of [cookie, undefined]) {
        const answer = await world.browse(path, withCookie);
        expect(answer.status, path).toBe(401);
        expect(await sessionIn(answer)).toBeUndefined();
      }
    expect(await doorRecords()).toBe(before);
    // None of them spent the merchant's door: the plugin's own signature opens it.
    expect((await world.browse(link(pluginSigned(DOOR_PURPOSE, fields(), mine.key)), cookie)).status).toBe(200);
    expect(await doorRecords()).toBe(before + 1);
  }, 30_000);

  // A signed finish whose nonce is not of the browser's door burns it, writing a record. The store's own key signs
  // any nonce, so one connected store (its merchant, or a copy of its key) could write a record per finish: at most
  // 50 of a store's are kept at once.
  it('keeps a bounded number of burnt nonces for a store whose key signs finishes by the thousand', async () => {
    const doorRecords = async () => (await world.bridge.engine.store.listRecords(raw('woo-plugin-door'))).length;
    const mine = connections.get(other)!;
    const before = await doorRecords();
    for (let i = 0; i < 300; i += 1) {
      const { payload, sig } = pluginSigned(
        DOOR_PURPOSE,
        {
          purpose: 'merchant-door',
          store: mine.store,
          keyId: mine.keyId,
          nonce: `flood-${i}`,
          user: 1,
          iat: Math.floor(Date.now() / 1000),
        },
        mine.key,
      );
      expect((await world.browse(`/woocommerce/plugin-door/finish?payload=${payload}&sig=${sig}`)).status).toBe(401);
    }
    expect(await doorRecords()).toBeLessThan(before + 100);
  }, 60_000);

  it('closes only the disconnected store, and a disconnect replayed after it reconnects turns nothing off', async () => {
    const codes = new Map<FakeWooCommerce, string>();
    for (const fake of [woo, other]) {
      const made = await ask({ token: tokenAt(fake, ADA), redeem: rewards.get(fake)! });
      expect(made.status, made.text).toBe(200);
      codes.set(fake, made.body.code as string);
      expect(madeCoupon(fake, made.body.code as string)?.deleted).toBe(false);
    }
    const earlier = connections.get(woo)!;
    const signedAt = Date.now() / 1000;
    expect((await disconnectPlugin(world, earlier, signedAt)).status).toBe(200);
    // A's storefront is off and its open coupon goes; B's storefront, code and coupon are as they were.
    expect(await guestSees(woo)).toBe(401);
    expect((await asPage(woo, 'GET', '/storefront')).body).toMatchObject({ on: false });
    await eventually(() => expect(madeCoupon(woo, codes.get(woo)!)?.deleted).toBe(true), 15_000);
    expect(await guestSees(other)).toBe(200);
    expect((await asPage(other, 'GET', '/storefront')).body).toMatchObject({ on: true });
    expect(madeCoupon(other, codes.get(other)!)?.deleted).toBe(false);
    expect((await read(() => tokenAt(other, ADA))).body.codes.map((each: { code: string }) => each.code)).toEqual([
      codes.get(other),
    ]);
    // A connects again and its merchant turns the storefront on; the old disconnect, replayed fresh, does nothing.
    connections.set(woo, await connectPlugin(world, woo));
    expect((await asPage(woo, 'PUT', '/storefront', { on: true })).status).toBe(200);
    expect((await disconnectPlugin(world, earlier, signedAt)).status).toBe(400);
    expect(await guestSees(woo)).toBe(200);
    expect((await asPage(woo, 'GET', '/storefront')).body).toMatchObject({ on: true });
    expect((await read(() => tokenAt(woo, ADA))).status).toBe(200);
    expect(await guestSees(other)).toBe(200);
  }, 60_000);
});
