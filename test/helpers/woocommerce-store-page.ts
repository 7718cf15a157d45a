// A bridge behind https with WooCommerce stores the operator connected, and
// the browser's part of a merchant's sign-in to their store's page played by
// hand: its cookie, the redirects not followed (adapters/woocommerce/store-pages.ts).
// For the e2e and security tests of that sign-in; Chromium plays it in
// test/browser/woocommerce-store-page.test.ts.
import { expect } from 'vitest';
import type { WooConnection } from '../../adapters/woocommerce/stores.ts';
import type { RunningBridge } from '../../src/composition/main.ts';
import { startTestBridge } from './bridge.ts';
import { eventually } from './engine.ts';
import { startFakeWooCommerce, type FakeWooCommerce } from './fake-woocommerce.ts';
import { startHttpsFront, type HttpsFront } from './https-front.ts';
import { answerConsent } from './wordpress-merchant.ts';
import { raw } from './raw-records.ts';

/** The operator's token on the world's bridge: its admin API and its dashboard. */
export const ADMIN_TOKEN = 'woo-store-page-admin-token-0123456789';

export interface WooPageWorld {
  front: HttpsFront;
  bridge: RunningBridge;
  /** The stores, each connected by the operator (landing on the dashboard). */
  stores: FakeWooCommerce[];
  connection(fake: FakeWooCommerce): Promise<WooConnection | undefined>;
  /** A GET as the browser sends it: no redirect followed, its cookie given. */
  browse(path: string, cookie?: string): Promise<Response>;
  /** The admin API with a store page's session. */
  asPage(session: string, path: string, init?: RequestInit): Promise<Response>;
  /** The merchant asks for their store's page: the cookie the bridge set, where it sends them, and the nonce. */
  open(store: string, cookie?: string): Promise<{ cookie: string; authorizeUrl: string; nonce: string }>;
  /** The operator's connect, approved in WordPress: where WooCommerce sent the browser back (not followed). */
  connectByOperator(fake: FakeWooCommerce, landing?: 'store-page'): Promise<URL>;
  stop(): Promise<void>;
}

/** Where a return lands, as the browser follows it: its path, relative to the bridge. */
export const onBridge = (url: URL) => `${url.pathname}${url.search}`;
/** The session a return hands the page, in the page it answers (never in an address). */
export const sessionIn = async (answer: Response) =>
  /<meta name="loyalty-bridge-session" content="(lbp1\.woocommerce\.[\w.-]+)">/.exec(await answer.clone().text())?.[1];

/**
 * `siteNames`: each store's site title, by position (null: its REST index answers nothing); the fake's own otherwise.
 * `options.env`: the bridge's settings beside the world's own (the bench's limits); `options.landing` 'store-page':
 * the operator connects each store for its merchant, who then sets up their own loyalty account.
 */
export async function startWooPageWorld(
  storeCount: number,
  siteNames: ReadonlyArray<string | null | undefined> = [],
  options: { env?: Record<string, string>; landing?: 'store-page' } = {},
): Promise<WooPageWorld> {
  const front = await startHttpsFront();
  const stores = await Promise.all(
    Array.from({ length: storeCount }, (_, i) =>
      startFakeWooCommerce(siteNames[i] === undefined ? {} : { siteName: siteNames[i] }),
    ),
  );
  const bridge = await startTestBridge({
    PUBLIC_URL: front.url,
    ADMIN_TOKEN,
    RECONCILE_INTERVAL_MINUTES: '0',
    ...options.env,
  });
  front.forwardTo(bridge.http.localUrl);
  const connection = (fake: FakeWooCommerce) =>
    bridge.engine.store.getRecord(raw<WooConnection>('session'), `woocommerce:${fake.host}`);
  const browse = (path: string, cookie = '') =>
    fetch(new URL(path, bridge.http.localUrl), { redirect: 'manual', headers: cookie ? { cookie } : {} });
  const world: WooPageWorld = {
    front,
    bridge,
    stores,
    connection,
    browse,
    asPage: (session, path, init = {}) =>
      fetch(`${bridge.http.localUrl}/admin/api${path}`, {
        ...init,
        headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
      }),
    async open(store, cookie = '') {
      const answer = await browse(`/woocommerce/open?store=${encodeURIComponent(store)}`, cookie);
      expect(answer.status).toBe(303);
      const authorizeUrl = answer.headers.get('location')!;
      return {
        cookie: (answer.headers.get('set-cookie') ?? '').split(';')[0]!,
        authorizeUrl,
        nonce: new URL(authorizeUrl).searchParams.get('user_id')!,
      };
    },
    async connectByOperator(fake, landing) {
      const started = await fetch(`${bridge.http.localUrl}/admin/api/stores/woocommerce/connect`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ store: fake.url, ...(landing ? { landing } : {}) }),
      });
      expect(started.status).toBe(201);
      return answerConsent(((await started.json()) as { authorizeUrl: string }).authorizeUrl, 'approve');
    },
    async stop() {
      await bridge.stop();
      await front.close();
      await Promise.all(stores.map((fake) => fake.close()));
    },
  };
  for (const fake of stores) await world.connectByOperator(fake, options.landing);
  await eventually(async () => {
    for (const fake of stores) expect((await connection(fake))?.consumerKey).toBeDefined();
  });
  return world;
}
