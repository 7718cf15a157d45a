// The Shopify topics loyalty-bridge subscribes to and reads.
export const SHOPIFY_TOPICS = [
  'orders/create',
  'orders/paid',
  'orders/fulfilled',
  'orders/partially_fulfilled',
  'orders/updated',
  'orders/cancelled',
  'refunds/create',
  'orders/edited',
  'app/uninstalled',
] as const;

/** Topics whose body is the order itself. */
export const ORDER_TOPICS: ReadonlySet<string> = new Set(SHOPIFY_TOPICS.filter((topic) => topic.startsWith('orders/') && topic !== 'orders/edited'));
