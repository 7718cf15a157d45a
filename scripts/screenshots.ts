// Copies the merchant page's pictures the browser tests took (test/helpers/merchant-views.ts) into
// docs/screenshots/, where the guides (docs/connect-*.md) link them: each platform's views at a laptop's width and a phone's. Run the
// three merchant-page browser tests first (docs/development.md, "Screenshots"). And the customer's view of a Shopify
// store's points launcher (the theme app extension), signed in and as a guest, from its browser test; the launcher
// with a reward code just made (test/browser/shopify-theme-rewards.test.ts); and the merchant's rewards in Set up.
// And a BigCommerce store's: the launcher with a code just made, and the merchant's "In your store" switch and
// Rewards card in Set up (test/browser/bigcommerce-widget.test.ts). And a WooCommerce customer's points through the
// WordPress plugin in a real WordPress, with the plugin's settings page (test/browser/woocommerce-real-wordpress.test.ts).
import { copyFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Each platform's pictures: the test's artifacts folder (test-artifacts/<folder>/), and the name they go by. */
const PLATFORMS = [
  { folder: 'merchant', platform: 'shopify', test: 'test/browser/shopify-merchant-setup.test.ts' },
  { folder: 'woocommerce-page', platform: 'woocommerce', test: 'test/browser/woocommerce-store-page.test.ts' },
  { folder: 'bigcommerce', platform: 'bigcommerce', test: 'test/browser/bigcommerce-merchant-page.test.ts' },
];
/** The pictures the guides show: every view at a laptop's width, and the two a merchant opens most on a phone. */
const CHOSEN = [
  ...['home', 'setup', 'orders', 'privacy'].map((view) => `1280-${view}`),
  ...['home', 'orders'].map((view) => `390-${view}`),
];

/** The customer's pictures: the launcher open, signed in and as a guest, at both widths. */
const CUSTOMER = {
  folder: 'shopify-theme',
  test: 'test/browser/shopify-theme-launcher.test.ts',
  pictures: [1280, 390].flatMap((width) => ['signed-in', 'guest'].map((view) => `${width}-${view}`)),
};

/** Other pictures, each from its own browser test: [as taken, as the guides link it]. */
const OTHERS = [
  {
    folder: 'merchant-rewards',
    test: 'test/browser/shopify-merchant-rewards.test.ts',
    pictures: [1280, 390].map((width) => [`rewards-${width}`, `merchant-rewards-${width}`] as const),
  },
  {
    folder: 'shopify-rewards',
    test: 'test/browser/shopify-theme-rewards.test.ts',
    pictures: [1280, 390].map(
      (width) => [`customer-shopify-rewards-${width}`, `customer-shopify-rewards-${width}`] as const,
    ),
  },
  {
    folder: 'bigcommerce-rewards',
    test: 'test/browser/bigcommerce-widget.test.ts',
    pictures: [1280, 390].flatMap((width) => [
      [`customer-bigcommerce-rewards-${width}`, `customer-bigcommerce-rewards-${width}`] as const,
      [`merchant-storefront-${width}`, `merchant-bigcommerce-storefront-${width}`] as const,
    ]),
  },
  {
    // The WooCommerce merchant's switch, with the plugin's download and its connection code.
    folder: 'woocommerce-page',
    test: 'test/browser/woocommerce-store-page.test.ts',
    pictures: [1280, 390].map((width) => [`storefront-${width}`, `merchant-woocommerce-storefront-${width}`] as const),
  },
  {
    // The plugin in a real WordPress: the customer's points in the page and the launcher, the page before she confirms
    // her e-mail, and its settings page.
    folder: 'real-wordpress',
    test: 'test/browser/woocommerce-real-wordpress.test.ts',
    pictures: [
      ...[1280, 390].map(
        (width) => [`customer-woocommerce-points-${width}`, `customer-woocommerce-points-${width}`] as const,
      ),
      ['wordpress-plugin-settings-1280', 'wordpress-plugin-settings-1280'] as const,
      ...[1280, 390].map(
        (width) =>
          [`customer-woocommerce-confirm-email-${width}`, `customer-woocommerce-confirm-email-${width}`] as const,
      ),
    ],
  },
];

const missing: string[] = [];
for (const { folder, platform, test } of PLATFORMS)
  for (const picture of CHOSEN) {
    const from = `${ROOT}test-artifacts/${folder}/views-${picture}.png`;
    if (!existsSync(from)) {
      missing.push(`${from} (run npx vitest run ${test})`);
      continue;
    }
    const to = `docs/screenshots/merchant-${platform}-${picture}.png`;
    copyFileSync(from, `${ROOT}${to}`);
    console.log(`copied ${to}`);
  }
for (const picture of CUSTOMER.pictures) {
  const from = `${ROOT}test-artifacts/${CUSTOMER.folder}/customer-${picture}.png`;
  if (!existsSync(from)) {
    missing.push(`${from} (run npx vitest run ${CUSTOMER.test})`);
    continue;
  }
  const to = `docs/screenshots/customer-shopify-${picture}.png`;
  copyFileSync(from, `${ROOT}${to}`);
  console.log(`copied ${to}`);
}
for (const { folder, test, pictures } of OTHERS)
  for (const [taken, linked] of pictures) {
    const from = `${ROOT}test-artifacts/${folder}/${taken}.png`;
    if (!existsSync(from)) {
      missing.push(`${from} (run npx vitest run ${test})`);
      continue;
    }
    copyFileSync(from, `${ROOT}docs/screenshots/${linked}.png`);
    console.log(`copied docs/screenshots/${linked}.png`);
  }
if (missing.length > 0) {
  console.error(`Not taken yet:\n  ${missing.join('\n  ')}`);
  process.exitCode = 1;
}
