// The Shopify topics loyalty-bridge reads. Order and app topics are
// subscribed per shop through the Admin API (register.ts); the
// compliance topics can only be declared in the app's configuration (Dev
// Dashboard or shopify.app.toml) and arrive at the same address.
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
  'app/scopes_update',
] as const;

/** In the order they are subscribed: the app's own topics first, which need no protected-data approval. */
export const SUBSCRIBED_TOPICS: readonly string[] = [...SHOPIFY_TOPICS.filter((topic) => topic.startsWith('app/')), ...SHOPIFY_TOPICS.filter((topic) => !topic.startsWith('app/'))];

export const COMPLIANCE_TOPICS = ['customers/data_request', 'customers/redact', 'shop/redact'] as const;

/** Topics whose body is the order itself. */
export const ORDER_TOPICS: ReadonlySet<string> = new Set(SHOPIFY_TOPICS.filter((topic) => topic.startsWith('orders/') && topic !== 'orders/edited'));

/** Every topic the bridge does something with; any other is acknowledged and not kept. */
export const HANDLED_TOPICS: ReadonlySet<string> = new Set<string>([...SHOPIFY_TOPICS, ...COMPLIANCE_TOPICS]);
