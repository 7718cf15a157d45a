// The Shopify topics loyalty-bridge reads. An app declares them all in shopify.app.toml, with the
// compliance topics, which can only be declared there: Shopify then delivers them for every shop from
// install on, and keeps the subscriptions itself. Only a legacy custom app, which has no app
// configuration, subscribes them per shop (subscriptions.ts).
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
export const SUBSCRIBED_TOPICS: readonly string[] = [
  ...SHOPIFY_TOPICS.filter((topic) => topic.startsWith('app/')),
  ...SHOPIFY_TOPICS.filter((topic) => !topic.startsWith('app/')),
];

export const COMPLIANCE_TOPICS = ['customers/data_request', 'customers/redact', 'shop/redact'] as const;

/** Topics whose body is the order itself. */
export const ORDER_TOPICS: ReadonlySet<string> = new Set(
  SHOPIFY_TOPICS.filter((topic) => topic.startsWith('orders/') && topic !== 'orders/edited'),
);

/** Every topic the bridge does something with; any other is acknowledged and not kept. */
export const HANDLED_TOPICS: ReadonlySet<string> = new Set<string>([...SHOPIFY_TOPICS, ...COMPLIANCE_TOPICS]);

/**
 * What the translation reads of each kind of body (order-events.ts): the
 * include_fields of shopify.app.toml's subscriptions, so that Shopify sends
 * nothing else (no street address, no browser IP, no client details).
 */
export const ORDER_FIELDS: readonly string[] = [
  'id',
  'name',
  'order_number',
  'email',
  'contact_email',
  'phone',
  'created_at',
  'updated_at',
  'cancelled_at',
  'financial_status',
  'fulfillment_status',
  'test',
  'currency',
  'total_price',
  'total_price_set',
  'subtotal_price',
  'subtotal_price_set',
  'source_name',
  'landing_site',
  'discount_codes',
  'note_attributes',
  'refunds.id',
  'refunds.transactions.kind',
  'refunds.transactions.status',
  'refunds.transactions.amount',
  'refunds.transactions.currency',
  'customer.id',
  'customer.first_name',
  'customer.last_name',
  'customer.email',
  'customer.phone',
  'customer.default_address.country_code',
  'billing_address.first_name',
  'billing_address.last_name',
  'billing_address.name',
  'billing_address.phone',
  'billing_address.country_code',
  'shipping_address.first_name',
  'shipping_address.last_name',
  'shipping_address.name',
  'shipping_address.phone',
  'shipping_address.country_code',
];

export const REFUND_FIELDS: readonly string[] = [
  'id',
  'order_id',
  'created_at',
  'processed_at',
  'transactions.kind',
  'transactions.status',
  'transactions.amount',
  'transactions.currency',
];

export const ORDER_EDIT_FIELDS: readonly string[] = ['order_edit.id', 'order_edit.order_id'];

/** Each topic the app's configuration declares, with the fields it asks for (undefined: the whole body). */
export const DECLARED_FIELDS: ReadonlyMap<string, readonly string[] | undefined> = new Map<
  string,
  readonly string[] | undefined
>(
  SHOPIFY_TOPICS.map((topic) => [
    topic,
    topic === 'refunds/create'
      ? REFUND_FIELDS
      : topic === 'orders/edited'
        ? ORDER_EDIT_FIELDS
        : ORDER_TOPICS.has(topic)
          ? ORDER_FIELDS
          : undefined,
  ]),
);

/**
 * The name shopify.app.toml gives each topic's subscription. Shopify sends it
 * with every delivery of that subscription (X-Shopify-Name); a shop-scoped
 * subscription the bridge made has none.
 */
export const DECLARED_NAMES: ReadonlyMap<string, string> = new Map<string, string>(
  SHOPIFY_TOPICS.map((topic) => [
    topic,
    topic.startsWith('app/')
      ? 'loyalty-bridge-app'
      : topic === 'refunds/create'
        ? 'loyalty-bridge-refunds'
        : topic === 'orders/edited'
          ? 'loyalty-bridge-order-edits'
          : 'loyalty-bridge-orders',
  ]),
);

/**
 * Whether a body holds nothing beyond the fields the app's configuration asks
 * for its topic: then it came through that subscription, since Shopify sends
 * a shop-scoped subscription of the bridge's (made without include_fields)
 * the whole resource, which always has more (admin_graphql_api_id, say).
 * Undefined for a topic whose body the configuration does not trim.
 */
export function trimmedAsDeclared(topic: string, body: Readonly<Record<string, unknown>>): boolean | undefined {
  const topLevel = DECLARED_TOP_LEVEL.get(topic);
  return topLevel && Object.keys(body).every((key) => topLevel.has(key));
}

/** Each trimmed topic's declared fields, by their top-level name (refunds.id: refunds). */
const DECLARED_TOP_LEVEL: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  [...DECLARED_FIELDS].flatMap(([topic, fields]) =>
    fields ? [[topic, new Set(fields.map((field) => field.split('.')[0]!))] as const] : [],
  ),
);
