// Found in a review of the shop routes added in c9d673c..13c656c (resync, account usage,
// test orders, sandbox trials), from a hostile merchant's side: a bridge in
// sandbox mode, a Shopify app with open installs, several merchants each
// signed in with their own shop's session. Each test here failed when it was
// written and shows one finding; it passes once the finding is fixed. Only a
// shop's own routes are called, as its page would; the store is read to see
// what they left.
//   1. a trial refused for its name or settings still takes an account on the
//      bridge's sandbox (made before the input is checked, never given back):
//      one merchant fills the sandbox (MAX_ACCOUNTS) and no shop can try it
//   2. a burst of trial requests makes more than ACCOUNTS_PER_SHOP accounts
//      (15 of 15: the credentials check between count and write is a real
//      call); each is kept, and given back to the sandbox at every start
//   3. (the hourly caps of resyncs and test orders: shop-caps-shared-postgres.test.ts)
//   4. an id that is not valid percent-encoding answers 500 (an internal error
//      logged) in GET /resync/{id} and POST /test-orders/{id}/cancel
//   5. POST /resync from a shop whose access is gone (uninstalled, its bridge
//      shop token still good for up to an hour) names every other shop the
//      bridge serves ("reachable: …")
//   6. a shop's erasure (shop/redact) leaves its resync jobs, which name the
//      shop and the staff member who started them
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridgeShopTokens } from '../../src/http/bridge-shop-token.ts';
import { modulePagePurpose } from '../../src/http/platform-routes.ts';
import { MAX_ACCOUNTS } from '../../src/sandbox/accounts.ts';
import { eventually } from '../helpers/engine.ts';
import type { FakeShopify } from '../helpers/fake-shopify.ts';
import { shopifyHeaders } from '../helpers/shopify.ts';
import {
  APP_SECRET,
  asShop,
  startFakeShopifyForApp,
  startShopifyAppBridge,
  stopFakeShopifyForApp,
  type ShopifyAppBridge,
} from '../helpers/shopify-app-bridge.ts';
import { ACCOUNT_KIND } from '../../src/accounts/account-records.ts';
import { raw } from '../helpers/raw-records.ts';

const FILLER = 'review-filler.myshopify.com';
const VICTIM = 'review-victim.myshopify.com';
const BURST = 'review-burst.myshopify.com';
const RESYNCER = 'review-resyncer.myshopify.com';
const PROBER = 'review-prober.myshopify.com';
const LEAVER = 'review-leaver.myshopify.com';
const ERASED = 'review-erased.myshopify.com';
const SECRET_NEIGHBOUR = 'review-secret-neighbour.myshopify.com';
const ALL = [FILLER, VICTIM, BURST, RESYNCER, PROBER, LEAVER, ERASED, SECRET_NEIGHBOUR];

let fake: FakeShopify;
let running: ShopifyAppBridge;
const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
const store = () => running.bridge.engine.store;

beforeAll(async () => {
  fake = await startFakeShopifyForApp();
  for (const shop of ALL) fake.install(shop);
  // Sandbox mode (no LOYALTY_BASE_URL): merchants may try the bridge on its own sandbox.
  running = await startShopifyAppBridge(fake, { SHOPIFY_SHOPS: '', SHOPIFY_OPEN_INSTALLS: 'true' });
  // Every shop opened its page once: the bridge holds its access (token exchange).
  for (const shop of ALL) expect((await asShop(running, shop).get('/session')).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await running?.stop();
  await stopFakeShopifyForApp(fake);
});

describe('review: sandbox trials', () => {
  it('a trial refused for its input takes no account on the bridge’s sandbox, so one merchant cannot fill it', async () => {
    const sandbox = running.bridge.sandbox!;
    const before = sandbox.accounts.length;
    // Refused each time (400): the shop makes no account, so its cap of 3 never counts these.
    const refused = await asShop(running, FILLER).post('/account', { sandbox: true, name: 5 });
    expect(refused.status).toBe(400);
    expect(sandbox.accounts.length, 'a refused trial left an account on the sandbox').toBe(before);

    // Kept up, the sandbox is full (MAX_ACCOUNTS), and every other merchant is refused a trial.
    for (let sent = 0; sent < MAX_ACCOUNTS; sent += 50)
      await Promise.all(
        Array.from({ length: 50 }, () => asShop(running, FILLER).post('/account', { sandbox: true, name: 5 })),
      );
    const victim = await asShop(running, VICTIM).post('/account', { sandbox: true });
    expect(victim.status, victim.text).toBe(201);
  }, 120_000);

  it('a burst of trial requests makes no more than 3 accounts for the shop', async () => {
    const answers = await Promise.all(
      Array.from({ length: 15 }, () => asShop(running, BURST).post('/account', { sandbox: true })),
    );
    const made = (await store().listRecords(ACCOUNT_KIND)).filter(({ value }) => value.madeFor?.shop === BURST);
    expect(
      made.length,
      `answers ${answers.map((each) => each.status).join(',')}: more accounts than a shop may make`,
    ).toBeLessThanOrEqual(3);
  }, 60_000);
});

describe('review: resync', () => {
  it('a shop whose access is gone learns no other shop’s name from a resync it cannot start', async () => {
    // The merchant's dashboard, opened outside the admin, holds the bridge's shop token (good for an hour).
    const token = bridgeShopTokens([APP_SECRET], Date.now, modulePagePurpose('shopify')).mint(LEAVER);
    // They remove the app: Shopify revokes the token and sends app/uninstalled; the bridge forgets its access.
    fake.uninstall(LEAVER);
    const body = JSON.stringify({ id: 548380077, name: 'Leaver', domain: null, myshopify_domain: LEAVER });
    const uninstalled = await fetch(`${running.url}/webhooks/shopify`, {
      method: 'POST',
      headers: shopifyHeaders({ topic: 'app/uninstalled', body, shop: LEAVER, secret: APP_SECRET }),
      body,
    });
    expect(uninstalled.status).toBe(200);
    await running.bridge.engine.drain();
    await eventually(async () => expect(await store().getRecord(raw('session'), `shopify:${LEAVER}`)).toBeUndefined());

    const answer = await fetch(`${running.url}/admin/api/resync`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ since: day(2) }),
    });
    const text = await answer.text();
    // Refused either way (409, or the token no longer let in once the shop is gone): only what it says is at issue.
    expect([401, 403, 409]).toContain(answer.status);
    for (const other of [SECRET_NEIGHBOUR, VICTIM, ERASED])
      expect(text, 'another shop the bridge serves, named to this one').not.toContain(other);
  }, 30_000);

  it('a shop’s erasure takes its resync jobs, which name the shop and its staff member', async () => {
    const started = await asShop(running, ERASED).post('/resync', { since: day(2) });
    expect(started.status).toBe(202);
    expect(started.body.job.startedBy).toBe(`shopify ${ERASED} (staff 42)`);
    await running.bridge.resyncJobs.idle();
    await running.bridge.engine.privacy.eraseShop('shopify', ERASED, 'admin');
    const left = (await store().listRecords(raw<{ shops: string[]; startedBy?: string }>('resync-job'))).filter(
      ({ value }) => value.shops.includes(ERASED) || (value.startedBy ?? '').includes(ERASED),
    );
    expect(
      left.map(({ value }) => value.startedBy),
      'resync jobs of an erased shop',
    ).toEqual([]);
  }, 30_000);
});

describe('review: a shop’s erasure', () => {
  it('takes the accounts the shop made, with their keys, and the audit entries that name it: the name starts anew', async () => {
    const shop = asShop(running, ERASED);
    for (const name of ['one', 'two', 'three'])
      expect((await shop.post('/account', { sandbox: true, name })).status).toBe(201);
    expect((await shop.post('/account', { sandbox: true, name: 'four' })).status).toBe(409);
    await running.bridge.engine.privacy.eraseShop('shopify', ERASED, 'admin');
    const naming: string[] = [];
    for await (const item of store().exportAll())
      if (JSON.stringify(item).includes(ERASED))
        naming.push(item.type === 'record' ? `record ${item.kind}` : item.type);
    expect(naming.filter((each) => each !== 'record privacy-log')).toEqual([]);
    // The shop is still installed (the erasure came by hand): its page makes accounts again, as a new shop's would.
    expect((await shop.post('/account', { sandbox: true, name: 'again' })).status).toBe(201);
  }, 30_000);
});

describe('review: bad ids answer 400, not 500', () => {
  it('GET /resync/{id} and POST /test-orders/{id}/cancel with an id that is not valid percent-encoding', async () => {
    await asShop(running, PROBER).post('/account', { sandbox: true });
    const prober = asShop(running, PROBER);
    for (const answer of [await prober.get('/resync/%E0%A4%A'), await prober.post('/test-orders/%E0%A4%A/cancel')]) {
      expect(answer.status, answer.text).toBeGreaterThanOrEqual(400);
      expect(answer.status, answer.text).toBeLessThan(500);
    }
  }, 30_000);
});
