// Webhook registration for a custom app. Idempotent and additive: it creates
// the subscriptions loyalty-bridge needs that are missing and touches nothing
// else. (@shopify/shopify-api's register() deletes every subscription not in
// its own registry, the merchant's other apps' included, so it is not used.)
import type { ShopifyAdminApi } from './admin-api.ts';
import { ShopifyAdminError } from './admin-api.ts';
import { SHOPIFY_TOPICS } from './topics.ts';

const LIST_QUERY = `query LoyaltyBridgeSubscriptions($after: String) {
  webhookSubscriptions(first: 100, after: $after) {
    pageInfo { hasNextPage endCursor }
    nodes { id topic uri }
  }
}`;

const CREATE_MUTATION = `mutation LoyaltyBridgeSubscribe($topic: WebhookSubscriptionTopic!, $webhookSubscription: WebhookSubscriptionInput!) {
  webhookSubscriptionCreate(topic: $topic, webhookSubscription: $webhookSubscription) {
    webhookSubscription { id topic uri }
    userErrors { field message }
  }
}`;

/** orders/paid to ORDERS_PAID, as the GraphQL enum spells it. */
export const graphqlTopic = (topic: string): string => topic.replace('/', '_').toUpperCase();

export interface RegistrationResult {
  callbackUrl: string;
  created: string[];
  alreadyThere: string[];
}

export async function registerShopifyWebhooks(api: ShopifyAdminApi, appUrl: string): Promise<RegistrationResult> {
  const callbackUrl = `${appUrl.replace(/\/+$/, '')}/webhooks/shopify`;
  const existing = new Set<string>();
  let after: string | null = null;
  for (;;) {
    const page: { webhookSubscriptions: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: Array<{ topic: string; uri: string }> } } =
      await api.query(LIST_QUERY, { after });
    for (const subscription of page.webhookSubscriptions.nodes) {
      if (subscription.uri === callbackUrl) existing.add(subscription.topic);
    }
    if (!page.webhookSubscriptions.pageInfo.hasNextPage) break;
    after = page.webhookSubscriptions.pageInfo.endCursor;
  }

  const result: RegistrationResult = { callbackUrl, created: [], alreadyThere: [] };
  for (const topic of SHOPIFY_TOPICS) {
    const enumTopic = graphqlTopic(topic);
    if (existing.has(enumTopic)) {
      result.alreadyThere.push(topic);
      continue;
    }
    const data: { webhookSubscriptionCreate: { userErrors: Array<{ field: string[] | null; message: string }> } } = await api.query(CREATE_MUTATION, {
      topic: enumTopic,
      webhookSubscription: { uri: callbackUrl, format: 'JSON' },
    });
    const errors = data.webhookSubscriptionCreate.userErrors;
    if (errors.length > 0) throw new ShopifyAdminError(`Shopify refused the ${topic} subscription: ${errors.map((error) => error.message).join('; ')}`);
    result.created.push(topic);
  }
  return result;
}
