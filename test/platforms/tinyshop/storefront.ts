// TinyShop's storefront capability: its store's pages send the bridge the store, the signed-in customer (if any) and a
// time, signed with the store's webhook secret (HMAC-SHA256, hex), good for five minutes; the customer's contact
// is read from TinyShop's API on the bridge's side, which answers 403 while the store has not granted `customers`.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { routeQuery } from '../../../src/core/platform-answers.ts';
import type { Storefront } from '../../../src/core/platform-module.ts';

const FRESH_MS = 5 * 60_000;

export const storefrontSignature = (secret: string, store: string, customer: string, at: number) =>
  createHmac('sha256', secret).update(`storefront:${store}:${customer}:${at}`).digest('hex');

export function tinyShopStorefront(secret: string, store: string, apiUrl: string, token: string): Storefront {
  const api = (path: string) => fetch(`${apiUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return {
    // Through TinyShop's own proxy: same-origin, one way in, and a store that is never uninstalled.
    cors: null,
    entrances: [],
    served: async () => true,
    async customer(request) {
      const query = routeQuery(request);
      const at = Number(query.at);
      const customer = query.customer ?? '';
      const given = Buffer.from(query.signature ?? '', 'hex');
      const expected = Buffer.from(storefrontSignature(secret, query.store ?? '', customer, at), 'hex');
      if (
        query.store !== store ||
        !Number.isFinite(at) ||
        Math.abs(Date.now() - at) > FRESH_MS ||
        given.length !== expected.length ||
        !timingSafeEqual(given, expected)
      )
        return { kind: 'refused' };
      return customer === '' ? { kind: 'guest', shop: store } : { kind: 'customer', shop: store, customerId: customer };
    },
    async contact(shop, customerId) {
      if (shop !== store) return undefined;
      const answer = await api(`/customers/${encodeURIComponent(customerId)}`);
      if (answer.status === 403) return 'not-allowed';
      if (!answer.ok) return undefined;
      const { email, phone } = (await answer.json()) as { email?: string | null; phone?: string | null };
      return { ...(email ? { email } : {}), ...(phone ? { phone } : {}) };
    },
    async readiness(shop) {
      if (shop !== store) return { ready: false, missingScopes: [], why: 'this store is not served here' };
      const { granted } = (await (await api('/scopes')).json()) as { granted: string[] };
      return granted.includes('customers')
        ? { ready: true }
        : { ready: false, missingScopes: ['customers'], why: 'the app may not read your customers yet' };
    },
  };
}

/** What a store's page sends for its customer (or a guest, with no customer), signed as TinyShop signs it. */
export const storefrontQuery = (secret: string, store: string, customer = '', at = Date.now()) =>
  new URLSearchParams({ store, customer, at: String(at), signature: storefrontSignature(secret, store, customer, at) });
