// Shopify's configuration keys, which src/config.ts composes into the one schema, and the checks across them.
import { z } from 'zod';
import type { SettingProblem } from '../../src/core/platform-module.ts';
import { commaSeparated, secret, secureUrl, text, wholeNumber, yesNo } from '../../src/setting-kinds.ts';

const SHOP_DOMAIN = /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/;

const scopes = () =>
  commaSeparated(
    z
      .array(
        z.string().regex(/^(read|write|unauthenticated_read|unauthenticated_write)_[a-z_]+$/, {
          error: 'scopes look like read_orders',
        }),
        { error: 'must be a comma-separated list of scopes' },
      )
      .min(1, { error: 'must name at least read_orders' }),
  );

/** Shop domains as "a.myshopify.com,b.myshopify.com" in the environment, or a list in a file. */
const shopList = () =>
  commaSeparated(
    z.array(
      z
        .string({ error: 'must be shops like your-store.myshopify.com' })
        .regex(SHOP_DOMAIN, { error: 'must be shops like your-store.myshopify.com,another.myshopify.com' }),
      {
        error: 'must be a comma-separated list of shops like your-store.myshopify.com',
      },
    ),
    (item) => item.toLowerCase(),
  );

export const shopifySettings = {
  SHOPIFY_API_KEY: text().optional(),
  SHOPIFY_API_SECRET: secret().optional(),
  SHOPIFY_API_SECRET_PREVIOUS: secret().optional(),
  SHOPIFY_API_VERSION: z
    .string({ error: 'must be a version like 2026-10' })
    .regex(/^(\d{4}-(01|04|07|10)|unstable)$/, { error: 'must be a Shopify API version like 2026-10' }),
  SHOPIFY_SCOPES: scopes(),
  SHOPIFY_BULK_THRESHOLD: wholeNumber(1, 10_000_000),
  SHOPIFY_SHOP: z
    .string({ error: 'must be a shop domain' })
    .regex(SHOP_DOMAIN, { error: 'must look like your-store.myshopify.com' })
    .optional(),
  SHOPIFY_ADMIN_TOKEN: secret().optional(),
  SHOPIFY_APP_URL: secureUrl().optional(),
  SHOPIFY_EMBEDDED: yesNo(),
  // Unset (an empty variable) means no shop listed.
  SHOPIFY_SHOPS: shopList().default([]),
  SHOPIFY_OPEN_INSTALLS: yesNo(),
};

export type ShopifySettings = z.output<z.ZodObject<typeof shopifySettings>>;

export function shopifySettingProblems(settings: ShopifySettings, publicUrl: string | undefined): SettingProblem[] {
  const problems: SettingProblem[] = [];
  // Shopify's grants need the client id beside the secret.
  if (
    settings.SHOPIFY_API_SECRET &&
    !settings.SHOPIFY_ADMIN_TOKEN &&
    (settings.SHOPIFY_SHOP || settings.SHOPIFY_APP_URL) &&
    !settings.SHOPIFY_API_KEY
  )
    problems.push({
      key: 'SHOPIFY_API_KEY',
      message: "is required to get Admin API access: set it to the app's client id (Dev Dashboard, Settings)",
    });
  // Only the merchant's shops earn: with a Shopify secret and no way for any shop to be allowed, every delivery would be ignored.
  const operatorCanInstall = Boolean(settings.SHOPIFY_API_KEY && (settings.SHOPIFY_APP_URL || publicUrl));
  if (
    settings.SHOPIFY_API_SECRET &&
    !settings.SHOPIFY_SHOP &&
    settings.SHOPIFY_SHOPS.length === 0 &&
    !settings.SHOPIFY_OPEN_INSTALLS &&
    !operatorCanInstall
  )
    problems.push({
      key: 'SHOPIFY_SHOPS',
      message:
        'is required with SHOPIFY_API_SECRET: list the shops whose orders earn (your-store.myshopify.com), or set SHOPIFY_SHOP, or SHOPIFY_API_KEY and SHOPIFY_APP_URL to install shops from the dashboard',
    });
  if (settings.SHOPIFY_API_SECRET_PREVIOUS && !settings.SHOPIFY_API_SECRET)
    problems.push({
      key: 'SHOPIFY_API_SECRET',
      message: 'is required when SHOPIFY_API_SECRET_PREVIOUS is set (the new secret)',
    });
  return problems;
}
