// Webhook subscriptions kept right, per shop: every topic the bridge needs,
// once, at this bridge's address, at the configured API version. A missing
// one is created; one of ours at an old address is moved; one at another API
// version is replaced (a subscription's version cannot be changed in place);
// a duplicate of ours is removed. The Admin API lists only this app's own
// subscriptions, so another app's are never seen, let alone deleted. (The
// library's register() deletes whatever is not in its own registry, so it is
// not used.) Runs at start, after each install, on each reconciliation, and
// by hand with `loyalty-bridge register`.
import type { ShopifyAdminApi } from './admin-api.ts';
import { ShopifyAdminError } from './admin-api.ts';
import { SHOPIFY_TOPICS } from './topics.ts';

const LIST_QUERY = `query LoyaltyBridgeSubscriptions($after: String) {
  webhookSubscriptions(first: 100, after: $after) {
    pageInfo { hasNextPage endCursor }
    nodes { id topic uri apiVersion { handle } }
  }
}`;

const CREATE_MUTATION = `mutation LoyaltyBridgeSubscribe($topic: WebhookSubscriptionTopic!, $webhookSubscription: WebhookSubscriptionInput!) {
  webhookSubscriptionCreate(topic: $topic, webhookSubscription: $webhookSubscription) {
    webhookSubscription { id topic uri }
    userErrors { field message }
  }
}`;

const UPDATE_MUTATION = `mutation LoyaltyBridgeMove($id: ID!, $webhookSubscription: WebhookSubscriptionInput!) {
  webhookSubscriptionUpdate(id: $id, webhookSubscription: $webhookSubscription) {
    webhookSubscription { id uri }
    userErrors { field message }
  }
}`;

const DELETE_MUTATION = `mutation LoyaltyBridgeUnsubscribe($id: ID!) {
  webhookSubscriptionDelete(id: $id) {
    deletedWebhookSubscriptionId
    userErrors { field message }
  }
}`;

/** orders/paid to ORDERS_PAID, as the GraphQL enum spells it. */
export const graphqlTopic = (topic: string): string => topic.replace('/', '_').toUpperCase();

export interface RegistrationResult {
  shop: string;
  callbackUrl: string;
  apiVersion: string;
  created: string[];
  moved: string[];
  /** Replaced because they were at another API version. */
  upgraded: string[];
  removed: string[];
  alreadyThere: string[];
}

interface Subscription {
  id: string;
  topic: string;
  uri: string;
  apiVersion?: { handle: string } | null;
}

const WEBHOOK_PATH = '/webhooks/shopify';

async function mutate(api: ShopifyAdminApi, mutation: string, variables: Record<string, unknown>, field: string, what: string): Promise<void> {
  const data = await api.query<Record<string, { userErrors: Array<{ message: string }> }>>(mutation, variables);
  const errors = data[field]?.userErrors ?? [];
  if (errors.length > 0) throw new ShopifyAdminError(`Shopify refused to ${what}: ${errors.map((error) => error.message).join('; ')}`);
}

export async function syncShopifySubscriptions(api: ShopifyAdminApi, appUrl: string): Promise<RegistrationResult> {
  const callbackUrl = `${appUrl.replace(/\/+$/, '')}${WEBHOOK_PATH}`;
  const ours: Subscription[] = [];
  let after: string | null = null;
  for (;;) {
    const page: { webhookSubscriptions: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: Subscription[] } } = await api.query(LIST_QUERY, { after });
    // HTTP subscriptions to a loyalty-bridge webhook address, this one or an old one.
    ours.push(...page.webhookSubscriptions.nodes.filter((subscription) => subscription.uri === callbackUrl || subscription.uri?.endsWith(WEBHOOK_PATH)));
    if (!page.webhookSubscriptions.pageInfo.hasNextPage) break;
    after = page.webhookSubscriptions.pageInfo.endCursor;
  }

  const result: RegistrationResult = { shop: api.shop, callbackUrl, apiVersion: api.apiVersion, created: [], moved: [], upgraded: [], removed: [], alreadyThere: [] };
  for (const topic of SHOPIFY_TOPICS) {
    const enumTopic = graphqlTopic(topic);
    const existing = ours.filter((subscription) => subscription.topic === enumTopic);
    const rightVersion = (subscription: Subscription) => !subscription.apiVersion || subscription.apiVersion.handle === api.apiVersion;
    // Keep the best one: right address and version, then right version, then any.
    const keep =
      existing.find((subscription) => subscription.uri === callbackUrl && rightVersion(subscription)) ?? existing.find(rightVersion) ?? undefined;
    for (const extra of existing.filter((subscription) => subscription !== keep)) {
      await mutate(api, DELETE_MUTATION, { id: extra.id }, 'webhookSubscriptionDelete', `remove a ${topic} subscription`);
      if (rightVersion(extra)) result.removed.push(topic);
    }
    if (!keep) {
      await mutate(api, CREATE_MUTATION, { topic: enumTopic, webhookSubscription: { uri: callbackUrl, format: 'JSON' } }, 'webhookSubscriptionCreate', `create the ${topic} subscription`);
      if (existing.length > 0) result.upgraded.push(topic);
      else result.created.push(topic);
    } else if (keep.uri !== callbackUrl) {
      await mutate(api, UPDATE_MUTATION, { id: keep.id, webhookSubscription: { uri: callbackUrl } }, 'webhookSubscriptionUpdate', `move the ${topic} subscription`);
      result.moved.push(topic);
    } else {
      result.alreadyThere.push(topic);
    }
  }
  return result;
}
