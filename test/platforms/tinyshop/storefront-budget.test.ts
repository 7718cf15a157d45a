// A storefront surge on an account limited to 30 calls a minute: balance reads take the places the budget has now
// and then ask customers to try again (never waiting in the limiter), and a live order that arrives meanwhile
// still earns at once, with no call refused for the rate. (The share itself: test/unit/storefront-reader.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../helpers/engine.ts';
import { signedDelivery, tinyOrder } from './fake-tinyshop.ts';
import { storefrontQuery } from './storefront.ts';
import { SECRET, startTinyBridge, STORE } from './tiny-bridge.ts';

let world: Awaited<ReturnType<typeof startTinyBridge>>;

beforeAll(async () => {
  world = await startTinyBridge({ SANDBOX_RATE_LIMIT_PER_MINUTE: '30', LOYALTY_RATE_LIMIT_PER_MINUTE: '30' });
  const turned = await fetch(`${world.bridge.http.localUrl}/admin/api/storefront`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${world.session}`, 'content-type': 'application/json' },
    body: JSON.stringify({ on: true }),
  });
  expect(turned.status).toBe(200);
});
afterAll(() => world?.stop());

describe('the storefront under a surge', () => {
  it('reads what the budget has room for, answers the rest "try again", and never holds a live order back', async () => {
    const answers: Array<Record<string, unknown>> = [];
    for (let customer = 0; customer < 30; customer++) {
      world.shop.customers.set(`s-${customer}`, { email: `surge-${customer}@example.com`, phone: null });
      const query = storefrontQuery(SECRET, STORE, `s-${customer}`);
      const answer = await fetch(`${world.bridge.http.localUrl}/tinyshop/storefront/points?${query}`);
      answers.push((await answer.json()) as Record<string, unknown>);
    }
    const read = answers.filter((answer) => answer.balance !== undefined).length;
    const later = answers.filter((answer) => answer.retryAfterSeconds !== undefined);
    // Some read at once, the others asked to try again in words.
    expect(read).toBeGreaterThan(0);
    expect(read).toBeLessThan(30);
    expect(later.length).toBe(30 - read);
    expect(later[0]?.unavailable).toBe('Your points cannot be shown just now. Try again in a moment.');

    // A live order now: the budget left is its own, so it earns without waiting for the window to move on.
    const order = tinyOrder(7301, 'paid');
    const delivery = signedDelivery(SECRET, STORE, 'order.paid', order, 'd-7301');
    const sent = await fetch(`${world.bridge.http.localUrl}/webhooks/tinyshop`, {
      method: 'POST',
      body: delivery.body,
      headers: delivery.headers,
    });
    expect(sent.status).toBe(200);
    await eventually(
      () => expect(world.bridge.sandbox?.store.snapshot().earnings.some((each) => each.orderId === '7301')).toBe(true),
      10_000,
    );
    expect(world.bridge.sandbox?.refusedForRate).toBe(0);
  });
});
