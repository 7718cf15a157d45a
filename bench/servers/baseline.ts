// Baselines for the acknowledgement benchmark, on the same machine and stack
// as the bridge: a bare express 5 route that reads the raw body and answers
// 200 (BASELINE=bare); the same route that also verifies the Shopify HMAC
// (BASELINE=hmac); and the durable baseline (BASELINE=durable), which answers
// only once the body is on disk: what arrives in one turn of the event loop
// is appended to a file as one batch and fdatasynced, up to four batches at
// once, the group commit the bridge's inbox uses. It is the physical limit of
// a durable acknowledgement on this disk and this stack.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
    const expected = createHmac('sha256', secret)
      .update(req.body as Buffer)
      .digest();
    const given = Buffer.from(String(req.headers['x-shopify-hmac-sha256'] ?? ''), 'base64');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      res.status(401).end();
      return;
    }
  }
  if (mode === 'durable') {
    void durably(req.body as Buffer).then(
      () => res.status(200).json({ result: 'accepted' }),
      () => res.status(503).end(),
    );
    return;
  }
  res.status(200).json({ result: 'accepted' });
});

const log =
  mode === 'durable'
    ? await open(join(mkdtempSync(join(tmpdir(), 'bench-durable-')), 'bodies.log'), 'a', 0o600)
    : undefined;
const MAX_WRITES = 4;
let batch: Array<{ body: Buffer; done: () => void; failed: (error: unknown) => void }> = [];
let writes = 0;
let scheduled = false;

function durably(body: Buffer): Promise<void> {
  return new Promise((done, failed) => {
    batch.push({ body, done, failed });
    schedule();
  });
}

function schedule(): void {
  if (scheduled || writes >= MAX_WRITES || batch.length === 0) return;
  scheduled = true;
  setImmediate(() => {
    scheduled = false;
    const taken = batch;
    batch = [];
    writes++;
    void (async () => {
      await log!.write(Buffer.concat(taken.map((each) => each.body)));
      await log!.datasync();
    })()
      .then(
        () => taken.forEach((each) => each.done()),
        (error: unknown) => taken.forEach((each) => each.failed(error)),
      )
      .finally(() => {
        writes--;
        schedule();
      });
  });
}
await listen(app, Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1');
