// ADMIN_TOKEN is the operator's whatever its shape: a token that looks like a session of a platform's merchant page
// (the bridge's own lbp1.<name>. family, or a JWT like an App Bridge session token) still opens the operator's
// API, as the Shopify door let it before the merchant page's doors came from the modules.
import { describe, expect, it } from 'vitest';
import { shopifyAppSuite } from '../helpers/shopify-app-bridge.ts';

const suite = shopifyAppSuite({ SHOPIFY_SHOPS: 'token-shape-shop.myshopify.com' });

describe('ADMIN_TOKEN shaped like a merchant page session', () => {
  it.each([
    ['of the bridge’s own Shopify family', 'lbp1.shopify.operator-chose-this-0123456789'],
    ['of another module’s family', 'lbp1.woocommerce.operator-chose-this-0123456789'],
    ['like a JWT', 'operator-chose.this-token.0123456789'],
  ])('%s opens the operator’s API', async (_name, ADMIN_TOKEN) => {
    await suite.start({ ADMIN_TOKEN });
    const response = await fetch(`${suite.running.url}/admin/api/platforms`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(response.status).toBe(200);
  });
});
