// Found in a review of the App URL outside the admin (SHOPIFY_EMBEDDED=false),
// failing when written: a signed App URL was a bearer credential for its 90
// seconds. Whoever replayed the same query (a copied link, a proxy's log,
// browser history on a shared machine) got a fresh session for the shop,
// as many times as they liked. A link now signs in once (adapters/shopify/link-once.ts).
import { describe, expect, it } from 'vitest';
import { APP_SECRET, CHROME_UA, approveInstall, shopifyAppSuite } from '../helpers/shopify-app-bridge.ts';
import { appUrlQuery } from '../helpers/shopify-app-links.ts';
import { SHOPIFY_APP_URL_PATH } from '../../adapters/shopify/paths.ts';

const SHOP = 'managed-store.myshopify.com';
const suite = shopifyAppSuite({ SHOPIFY_SHOPS: SHOP });
const sessionIn = (page: string) => /<meta name="loyalty-bridge-session" content="([^"]+)">/.exec(page)?.[1];
const open = (query: string, headers: Record<string, string> = {}) =>
  fetch(`${suite.running.url}${SHOPIFY_APP_URL_PATH}?${query}`, {
    redirect: 'manual',
    headers: { 'user-agent': CHROME_UA, ...headers },
  });

describe('not embedded: one signed App URL link', () => {
  it('signs in at most once (a replay of the same query by anyone else gets no session)', async () => {
    suite.fake.install(SHOP);
    await suite.start({ SHOPIFY_EMBEDDED: 'false' });
    // Install by the code grant, as the e2e test does.
    const first = await open(appUrlQuery({ shop: SHOP, secret: APP_SECRET }));
    const back = await approveInstall(suite, SHOP, first);
    expect(back.status).toBe(200);

    // The merchant opens the app: Shopify's signed link.
    const link = appUrlQuery({ shop: SHOP, secret: APP_SECRET });
    const merchant = await open(link);
    expect(sessionIn(await merchant.text())).toMatch(/^lbp1\.shopify\./);

    // Someone else, no cookies, replays the very same query seconds later.
    const replay = await open(link);
    expect(replay.status).toBe(401);
    const page = await replay.text();
    expect(sessionIn(page)).toBeUndefined();
    expect(page).toContain('This link has been used');
    // A new link from the admin signs in again (each link the helper makes has a second of its own).
    const next = await open(appUrlQuery({ shop: SHOP, secret: APP_SECRET }));
    expect(sessionIn(await next.text())).toMatch(/^lbp1\.shopify\./);
  });
});
