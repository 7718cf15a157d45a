// One webhook route per platform's adapter, the same for all (src/http/webhook-route.ts), with what its
// module says of the shops it serves and of what was stored; one body reader for them all, so that the
// limits on bodies read at once hold across platforms.
import type { Config } from '../config.ts';
import type { Ingest } from '../core/ingest.ts';
import type { Activity } from '../activity.ts';
import { bodyReader } from '../http/body-reader.ts';
import { webhookHandler, type WebhookHandler } from '../http/webhook-route.ts';
import type { Logger } from '../logger.ts';
import type { Metrics } from '../metrics.ts';
import type { Platforms } from './platforms.ts';

export interface WebhookRouteParts {
  config: Config;
  platforms: Platforms;
  ingest: Ingest;
  logger: Logger;
  metrics: Metrics;
  activity: Activity;
  /** Closed while the bridge stops: deliveries get 503 and are sent again later. */
  gate: { open: boolean };
  /** Shops whose deliveries are told by a line of their own elsewhere (the demo's): their route's line is at debug. */
  ownLine?: (platform: string, shop: string) => boolean;
  /** Why a shop's deliveries are refused before its module is asked (the demo's once it stopped), or undefined. */
  refusedShop?: (platform: string, shop: string) => string | undefined;
}

export function webhookRoutes(parts: WebhookRouteParts): Record<string, WebhookHandler> {
  const { config, platforms, ingest, logger, metrics, activity, gate } = parts;
  const readBody = bodyReader({
    maxBytes: config.WEBHOOK_MAX_BODY_BYTES,
    deadlineMs: config.WEBHOOK_BODY_TIMEOUT_SECONDS * 1000,
    concurrentReads: config.WEBHOOK_CONCURRENT_READS,
  });
  const options = {
    readBody,
    metrics,
    gate,
    onDelivery: (platform: string, result: string) => activity.recordDelivery(platform, result),
    onShopRefused: (platform: string, shop: string) => activity.recordRefusedShop(platform, shop),
  };
  const webhooks: Record<string, WebhookHandler> = {};
  for (const { module, parts: own } of platforms.modules)
    if (own.webhooks) {
      const { adapter, admitShop, onStored } = own.webhooks;
      webhooks[module.name] = webhookHandler(adapter, ingest, logger, {
        ...options,
        ...admitting(module.name, admitShop.bind(own.webhooks), parts.refusedShop),
        onStored: onStored.bind(own.webhooks),
        ...(parts.ownLine ? { toldElsewhere: (shop: string) => parts.ownLine!(module.name, shop) } : {}),
      });
    }
  return webhooks;
}

type Admit = NonNullable<Parameters<typeof webhookHandler>[3]['admitShop']>;

/** The module's own admission, after the bridge's refusal (a stopped demo's shops) if there is one. */
function admitting(
  platform: string,
  own: Admit | undefined,
  refused: WebhookRouteParts['refusedShop'],
): { admitShop?: Admit } {
  if (!refused) return own ? { admitShop: own } : {};
  return { admitShop: async (shop, topic, info) => refused(platform, shop) ?? (await own?.(shop, topic, info)) };
}
