// The fake Shopify's webhook deliveries (fake-shopify.ts sends them), from Shopify's documentation:
//   deliveries: one per subscription to the topic, the app's (toml) ones
//     included, each with its own X-Shopify-Webhook-Id and one
//     X-Shopify-Event-Id; a named subscription's with X-Shopify-Name (toml
//     subscriptions may be named: Shopify changelog, February 2026)
import { isLosslessNumber, parse, stringify } from 'lossless-json';
import { createHmac, randomUUID } from 'node:crypto';
import type { FakeShopify, FakeShopifyContext } from './fake-shopify-shop.ts';

/** An event on a shop, delivered to every subscription to its topic (FakeShopify.deliver). */
export async function deliver(
  context: FakeShopifyContext,
  name: string,
  topic: string,
  body: string,
): ReturnType<FakeShopify['deliver']> {
  const enumTopic = topic.replace('/', '_').toUpperCase();
  const targets = [
    ...context.shop(name).subscriptions.filter((subscription) => subscription.topic === enumTopic),
    ...context.appSubscriptions.filter((subscription) => subscription.topic === topic),
  ];
  const eventId = randomUUID();
  const statuses: Array<{ status: number; result: string | undefined }> = [];
  for (const target of targets) {
    // An app subscription's include_fields: the payload holds only those fields (dotted paths reach into objects and arrays).
    const sent =
      'includeFields' in target && target.includeFields
        ? (stringify(onlyFields(parse(body), target.includeFields)) ?? '')
        : body;
    const response = await fetch(target.uri, {
      method: 'POST',
      body: sent,
      headers: {
        'content-type': 'application/json',
        'x-shopify-hmac-sha256': createHmac('sha256', context.options.apiSecret).update(sent).digest('base64'),
        'x-shopify-topic': topic,
        'x-shopify-shop-domain': name,
        'x-shopify-api-version':
          'apiVersion' in target ? String(target.apiVersion) : context.settings.webhookApiVersion,
        'x-shopify-webhook-id': randomUUID(),
        'x-shopify-event-id': eventId,
        'x-shopify-triggered-at': new Date(context.now()).toISOString(),
        ...('name' in target && target.name ? { 'x-shopify-name': target.name } : {}),
      },
    });
    const answer = (await response.json().catch(() => ({}))) as { result?: string };
    statuses.push({ status: response.status, result: answer.result });
  }
  return statuses;
}

/**
 * A payload cut down to include_fields, as Shopify documents it ("Webhooks
 * delivery structure"): only the listed paths, "customer.email" keeping the
 * customer with that one field, through arrays ("refunds.id" from every refund).
 */
export function onlyFields(payload: unknown, paths: readonly string[]): unknown {
  const pick = (value: unknown, wanted: string[][]): unknown => {
    if (Array.isArray(value)) return value.map((item) => pick(item, wanted));
    if (typeof value !== 'object' || value === null || isLosslessNumber(value)) return value;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const here = wanted.filter((path) => path[0] === key);
      if (here.length === 0) continue;
      out[key] = here.some((path) => path.length === 1)
        ? item
        : pick(
            item,
            here.map((path) => path.slice(1)),
          );
    }
    return out;
  };
  return pick(
    payload,
    paths.map((path) => path.split('.')),
  );
}
