// What Shopify's operator and merchants are told in their words: on the connections panel, how to serve a shop
// whose deliveries were ignored, and orders that arrived with the customer's contact details hidden (protected
// customer data not granted); on a merchant's page, the same orders.
import type { PlatformNotes } from '../../src/core/platform-module.ts';
import type { OperatorQueries } from '../../src/core/store/roles/queries.ts';
import { counted } from '../../src/counted.ts';

export const shopifyNotes = (store: Pick<OperatorQueries, 'countOrders'>): PlatformNotes => ({
  skipReasons: SKIP_REASONS,
  notServed: 'add a shop of yours to SHOPIFY_SHOPS',
  async attention() {
    // From the counts the store keeps, not a scan of the orders.
    const hidden = (await store.countOrders()).skipped.protected_data_hidden ?? 0;
    return hidden
      ? [
          `${counted(hidden, 'Shopify order')} arrived with the customer's e-mail or phone hidden, so they earn nothing. Ask for protected customer data (name, e-mail, phone) in the app's settings in the Dev Dashboard: docs/connect-shopify.md.`,
        ]
      : [];
  },
});

/** What a merchant's page says of orders that came with the customer's e-mail and phone hidden. */
export const SKIP_REASONS = {
  protected_data_hidden: {
    why: 'Shopify hides the customer’s e-mail and phone from the app, so these orders cannot earn points.',
    fix: 'The app’s developer (the bridge’s operator) requests access to protected customer data (Name, Email, Phone) in the app’s Dev Dashboard; once Shopify approves it, read these orders again from Orders.',
  },
} as const;
