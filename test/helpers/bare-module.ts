// What a test's smallest platform module states beside its name, settings and parts: no cross-key checks, no
// records of its own, no demo, none of the CLI's words, its shops named as written, the neutral look.
import type { AnyPlatformModule } from '../../src/core/platform-module.ts';

export const NOTHING_MORE = {
  checkSettings: () => [],
  configured: () => false,
  records: {},
  needs: { orders: null, subscriptions: null },
  demo: null,
  shopName: null,
  unconfirmedWhy: null,
  look: null,
} satisfies Partial<AnyPlatformModule>;
