// Baselines for the acknowledgement benchmark, on the same machine and stack
// as the bridge: a bare express 5 route that reads the raw body and answers
// 200 (BASELINE=bare), and the same route that also verifies the Shopify HMAC
// (BASELINE=hmac).
import { createHmac, timingSafeEqual } from 'node:crypto';
import express from 'express';
import { listen } from '../../src/http/listen.ts';

const mode = process.env.BASELINE ?? 'bare';
const secret = process.env.SHOPIFY_API_SECRET ?? '';
const app = express();
app.get('/healthz', (_req, res) => {
  res.json({ status: 'ok' });
});
app.post('/webhooks/shopify', express.raw({ type: () => true, limit: '1mb' }), (req, res) => {
  if (mode === 'hmac') {
    const expected = createHmac('sha256', secret).update(req.body as Buffer).digest();
    const given = Buffer.from(String(req.headers['x-shopify-hmac-sha256'] ?? ''), 'base64');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      res.status(401).end();
      return;
    }
  }
  res.status(200).json({ result: 'accepted' });
});
await listen(app, Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1');
