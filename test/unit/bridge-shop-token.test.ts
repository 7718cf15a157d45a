// The sessions the bridge hands a store's page outside a platform's admin
// (src/http/bridge-shop-token.ts): one store each, an hour each, one purpose
// each. A session past its hour, or of another family, or under another
// key, opens nothing.
import { describe, expect, it } from 'vitest';
import { BRIDGE_SHOP_TOKEN_TTL_MS, bridgeShopTokens } from '../../src/http/bridge-shop-token.ts';
import { modulePagePurpose } from '../../src/http/platform-routes.ts';

const PURPOSES = {
  shopify: modulePagePurpose('shopify'),
  bigcommerce: modulePagePurpose('bigcommerce'),
  woocommerce: modulePagePurpose('woocommerce'),
};
const SECRET = 'a-secret-of-at-least-thirty-two-characters';

describe.each(Object.entries(PURPOSES))('a %s store page’s session', (_platform, purpose) => {
  it('names its store and user until its hour is over, and nothing after', () => {
    let now = Date.parse('2026-11-24T09:00:00Z');
    const tokens = bridgeShopTokens([SECRET], () => now, purpose);
    const token = tokens.mint('shop-one', '42');
    expect(token.startsWith(purpose.prefix)).toBe(true);
    now += BRIDGE_SHOP_TOKEN_TTL_MS - 1;
    expect(tokens.read(token)).toEqual({ shop: 'shop-one', user: '42', issuedAt: now - BRIDGE_SHOP_TOKEN_TTL_MS + 1 });
    now += 1;
    expect(tokens.read(token)).toBeUndefined();
    expect(tokens.verify(token)).toBeUndefined();
  });

  it('opens nothing in another family, under another key, or with its claims changed', () => {
    const tokens = bridgeShopTokens([SECRET], Date.now, purpose);
    const token = tokens.mint('shop-one');
    for (const other of Object.values(PURPOSES).filter((each) => each !== purpose)) {
      const family = bridgeShopTokens([SECRET], Date.now, other);
      expect(family.verify(token)).toBeUndefined();
      expect(family.verify(`${other.prefix}${token.slice(purpose.prefix.length)}`)).toBeUndefined();
    }
    expect(
      bridgeShopTokens(['another-secret-of-thirty-two-characters'], Date.now, purpose).verify(token),
    ).toBeUndefined();
    const [payload, mac] = token.slice(purpose.prefix.length).split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
    const changed = Buffer.from(JSON.stringify({ ...claims, shop: 'shop-two' })).toString('base64url');
    expect(tokens.verify(`${purpose.prefix}${changed}.${mac}`)).toBeUndefined();
    expect(tokens.verify(token)).toBe('shop-one');
  });

  it('is still taken under the previous key during a rotation', () => {
    const old = bridgeShopTokens(['the-previous-secret-of-thirty-two-chars'], Date.now, purpose).mint('shop-one');
    expect(bridgeShopTokens([SECRET, 'the-previous-secret-of-thirty-two-chars'], Date.now, purpose).verify(old)).toBe(
      'shop-one',
    );
  });
});
