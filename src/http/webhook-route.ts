// One webhook route per platform, the same for all: verify the exact bytes,
// then acknowledge only once the delivery is on disk.
//   401 / 400  not authentic / missing required headers: nothing is stored
//   200        accepted, duplicate, ignored, recorded, or dead-lettered: an
//              authentic delivery is always acknowledged, because a non-2xx
//              makes the platform retry for hours and can get the
//              subscription deleted
//   413        body over the limit
//   503        the ledger could not be written: the platform should retry
import express, { type NextFunction, type Request, type Response } from 'express';
import type { PlatformAdapter } from '../../adapters/adapter.ts';
import type { Engine } from '../core/engine.ts';
import type { Logger } from '../logger.ts';
import type { Metrics } from '../metrics.ts';

export interface WebhookRouteOptions {
  maxBodyBytes: number;
  metrics?: Metrics;
  /** Closed while the bridge stops: deliveries get 503 and are sent again later. */
  gate?: { open: boolean };
}

export type WebhookResult = 'accepted' | 'duplicate' | 'ignored' | 'recorded' | 'dead_lettered' | 'uninstalled';

const MAX_KEPT_BODY = 256 * 1024;

export function webhookRoute<Delivery>(adapter: PlatformAdapter<Delivery>, engine: Engine, logger: Logger, options: WebhookRouteOptions): express.Router {
  const router = express.Router();
  const { ledger } = engine;

  const { platform } = adapter;
  const count = (topic: string, result: string, started: number) => {
    options.metrics?.webhooks.inc({ platform, topic, result });
    options.metrics?.ackLatency.observe({ platform }, (performance.now() - started) / 1000);
  };

  router.post('/', (req: Request, res: Response, next: NextFunction) => {
    if (options.gate && !options.gate.open) {
      res.status(503).set('retry-after', '30').json({ error: 'loyalty-bridge is stopping; please send this again' });
      return;
    }
    (req as Request & { startedAt?: number }).startedAt = performance.now();
    next();
  });
  router.post('/', express.raw({ type: () => true, limit: options.maxBodyBytes }), async (req: Request, res: Response) => {
    const started = (req as Request & { startedAt?: number }).startedAt ?? performance.now();
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const verified = await adapter.verify({ body, headers: req.headers, receivedAt: new Date() });
    if (!verified.ok) {
      logger.warn({ platform, status: verified.status, reason: verified.reason }, 'webhook refused');
      count('unknown', `rejected_${verified.status}`, started);
      res.status(verified.status).json({ error: verified.reason });
      return;
    }
    const { delivery } = verified;
    const { key, topic, shop, aliases = [] } = adapter.describe(delivery);
    const answer = (result: WebhookResult, extra: Record<string, unknown> = {}) => {
      logger.info({ platform, topic, shop, delivery: key, result, ...extra }, 'webhook');
      res.status(200).json({ result, ...extra });
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
      logger.error({ err: error, platform, topic }, 'could not store a webhook delivery');
      res.status(503).json({ error: 'the delivery could not be stored; please send it again' });
      count(topic, 'unavailable', started);
    }
  });

  router.use((error: Error & { type?: string; status?: number }, _req: Request, res: Response, next: NextFunction) => {
    if (error.type === 'entity.too.large') {
      res.status(413).json({ error: `the body is larger than ${options.maxBodyBytes} bytes` });
      options.metrics?.webhooks.inc({ platform, topic: 'unknown', result: 'too_large' });
      return;
    }
    if (error.status && error.status >= 400 && error.status < 500) {
      res.status(error.status).json({ error: 'the request could not be read' });
      return;
    }
    next(error);
  });
  return router;
}
