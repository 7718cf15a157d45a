// Webhook subscriptions kept right, per shop: at start, after each install, at each reconciliation and by
// `loyalty-bridge register`. An app declares every topic in shopify.app.toml, so its shop-scoped
// subscriptions of earlier releases are removed only once a delivery shows the topic arrives through the
// configuration (declared-deliveries.ts); a legacy custom app has none, so every topic is subscribed per
// shop. Nothing is recreated for an API version: a subscription's version is the app's (docs/shopify.md).
import type { SubscriptionProblem } from '../../src/core/order-source.ts';
import type { ShopifyAdminApi } from './admin-api.ts';
import { ShopifyAdminError } from './admin-api.ts';
import { grantedScopes } from './scopes.ts';
import { SUBSCRIBED_TOPICS } from './topics.ts';
import { trimTrailing } from '../../src/trim-trailing.ts';

export const LIST_SUBSCRIPTIONS_QUERY = `query LoyaltyBridgeSubscriptions($after: String) {
  webhookSubscriptions(first: 100, after: $after) {
    pageInfo { hasNextPage endCursor }
    nodes { id topic uri apiVersion { handle } }
  }
}`;

export const CREATE_SUBSCRIPTION_MUTATION = `mutation LoyaltyBridgeSubscribe($topic: WebhookSubscriptionTopic!, $webhookSubscription: WebhookSubscriptionInput!) {
  webhookSubscriptionCreate(topic: $topic, webhookSubscription: $webhookSubscription) {
    webhookSubscription { id topic uri apiVersion { handle } }
    userErrors { field message }
  }
}`;

export const MOVE_SUBSCRIPTION_MUTATION = `mutation LoyaltyBridgeMove($id: ID!, $webhookSubscription: WebhookSubscriptionInput!) {
  webhookSubscriptionUpdate(id: $id, webhookSubscription: $webhookSubscription) {
    webhookSubscription { id uri }
    userErrors { field message }
  }
}`;

export const DELETE_SUBSCRIPTION_MUTATION = `mutation LoyaltyBridgeUnsubscribe($id: ID!) {
  webhookSubscriptionDelete(id: $id) {
    deletedWebhookSubscriptionId
    userErrors { field message }
  }
}`;

/** orders/paid to ORDERS_PAID, as the GraphQL enum spells it. */
export const graphqlTopic = (topic: string): string => topic.replace('/', '_').toUpperCase();

/** What to do when Shopify refuses a topic for protected customer data. */
export const PROTECTED_DATA_FIX =
  'In the Dev Dashboard, open the app, then API access requests > Protected customer data: request access to protected customer data and to the Name, Email and Phone fields, with the reasons (awarding loyalty points), and release a version; then run `loyalty-bridge register --platform shopify` or wait for the next reconciliation';

/** What an unconfirmed topic means, and what to do if it stays so. */
export const UNCONFIRMED =
  'declared in shopify.app.toml, not yet seen delivered through it (each is confirmed by its first delivery; if orders are placed and none arrives, deploy the configuration: shopify app deploy)';

/** Where the shop's subscriptions come from: the app's configuration, or the shop (a legacy custom app). */
export type SubscriptionSource = 'app' | 'shop';

export interface RegistrationResult {
  shop: string;
  callbackUrl: string;
  apiVersion: string;
  source: SubscriptionSource;
  /** Topics Shopify was seen delivering to the shop through the app's configuration (source 'app'). */
  declared: string[];
  /** Topics the configuration declares that no delivery has shown yet, with no subscription of ours on the shop either (source 'app'). */
  unconfirmed: string[];
  created: string[];
  moved: string[];
  removed: string[];
  alreadyThere: string[];
  /** Topics Shopify refused or that cannot be right, each with what to do. */
  problems: SubscriptionProblem[];
  /** The scopes the app holds on the shop. */
  scopes: string[];
}

interface Subscription {
  id: string;
  topic: string;
  uri: string;
  apiVersion?: { handle: string } | null;
}

const WEBHOOK_PATH = '/webhooks/shopify';

type Payload = { userErrors: Array<{ message: string }>; webhookSubscription?: Subscription | null };

async function mutate(
  api: ShopifyAdminApi,
  mutation: string,
  variables: Record<string, unknown>,
  field: string,
  what: string,
): Promise<Payload> {
  const data = await api.query<Record<string, Payload>>(mutation, variables);
  const payload = data[field] ?? { userErrors: [] };
  if (payload.userErrors.length > 0)
    throw new ShopifyAdminError(
      `Shopify refused to ${what}: ${payload.userErrors.map((error) => error.message).join('; ')}`,
      'USER_ERROR',
    );
  return payload;
}

async function listOurs(api: ShopifyAdminApi, callbackUrl: string): Promise<Subscription[]> {
  const ours: Subscription[] = [];
  let after: string | null = null;
  for (;;) {
    const page: {
      webhookSubscriptions: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: Subscription[] };
    } = await api.query(LIST_SUBSCRIPTIONS_QUERY, { after });
    // HTTP subscriptions to a loyalty-bridge webhook address, this one or an old one.
    ours.push(
      ...page.webhookSubscriptions.nodes.filter(
        (subscription) => subscription.uri === callbackUrl || subscription.uri?.endsWith(WEBHOOK_PATH),
      ),
    );
    if (!page.webhookSubscriptions.pageInfo.hasNextPage) return ours;
    after = page.webhookSubscriptions.pageInfo.endCursor;
  }
}

const versionOf = (subscription: Subscription) => subscription.apiVersion?.handle;

/** One shop's sync: its API, where its webhooks go, and the result so far. */
interface Sync {
  api: ShopifyAdminApi;
  callbackUrl: string;
  result: RegistrationResult;
  /** API versions already reported as wrong: one problem each, not one per topic. */
  reported: Set<string>;
}

/**
 * `proven`: for an app, the topics Shopify was seen delivering to this shop
 * through the app's configuration (DeclaredDeliveries.proven).
 */
export async function syncShopifySubscriptions(
  api: ShopifyAdminApi,
  appUrl: string,
  source: SubscriptionSource = 'app',
  proven: ReadonlySet<string> = new Set(),
): Promise<RegistrationResult> {
  const callbackUrl = `${trimTrailing(appUrl, '/')}${WEBHOOK_PATH}`;
  const ours = await listOurs(api, callbackUrl);
  const result = await startingResult(api, callbackUrl, source, proven);
  const sync: Sync = { api, callbackUrl, result, reported: new Set<string>() };

  for (const topic of SUBSCRIBED_TOPICS) {
    const enumTopic = graphqlTopic(topic);
    const existing = ours.filter((subscription) => subscription.topic === enumTopic);
    if (source === 'app' && proven.has(topic)) {
      // Delivered through the app's configuration: a copy of ours would only double each delivery.
      for (const subscription of existing) await remove(sync, subscription, topic);
      continue;
    }
    if (source === 'app' && existing.length === 0) {
      // Never made for an app: the configuration declares it, and a delivery will show Shopify runs that version.
      result.unconfirmed.push(topic);
      continue;
    }
    await keepOne(sync, topic, enumTopic, existing);
  }
  return result;
}

/** The result before any topic is looked at: the scopes the app holds, and a problem if read_orders is not one. */
async function startingResult(
  api: ShopifyAdminApi,
  callbackUrl: string,
  source: SubscriptionSource,
  proven: ReadonlySet<string>,
): Promise<RegistrationResult> {
  const result: RegistrationResult = {
    shop: api.shop,
    callbackUrl,
    apiVersion: api.apiVersion,
    source,
    declared: source === 'app' ? SUBSCRIBED_TOPICS.filter((topic) => proven.has(topic)) : [],
    unconfirmed: [],
    created: [],
    moved: [],
    removed: [],
    alreadyThere: [],
    problems: [],
    scopes: [...(await grantedScopes(api))].sort(),
  };
  if (!result.scopes.includes('read_orders')) {
    result.problems.push({
      kind: 'scope',
      topic: 'read_orders',
      detail: `The app does not hold read_orders on ${api.shop}, so no order can be read or subscribed to`,
      fix: 'Add read_orders to the app’s access scopes (access_scopes in shopify.app.toml, or the Dev Dashboard), release the version, and open the app in the shop’s admin to approve it',
    });
  }
  return result;
}

async function remove(sync: Sync, subscription: Subscription, topic: string): Promise<void> {
  await mutate(
    sync.api,
    DELETE_SUBSCRIPTION_MUTATION,
    { id: subscription.id },
    'webhookSubscriptionDelete',
    `remove a ${topic} subscription`,
  );
  sync.result.removed.push(topic);
}

/** One subscription of the topic, at this address; a refusal is the topic's problem, not the sync's end. */
async function keepOne(sync: Sync, topic: string, enumTopic: string, existing: Subscription[]): Promise<void> {
  // Keep the best one: at this address, then any.
  const keep = existing.find((subscription) => subscription.uri === sync.callbackUrl) ?? existing[0];
  try {
    for (const extra of existing.filter((subscription) => subscription !== keep)) await remove(sync, extra, topic);
    const now = await placed(sync, topic, enumTopic, keep);
    const delivered = now ? versionOf(now) : undefined;
    if (delivered) checkVersion(sync, topic, delivered);
  } catch (error) {
    if (!(error instanceof ShopifyAdminError) || error.code !== 'USER_ERROR') throw error;
    sync.result.problems.push(refusedTopic(sync.api, topic, error));
  }
}

/** The topic's subscription made, moved to this address, or found there already. */
async function placed(
  { api, callbackUrl, result }: Sync,
  topic: string,
  enumTopic: string,
  keep: Subscription | undefined,
): Promise<Subscription | undefined> {
  let now: Subscription | undefined = keep;
  if (!keep) {
    now =
      (
        await mutate(
          api,
          CREATE_SUBSCRIPTION_MUTATION,
          { topic: enumTopic, webhookSubscription: { uri: callbackUrl, format: 'JSON' } },
          'webhookSubscriptionCreate',
          `create the ${topic} subscription`,
        )
      ).webhookSubscription ?? undefined;
    result.created.push(topic);
  } else if (keep.uri !== callbackUrl) {
    await mutate(
      api,
      MOVE_SUBSCRIPTION_MUTATION,
      { id: keep.id, webhookSubscription: { uri: callbackUrl } },
      'webhookSubscriptionUpdate',
      `move the ${topic} subscription`,
    );
    result.moved.push(topic);
  } else {
    result.alreadyThere.push(topic);
  }
  return now;
}

/** A problem when Shopify delivers at another API version than the bridge calls, once per version. */
function checkVersion({ api, result, reported }: Sync, topic: string, delivered: string): void {
  if (delivered !== api.apiVersion && !reported.has(delivered)) {
    reported.add(delivered);
    result.problems.push({
      kind: 'wrong_version',
      topic,
      detail: `Shopify delivers ${api.shop}'s webhooks at API version ${delivered}, the app's configured webhook version, while the bridge calls ${api.apiVersion}`,
      fix: `Set the webhook API version to ${api.apiVersion} ([webhooks] api_version in shopify.app.toml, then shopify app deploy; or the Dev Dashboard), or set SHOPIFY_API_VERSION to ${delivered}`,
    });
  }
}

/** What Shopify's refusal of the topic's subscription means, and what to do. */
function refusedTopic(api: ShopifyAdminApi, topic: string, error: ShopifyAdminError): SubscriptionProblem {
  const protectedData = /protected customer data/i.test(error.message);
  return {
    kind: protectedData ? 'protected_data' : 'refused',
    topic,
    detail: protectedData
      ? `Shopify refused the ${topic} subscription on ${api.shop}: the app is not approved for protected customer data`
      : error.message,
    fix: protectedData
      ? PROTECTED_DATA_FIX
      : 'Check the app’s scopes and the subscription in the Dev Dashboard, then run `loyalty-bridge register --platform shopify`',
  };
}
