// One webhook route per platform, the same for all: verify the exact bytes,
// then acknowledge only once the delivery is on disk.
//   401 / 400  not authentic / missing required headers: nothing is stored
//   200        accepted, duplicate, ignored, recorded, or dead-lettered: an
//              authentic delivery is always acknowledged, because a non-2xx
//              makes the platform retry for hours and can get the
//              subscription deleted
//   413        body over the limit
//   503        the ledger could not be written: the platform should retry
import type { IncomingMessage, ServerResponse } from 'node:http';
import getRawBody from 'raw-body';
import type { PlatformAdapter } from '../../adapters/adapter.ts';
import type { Engine } from '../core/engine.ts';
import type { Logger } from '../logger.ts';
import type { Metrics } from '../metrics.ts';
import { requestId } from './request-id.ts';

export interface WebhookRouteOptions {
  maxBodyBytes: number;
  metrics?: Metrics;
  /** Closed while the bridge stops: deliveries get 503 and are sent again later. */
  gate?: { open: boolean };
}

export type WebhookResult = 'accepted' | 'duplicate' | 'ignored' | 'recorded' | 'dead_lettered' | 'uninstalled';

export type WebhookHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

const MAX_KEPT_BODY = 256 * 1024;

function send(res: ServerResponse, status: number, body: Record<string, unknown>, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/**
 * A plain Node handler, not an express route: the acknowledgement path is the
 * hottest code in the bridge, and express's router and body parser cost more
 * than the rest of an acknowledgement (npm run bench).
 */
export function webhookHandler<Delivery>(adapter: PlatformAdapter<Delivery>, engine: Engine, logger: Logger, options: WebhookRouteOptions): WebhookHandler {
  const { ledger } = engine;
  const { platform } = adapter;
  const count = (topic: string, result: string, started: number) => {
    options.metrics?.webhooks.inc({ platform, topic, result });
    options.metrics?.ackLatency.observe({ platform }, (performance.now() - started) / 1000);
  };

  return async (req, res) => {
    const started = performance.now();
    const reqId = requestId(req, res);
    if (req.method !== 'POST') return send(res, 405, { error: 'webhooks are POSTed' }, { allow: 'POST' });
    if (options.gate && !options.gate.open) return send(res, 503, { error: 'loyalty-bridge is stopping; please send this again' }, { 'retry-after': '30' });

    let body: Buffer;
    try {
      body = await getRawBody(req, { limit: options.maxBodyBytes, length: req.headers['content-length'] });
    } catch (error) {
      const tooLarge = (error as { type?: string }).type === 'entity.too.large';
      if (tooLarge) options.metrics?.webhooks.inc({ platform, topic: 'unknown', result: 'too_large' });
      return send(res, tooLarge ? 413 : 400, { error: tooLarge ? `the body is larger than ${options.maxBodyBytes} bytes` : 'the request body could not be read' });
    }

    const verified = await adapter.verify({ body, headers: req.headers, receivedAt: new Date() });
    if (!verified.ok) {
      logger.warn({ reqId, platform, status: verified.status, reason: verified.reason }, 'webhook refused');
      count('unknown', `rejected_${verified.status}`, started);
      return send(res, verified.status, { error: verified.reason });
    }
    const { delivery } = verified;
    const { key, topic, shop, aliases = [] } = adapter.describe(delivery);
    const answer = (result: WebhookResult, extra: Record<string, unknown> = {}) => {
      logger.info({ reqId, platform, topic, shop, delivery: key, result, ...extra }, 'webhook');
      send(res, 200, { result, ...extra });
      count(topic, result, started);
    };

    try {
      if ([key, ...aliases].some((candidate) => ledger.hasSeen(candidate))) return answer('duplicate');
      const translation = await adapter.toEvents(delivery);
      switch (translation.kind) {
        case 'ignored':
          return answer('ignored', { reason: translation.reason });
        case 'uninstalled':
          await ledger.setShopInstalled(platform, translation.shop, false);
          await engine.accept(key, [], aliases);
          return answer('uninstalled');
        case 'recorded':
          await engine.accept(key, [], aliases);
          return answer('recorded', { reason: translation.reason });
        case 'unusable':
          await engine.accept(key, [], aliases);
          await ledger.addDeadLetter({
            kind: 'delivery',
            reason: translation.reason,
            platform,
            topic,
            shop,
            deliveryKey: key,
            body: body.toString('utf8').slice(0, MAX_KEPT_BODY),
          });
          return answer('dead_lettered', { reason: translation.reason });
        case 'events': {
          if (ledger.isUninstalled(platform, shop)) return answer('ignored', { reason: 'loyalty-bridge was uninstalled from this shop' });
          const result = await engine.accept(key, translation.events, aliases);
          return answer(result);
        }
      }
    } catch (error) {
      logger.error({ err: error, reqId, platform, topic }, 'could not store a webhook delivery');
      send(res, 503, { error: 'the delivery could not be stored; please send it again' });
      count(topic, 'unavailable', started);
    }
  };
}
