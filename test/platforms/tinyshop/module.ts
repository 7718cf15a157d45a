// TinyShop as the bridge needs it: written from docs/development.md ("Adding a platform") alone, and
// registered at start by its test. Its one store is configured; a merchant opens their page from a link
// TinyShop signs with the store's webhook secret, which the door checks still names that store. With its store
// and webhook secret alone it is the smallest module there is, its webhooks; with its API too, a full one.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { merchantPageAnswer, plainPageAnswer, routeQuery } from '../../../src/core/platform-answers.ts';
import type { PlatformModule } from '../../../src/core/platform-module.ts';
import { httpUrl, secret, text } from '../../../src/setting-kinds.ts';
import { tinyShopAdapter } from './adapter.ts';
import { tinyShopOrderSource } from './order-source.ts';
import { PLATFORM } from './orders.ts';
import { tinyShopStorefront } from './storefront.ts';
import { tabDoor } from '../../../src/core/capabilities/door.ts';

const settings = {
  TINYSHOP_STORE: text().optional(),
  TINYSHOP_WEBHOOK_SECRET: secret(16).optional(),
  TINYSHOP_API_URL: httpUrl().optional(),
  TINYSHOP_API_TOKEN: secret().optional(),
};

/** A sign-in link TinyShop's admin opens: the store and a time, signed; good for five minutes. */
export const signIn = (secretKey: string, store: string, at: number) =>
  createHmac('sha256', secretKey).update(`sign-in:${store}:${at}`).digest('hex');
const SIGN_IN_MS = 5 * 60_000;

export const tinyShop: PlatformModule<typeof settings> = {
  sharedRecords: [],
  records: {},
  configured: (given) => Boolean(given.TINYSHOP_STORE),
  needs: { orders: null, subscriptions: null },
  demo: null,
  shopName: null,
  unconfirmedWhy: null,
  look: null,
  name: PLATFORM,
  names: { platform: 'TinyShop', shop: 'store', admin: 'your TinyShop admin, under Apps' },
  settings,
  checkSettings(given) {
    const problems = [];
    if (given.TINYSHOP_STORE && !given.TINYSHOP_WEBHOOK_SECRET)
      problems.push({ key: 'TINYSHOP_WEBHOOK_SECRET', message: 'is required with TINYSHOP_STORE' });
    if (given.TINYSHOP_API_URL && !given.TINYSHOP_API_TOKEN)
      problems.push({ key: 'TINYSHOP_API_TOKEN', message: 'is required with TINYSHOP_API_URL' });
    if (given.TINYSHOP_API_TOKEN && !given.TINYSHOP_API_URL)
      problems.push({ key: 'TINYSHOP_API_URL', message: 'is required with TINYSHOP_API_TOKEN' });
    return problems;
  },
  build({ TINYSHOP_STORE: store, TINYSHOP_WEBHOOK_SECRET: webhookSecret, TINYSHOP_API_URL, TINYSHOP_API_TOKEN }) {
    if (!store || !webhookSecret) return undefined;
    const webhooks = {
      adapter: tinyShopAdapter(webhookSecret),
      admitShop: async (shop: string) =>
        shop === store ? undefined : `${shop} is not the TinyShop store this bridge serves`,
      onStored: async () => {},
    };
    // The smallest module: its webhooks alone, with no API to read orders, customers or sign-ins from.
    if (!TINYSHOP_API_URL || !TINYSHOP_API_TOKEN) return { webhooks };
    return {
      webhooks,
      orders: {
        source: tinyShopOrderSource(TINYSHOP_API_URL, TINYSHOP_API_TOKEN, store),
        storesToRead: { configured: true, connected: async () => false },
      },
      shops: {
        list: async () => [store],
        storeName: async () => undefined,
        chosenByOperator: async (shop) => shop === store,
        prepare: async () => {},
      },
      storefront: tinyShopStorefront(webhookSecret, store, TINYSHOP_API_URL, TINYSHOP_API_TOKEN),
      routes: [
        {
          method: 'GET',
          path: '/open',
          async handle(request) {
            const query = routeQuery(request);
            const at = Number(query.at);
            const given = Buffer.from(query.signature ?? '', 'hex');
            const expected = Buffer.from(signIn(webhookSecret, query.store ?? '', at), 'hex');
            const fresh = Number.isFinite(at) && Math.abs(Date.now() - at) < SIGN_IN_MS;
            if (
              query.store !== store ||
              !fresh ||
              given.length !== expected.length ||
              !timingSafeEqual(given, expected)
            )
              return plainPageAnswer(
                401,
                {
                  title: 'This link has expired',
                  paragraphs: ['It is not TinyShop’s, or it is too old: open the app again from your TinyShop admin.'],
                  link: null,
                  form: null,
                },
                { frameAncestors: null },
              );
            return merchantPageAnswer({ shop: store, user: null, mayConnectPlugin: null });
          },
        },
      ],
      door: tabDoor(async ({ shop }) =>
        shop === store ? undefined : { status: 401, error: 'this store is not served here any more' },
      ),
    };
  },
};
