// A child process that runs the core on DATA_DIR against LOYALTY_BASE_URL and
// takes deliveries over HTTP, acknowledging each only once it is on disk, as
// the webhook routes do. Crash tests kill it with SIGKILL and start it again.
//   POST /deliveries {key, events}  -> 200 {result} once durable
//   POST /drain                     -> 200 once folded and the worker is idle
import express from 'express';
import { startEngine } from '../../src/core/engine.ts';
import { orderEventSchema } from '../../src/core/order-event.ts';
import { DEFAULT_POLICY } from '../../src/core/policy.ts';
import { listen } from '../../src/http/listen.ts';
import { LoyaltyClient } from '../../src/loyalty/client.ts';
import { createLogger } from '../../src/logger.ts';

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const engine = await startEngine({
  dataDir: env('DATA_DIR'),
  client: new LoyaltyClient({ baseUrl: env('LOYALTY_BASE_URL'), apiKey: env('LOYALTY_API_KEY'), brandId: env('LOYALTY_BRAND_ID'), rateLimitPerMinute: 1_000_000, maxRetries: 0, timeoutMs: 2_000 }),
  policy: DEFAULT_POLICY,
  earnActivityId: '1',
  logger: createLogger({ level: 'silent' }),
  worker: { retryMinDelayMs: 20, retryMaxDelayMs: 200 },
});

const app = express();
app.use(express.json({ limit: '1mb' }));
app.post('/deliveries', async (req, res) => {
  const { key, events } = req.body as { key: string; events: unknown[] };
  const result = await engine.accept(key, events.map((event) => orderEventSchema.parse(event)));
  res.json({ result });
});
app.post('/drain', async (_req, res) => {
  await engine.drain();
  res.json({ drained: true, counts: engine.ledger.counts });
});
const http = await listen(app, 0, '127.0.0.1');
process.stdout.write(`${JSON.stringify({ url: http.localUrl })}\n`);
process.on('SIGTERM', () => {
  void engine.stop().then(() => process.exit(0));
});
