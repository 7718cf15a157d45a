// Review I of issue 64: a customer known by a phone alone sees nothing of an e-mail an order paired with it
// (customer-holders.ts, phoneOfAnEmail), over HTTP through TinyShop's storefront part. The ledger finds a phone's
// orders by the number in E.164; the service pairs numbers by their digits. A platform's record of a phone written
// without its '+' ("442079460958") is the same number at the service, but no order of the ledger's: the page
// showed the e-mail's customer's balance and orders. A phone now names a customer in E.164 only (serviceCustomer).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBridge } from '../../src/composition/main.ts';
import { CUSTOMER_WORDS } from '../../src/http/storefront-routes.ts';
import { eventually } from '../helpers/engine.ts';
import { signedDelivery, tinyOrder, type FakeTinyShop } from '../platforms/tinyshop/fake-tinyshop.ts';
import { storefrontQuery } from '../platforms/tinyshop/storefront.ts';
import { SECRET, startTinyBridge, STORE } from '../platforms/tinyshop/tiny-bridge.ts';

let shop: FakeTinyShop;
let bridge: RunningBridge;
let session: string;
let stop: () => Promise<void>;

const points = (query: URLSearchParams) => fetch(`${bridge.http.localUrl}/tinyshop/storefront/points?${query}`);

beforeAll(async () => {
  ({ shop, bridge, session, stop } = await startTinyBridge({ ADMIN_TOKEN: 'tinyshop-operator-token-review-i' }));
  const on = await fetch(`${bridge.http.localUrl}/admin/api/storefront`, {
    method: 'PUT',
    body: JSON.stringify({ on: true }),
    headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
  });
  expect(on.status).toBe(200);
});
afterAll(() => stop?.());

describe('review I of the reward money: a phone written another way', () => {
  it('I3: shows a customer known by a phone without its "+" nothing of the e-mail an order paired it with', async () => {
    // A guest order carries a victim's e-mail beside this phone (tinyOrder: +442079460958); it earns for the victim.
    const order = tinyOrder(7301, 'paid');
    const delivery = signedDelivery(SECRET, STORE, 'order.paid', order, 'd-7301');
    await fetch(`${bridge.http.localUrl}/webhooks/tinyshop`, {
      method: 'POST',
      body: delivery.body,
      headers: delivery.headers,
    });
    await eventually(() =>
      expect(bridge.sandbox?.store.snapshot().earnings.some((each) => each.orderId === '7301')).toBe(true),
    );
    // The same number, as a shop's record may write it: the service's customer of that e-mail.
    shop.customers.set('c-no-plus', { email: null, phone: '442079460958' });
    const body = (await (await points(storefrontQuery(SECRET, STORE, 'c-no-plus'))).json()) as Record<string, any>;
    expect(body.history ?? []).toEqual([]);
    expect(body.balance?.pending ?? 0).toBe(0);
    // Said why in their words: a number without its country code could be anyone's, so it names no one.
    expect(body).toMatchObject({ customer: 'signed-in', unavailable: CUSTOMER_WORDS.noContact });
    // The number written in full is refused as before, with how to see their points.
    shop.customers.set('c-in-full', { email: null, phone: '+44 20 7946 0958' });
    const full = (await (await points(storefrontQuery(SECRET, STORE, 'c-in-full'))).json()) as Record<string, any>;
    expect(full).toMatchObject({ unavailable: CUSTOMER_WORDS.needsEmail });
  });
});
