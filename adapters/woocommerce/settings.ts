// WooCommerce's configuration keys, which src/config.ts composes into the one schema.
import type { z } from 'zod';
import { secret, secureUrl, text } from '../../src/setting-kinds.ts';

export const wooSettings = {
  WOOCOMMERCE_WEBHOOK_SECRET: secret().optional(),
  WOOCOMMERCE_URL: secureUrl().optional(),
  WOOCOMMERCE_CONSUMER_KEY: secret().optional(),
  WOOCOMMERCE_CONSUMER_SECRET: secret().optional(),
  WOOCOMMERCE_APP_NAME: text(),
};

export type WooSettings = z.output<z.ZodObject<typeof wooSettings>>;
