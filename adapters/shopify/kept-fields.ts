// What the ledger keeps of each Shopify body: the fields translation reads
// (adapter.ts, order-events.ts, compliance.ts, guarded-bodies.ts). The order
// topics' fields are those shopify.app.toml asks Shopify for (topics.ts), so a
// body from the app's configuration is kept whole and one from a shop-scoped
// subscription, which carries the whole order, is trimmed to the same.
import { keptBody, shapeOf, type Shape } from '../shared/kept-fields.ts';
import { COMPLIANCE_TOPICS, DECLARED_FIELDS } from './topics.ts';

/**
 * customer ({id, email, phone}) and data_request ({id}) whole: their checks
 * (guarded-bodies.ts) read whether they are there and are objects, whatever
 * they hold.
 */
const COMPLIANCE_FIELDS = [
  'shop_id',
  'shop_domain',
  'customer',
  'orders_to_redact',
  'orders_requested',
  'data_request',
];

/** Per topic; a topic not named keeps nothing of its body (it is not translated). */
const SHAPES: ReadonlyMap<string, Shape> = new Map<string, Shape>([
  ...[...DECLARED_FIELDS].flatMap(([topic, fields]) => (fields ? [[topic, shapeOf(fields)] as const] : [])),
  // A Shop: what tells it is the shop it says (guarded-bodies.ts); not its owner, e-mail or address.
  ['app/uninstalled', shapeOf(['id', 'name', 'myshopify_domain'])],
  ['app/scopes_update', shapeOf(['previous', 'current', 'updated_at'])],
  ...COMPLIANCE_TOPICS.map((topic) => [topic, shapeOf(COMPLIANCE_FIELDS)] as const),
]);

export function shopifyKeptBody(topic: string, body: Buffer): Buffer {
  return keptBody(body, SHAPES.get(topic) ?? {});
}
