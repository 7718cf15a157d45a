// BigCommerce's configuration keys, which src/config.ts composes into the one schema, and the checks across them.
import { z } from 'zod';
import type { SettingProblem } from '../../src/core/platform-module.ts';
import { commaSeparated, secret, secureUrl, text, yesNo } from '../../src/setting-kinds.ts';

const STORE_HASH = /^[a-z0-9]{1,32}$/;

/** BigCommerce store hashes as "abc123,def456" in the environment, or a list in a file. */
const storeHashList = () =>
  commaSeparated(
    z.array(
      z
        .string({ error: 'must be store hashes like abc123' })
        .regex(STORE_HASH, { error: 'must be store hashes (from the API path) like abc123,def456' }),
      {
        error: 'must be a comma-separated list of store hashes like abc123,def456',
      },
    ),
  );

export const bigCommerceSettings = {
  BIGCOMMERCE_CLIENT_ID: text().optional(),
  BIGCOMMERCE_CLIENT_SECRET: secret().optional(),
  BIGCOMMERCE_STORE_HASH: z
    .string({ error: 'must be a store hash' })
    .regex(STORE_HASH, { error: 'must be the store hash from your API path, like abc123' })
    .optional(),
  BIGCOMMERCE_ACCESS_TOKEN: secret().optional(),
  BIGCOMMERCE_WEBHOOK_SECRET: secret(24).optional(),
  BIGCOMMERCE_API_URL: secureUrl(),
  BIGCOMMERCE_LOGIN_URL: secureUrl(),
  // The stores that may install the app and earn, beside BIGCOMMERCE_STORE_HASH; unset (an empty variable) means none.
  BIGCOMMERCE_STORES: storeHashList().default([]),
  BIGCOMMERCE_OPEN_INSTALLS: yesNo(),
};

export type BigCommerceSettings = z.output<z.ZodObject<typeof bigCommerceSettings>>;

export function bigCommerceSettingProblems(
  settings: BigCommerceSettings,
  publicUrl: string | undefined,
): SettingProblem[] {
  // The single-click app: the client secret checks its JWTs and exchanges codes; its callbacks live at PUBLIC_URL.
  if (!settings.BIGCOMMERCE_CLIENT_ID) return [];
  return [
    ...(settings.BIGCOMMERCE_CLIENT_SECRET
      ? []
      : [
          {
            key: 'BIGCOMMERCE_CLIENT_SECRET',
            message:
              "is required with BIGCOMMERCE_CLIENT_ID: the app's client secret (Developer Portal, View Client ID)",
          },
        ]),
    ...(publicUrl
      ? []
      : [
          {
            key: 'PUBLIC_URL',
            message:
              "is required with BIGCOMMERCE_CLIENT_ID: the bridge's https address, where BigCommerce calls the app's auth, load and uninstall callbacks",
          },
        ]),
  ];
}
