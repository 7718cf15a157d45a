// One webhook route per platform, the same for all. It only receives: a request with no signature header is
// refused before its body is read; the exact bytes are read within bounds (body-reader.ts), verified,
// described and handed to ingest(), which stores them durably; then it answers. Nothing here waits on another
// server. An authentic delivery is always acknowledged, because a non-2xx makes the platform retry for hours
// and can get the subscription deleted or the hook deactivated. Each answer: docs/stores.md.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DeliveryInfo, PlatformAdapter } from '../core/platform-adapter.ts';
import { storedDelivery } from '../core/platform-adapter.ts';
import type { Ingest } from '../core/ingest.ts';
import { plainLines, type Logger, type PlainLines } from '../logger.ts';
import type { Metrics } from '../metrics.ts';
import { answerOnceDropped, type BodyRead } from './body-reader.ts';
import { requestId } from './request-id.ts';

export interface WebhookRouteOptions {
  /** Reads a body within its limits (body-reader.ts); one reader for every platform's route, so that the limits hold across them. */
  readBody: (req: IncomingMessage, maxBytes?: number) => Promise<BodyRead>;
  metrics?: Metrics;
  /** Closed while the bridge stops: deliveries get 503 and are sent again later. */
  gate?: { open: boolean };
  /** Told of every delivery, for connection health. */
  onDelivery?: (platform: string, result: WebhookResult | `rejected_${number}`) => void;
  /**
   * Whether the bridge serves the delivery's shop (for this topic): a reason
   * when it does not. Such a delivery is authentic, so it is acknowledged
   * (200 ignored, with the reason) and nothing of it is kept.
   */
  admitShop?: (shop: string, topic: string, info: DeliveryInfo) => Promise<string | undefined>;
  /** Told of each delivery from a shop that was not admitted, for the connections panel. */
  onShopRefused?: (platform: string, shop: string) => void;
  /** Told of each delivery stored or found a duplicate, after the answer (which subscriptions deliver). */
  onStored?: (info: DeliveryInfo, result: 'accepted' | 'duplicate') => Promise<void>;
  /** Whether a shop's deliveries are told by a line of their own elsewhere (the first run's demo): this one is at debug. */
  toldElsewhere?: (shop: string) => boolean;
}

export type WebhookResult = 'accepted' | 'duplicate' | 'ignored' | 'mislabelled';

export type WebhookHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

function send(
  res: ServerResponse,
  status: number,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

type Outcome = WebhookResult | `rejected_${number}` | 'too_large' | 'too_slow' | 'busy' | 'unavailable';
type Count = (topic: string, result: Outcome, started: number) => void;

/** Counts each answer and its latency; onDelivery hears of those a platform would see as a delivery's fate. */
function deliveryCounter(platform: string, options: WebhookRouteOptions): Count {
  return (topic, result, started) => {
    options.metrics?.webhooks.inc({ platform, topic, result });
    options.metrics?.ackLatency.observe({ platform }, (performance.now() - started) / 1000);
    if (
      result === 'accepted' ||
      result === 'duplicate' ||
      result === 'ignored' ||
      result === 'mislabelled' ||
      result.startsWith('rejected_')
    )
      options.onDelivery?.(platform, result as WebhookResult);
  };
}

/** Answers a body that could not be read (already counted): nobody to answer once either side is gone. */
function answerUnread(req: IncomingMessage, res: ServerResponse, read: Extract<BodyRead, { ok: false }>): void {
  if (req.destroyed || res.destroyed) return;
  const error = {
    too_large: 'the body is larger than the limit',
    too_slow: 'the body did not arrive in time',
    busy: 'too many deliveries at once; please send this again',
    unreadable: 'the request body could not be read',
  }[read.reason];
  if (read.reason === 'busy') return send(res, read.status, { error }, { 'retry-after': '5' });
  if (read.reason !== 'too_large') return send(res, read.status, { error }, { connection: 'close' });
  return answerOnceDropped(req, (close) => send(res, read.status, { error }, close ? { connection: 'close' } : {}));
}

/** One delivery's exchange, as its answers need it. */
interface Exchange {
  res: ServerResponse;
  reqId: string;
  platform: string;
  started: number;
  count: Count;
}

/** The acknowledgement of an authentic delivery: its line (at debug when told elsewhere), the 200, then the count. */
function acknowledger(
  exchange: Exchange,
  lines: PlainLines,
  options: WebhookRouteOptions,
  { key, shop }: DeliveryInfo,
  label: string,
): (result: WebhookResult, extra?: Record<string, unknown>) => void {
  const { res, reqId, platform, started, count } = exchange;
  return (result, extra = {}) => {
    lines[options.toldElsewhere?.(shop) ? 'debug' : 'info'](
      {
        reqId,
        platform,
        topic: label,
        shop,
        delivery: key,
        result,
        ...(extra.reason === undefined ? {} : { reason: String(extra.reason) }),
      },
      'webhook',
    );
    send(res, 200, { result, ...extra });
    count(label, result, started);
  };
}

/** Acknowledges an authentic body under headers it was not sent with, and keeps nothing of it. */
function answerMislabelled(exchange: Exchange, logger: Logger, { topic, shop }: DeliveryInfo, reason: string): void {
  const { res, reqId, platform, started, count } = exchange;
  logger.warn(
    { reqId, platform, topic, shop, reason },
    'an authentic body under headers it was not sent with: acknowledged, not acted on',
  );
  send(res, 200, { result: 'mislabelled', reason });
  return count(topic, 'mislabelled', started);
}

/** A delivery whose secret could not be read to check it: not known authentic, and not refused for good. */
function answerUncheckable(exchange: Exchange, logger: Logger, error: unknown): void {
  const { res, reqId, platform, started, count } = exchange;
  logger.error({ err: error, reqId, platform }, 'could not check a webhook delivery');
  count('unknown', 'unavailable', started);
  return send(res, 503, { error: 'the delivery could not be checked; please send it again' }, { 'retry-after': '30' });
}

/** A delivery the ledger could not take: the platform sends it again. */
function answerUnstored(exchange: Exchange, logger: Logger, topic: string, error: unknown): void {
  const { res, reqId, platform, started, count } = exchange;
  logger.error({ err: error, reqId, platform, topic }, 'could not store a webhook delivery');
  send(res, 503, { error: 'the delivery could not be stored; please send it again' });
  count(topic, 'unavailable', started);
}

/**
 * A plain Node handler, not an express route: the acknowledgement path is the
 * hottest code in the bridge, and express's router and body parser cost more
 * than the rest of an acknowledgement (npm run bench).
 */
export function webhookHandler<Delivery>(
  adapter: PlatformAdapter<Delivery>,
  ingest: Ingest,
  logger: Logger,
  options: WebhookRouteOptions,
): WebhookHandler {
  const { platform } = adapter;
  const lines = plainLines(logger);
  const count = deliveryCounter(platform, options);

  return async (req, res) => {
    const started = performance.now();
    const reqId = requestId(req, res);
    if (req.method !== 'POST') return send(res, 405, { error: 'webhooks are POSTed' }, { allow: 'POST' });
    if (options.gate && !options.gate.open)
      return send(res, 503, { error: 'loyalty-bridge is stopping; please send this again' }, { 'retry-after': '30' });

    const preflight = adapter.preflight(req.headers);
    if (!preflight.ok) {
      count('unknown', 'rejected_401', started);
      // The body is never read: the connection closes after the answer, with whatever of it is still on its way.
      return send(res, 401, { error: preflight.reason }, { connection: 'close' });
    }
    const read = await options.readBody(req, preflight.maxBodyBytes);
    if (!read.ok) {
      count('unknown', read.reason === 'unreadable' ? 'rejected_400' : read.reason, started);
      return answerUnread(req, res, read);
    }
    const body = read.body;
    const exchange: Exchange = { res, reqId, platform, started, count };

    const receivedAt = new Date();
    let verified: Awaited<ReturnType<typeof adapter.verify>>;
    try {
      verified = await adapter.verify({ body, headers: req.headers, receivedAt });
    } catch (error) {
      // The secret it is checked with could not be read: not known authentic, and not refused for good.
      // Nothing awaits this handler, so an error let through would end the process.
      return answerUncheckable(exchange, logger, error);
    }
    if (!verified.ok) {
      logger.warn({ reqId, platform, status: verified.status, reason: verified.reason }, 'webhook refused');
      count('unknown', `rejected_${verified.status}`, started);
      return send(res, verified.status, { error: verified.reason });
    }
    const info = adapter.describe(verified.delivery);
    const { key, topic, shop, aliases = [], ignore, mislabelled } = info;
    // Topics named by an unsigned header: only those the platform's adapter uses are labels of their own.
    const label = ignore ? 'other' : topic;
    const answer = acknowledger(exchange, lines, options, info, label);
    if (ignore) return answer('ignored', { reason: ignore });
    if (mislabelled) return answerMislabelled(exchange, logger, info, mislabelled);

    try {
      const refused = await options.admitShop?.(shop, topic, info);
      if (refused) {
        options.onShopRefused?.(platform, shop);
        return answer('ignored', { reason: refused });
      }
      const kept = adapter.keptBody?.(topic, body);
      const result = await ingest.delivery(key, storedDelivery(platform, info, body, receivedAt, kept), aliases);
      answer(result);
      options
        .onStored?.(info, result)
        .catch((error: unknown) =>
          logger.warn({ err: error, reqId, platform, topic }, 'could not note how a delivery came'),
        );
      return;
    } catch (error) {
      answerUnstored(exchange, logger, topic, error);
    }
  };
}
