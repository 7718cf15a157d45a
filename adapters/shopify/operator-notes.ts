// What the operator's connections panel says of Shopify in their words: how to serve a shop whose deliveries
// were ignored, and orders that arrived with the customer's contact details hidden (protected customer data not
// granted).
import type { PlatformParts } from '../../src/core/platform-module.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';

export const operatorNotes = (store: Pick<LedgerStore, 'countOrders'>): PlatformParts['operatorNotes'] => ({
  notServed: 'add a shop of yours to SHOPIFY_SHOPS',
  async attention() {
    // From the counts the store keeps, not a scan of the orders.
    const hidden = (await store.countOrders()).skipped.protected_data_hidden ?? 0;
    return hidden
      ? [
          `${hidden} Shopify order(s) arrived with the customer's e-mail or phone hidden, so they earn nothing. Ask for protected customer data (name, e-mail, phone) in the app's settings in the Dev Dashboard: README.md, Connecting Shopify.`,
        ]
      : [];
  },
});
