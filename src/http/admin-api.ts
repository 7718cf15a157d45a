// The admin API under /admin/api: orders, resync, dead letters, customers'
// points, manual adjustments, status. Every route sits behind the admin token;
// input is validated with zod and a 400 names the field.
import express, { type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import type { PlatformAdapter, StoredDelivery } from '../../adapters/adapter.ts';
import type { Engine } from '../core/engine.ts';
import { SKIP_REASONS } from '../core/lifecycle.ts';
import { countOrders } from '../core/order-record.ts';
import type { Reconciler } from '../core/reconciler.ts';
import type { ResyncJobs } from '../core/resync-jobs.ts';
import type { DeadLetter } from '../core/store/ledger-store.ts';
import type { LoyaltyClient } from '../loyalty/client.ts';
import { LoyaltyError } from '../loyalty/errors.ts';
import { TRANSACTION_TYPES } from '../loyalty/protocol.ts';
import type { UpstreamHealth } from '../loyalty/health.ts';
import type { Logger } from '../logger.ts';
import { requireAdminToken } from './admin-auth.ts';

export interface AdminApiParts {
  token: string | undefined;
  /** Recorded as "who asked" on manual adjustments. */
  tokenLabel: string;
  engine: Engine;
  reconciler: Reconciler;
  resyncJobs: ResyncJobs;
  client: LoyaltyClient;
  health: UpstreamHealth;
  adapters: Partial<Record<string, PlatformAdapter<unknown>>>;
  logger: Logger;
}

class BadInput extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(`${field}: ${message}`);
    this.field = field;
  }
}

function read<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.join('.') || 'body';
  throw new BadInput(field, issue?.message ?? 'is invalid');
}

const date = (name: string) =>
  z.string({ error: `${name} must be a date like 2026-11-01` }).refine((value) => !Number.isNaN(Date.parse(value)), { error: `must be a date like 2026-11-01` }).transform((value) => new Date(value));
const email = () => z.string().trim().pipe(z.email({ error: 'must be an e-mail address' }));
const mobile = () => z.string().trim().regex(/^\+?[\d\s().-]{7,20}$/, { error: 'must be a phone number' });

const orderQuery = z.strictObject({
  platform: z.enum(['shopify', 'woocommerce', 'bigcommerce'], { error: 'must be shopify, woocommerce or bigcommerce' }).optional(),
  state: z.enum(['new', 'earned', 'approved', 'cancelled', 'void', 'skipped'], { error: 'must be new, earned, approved, cancelled, void or skipped' }).optional(),
  reason: z.enum(SKIP_REASONS, { error: `must be one of ${SKIP_REASONS.join(', ')}` }).optional(),
  since: date('since').optional(),
  until: date('until').optional(),
  q: z.string().max(200).optional(),
  page: z.coerce.number({ error: 'must be a page number' }).int().min(1, { error: 'must be 1 or more' }).default(1),
  limit: z.coerce.number({ error: 'must be a number' }).int().min(1).max(200, { error: 'must be at most 200' }).default(50),
});

const resyncBody = z.union([
  z.strictObject({ platform: z.string().min(1, { error: 'is required' }), since: date('since'), until: date('until').optional() }),
  z.strictObject({ platform: z.string().min(1, { error: 'is required' }), orderIds: z.array(z.string().regex(/^\d{1,40}$/, { error: 'must be order ids as digits' })).min(1).max(500) }),
], { error: 'give since (and until), or orderIds' });

const customerQuery = z
  .strictObject({ email: email().optional(), mobile: mobile().optional(), type: z.enum(TRANSACTION_TYPES, { error: 'must be earn, redeem, all or ledger' }).default('all') })
  .refine((query) => query.email !== undefined || query.mobile !== undefined, { error: 'give email or mobile', path: ['email'] });

const earnAdjustment = z.strictObject({
  activityId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'must be an activity id' }),
  name: z.string().trim().min(1, { error: 'is required' }).max(200),
  email: email(),
  mobile: mobile(),
  description: z.string().max(500).optional(),
  reason: z.string().trim().min(3, { error: 'say why, in a few words' }).max(500),
});

const redeemAdjustment = z
  .strictObject({
    email: email().optional(),
    mobile: mobile().optional(),
    points: z.number({ error: 'must be a whole number of points' }).int({ error: 'must be a whole number of points' }).positive({ error: 'must be more than 0' }),
    reason: z.string().trim().min(3, { error: 'say why, in a few words' }).max(500),
  })
  .refine((body) => body.email !== undefined || body.mobile !== undefined, { error: 'give email or mobile', path: ['email'] });

export function adminApi(parts: AdminApiParts): express.Router {
  const { engine, reconciler, resyncJobs, client, health, adapters, logger } = parts;
  const { ledger } = engine;
  const router = express.Router();
  router.use(requireAdminToken(parts.token));
  router.use(express.json({ limit: '100kb' }));

  router.get('/status', (_req, res) => {
    res.json({
      orders: countOrders(ledger.summaries()),
      deadLetters: ledger.deadLetters().length,
      worker: engine.worker.stats,
      rateLimit: client.limiter.stats(),
      upstream: health.snapshot(),
      ledger: ledger.counts,
      reconciliation: reconciledState(),
    });
  });

  router.get('/orders', (req, res) => {
    const query = read(orderQuery, req.query);
    const needle = query.q?.toLowerCase();
    const matches = [...ledger.summaries()]
      .filter((order) => !query.platform || order.platform === query.platform)
      .filter((order) => !query.state || order.state === query.state)
      .filter((order) => !query.reason || order.reason === query.reason)
      .filter((order) => !query.since || Date.parse(order.updatedAt) >= query.since.getTime())
      .filter((order) => !query.until || Date.parse(order.updatedAt) <= query.until.getTime())
      .filter((order) => !needle || [order.orderId, order.orderName, order.email ?? ''].some((field) => field.toLowerCase().includes(needle)))
      .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
    const start = (query.page - 1) * query.limit;
    res.json({ total: matches.length, page: query.page, limit: query.limit, orders: matches.slice(start, start + query.limit) });
  });

  router.get('/orders/:key', async (req, res) => {
    const order = await ledger.findOrder(String(req.params.key));
    if (!order) return void res.status(404).json({ error: `no order ${req.params.key}` });
    res.json({ order });
  });

  router.post('/resync', (req, res) => {
    const body = read(resyncBody, req.body);
    const job = resyncJobs.start(body);
    if (!job) throw new BadInput('platform', `no API access is configured for ${body.platform} (configured: ${resyncJobs.platforms.join(', ') || 'none'})`);
    res.status(202).location(`/admin/api/resync/${job.id}`).json({ job });
  });
  router.get('/resync', (_req, res) => {
    res.json({ jobs: resyncJobs.list() });
  });
  router.get('/resync/:id', (req, res) => {
    const job = resyncJobs.get(String(req.params.id));
    if (!job) return void res.status(404).json({ error: `no resync ${req.params.id}` });
    res.json({ job });
  });

  router.get('/dead-letters', (_req, res) => {
    res.json({ deadLetters: [...ledger.deadLetters()].reverse() });
  });
  router.post('/dead-letters/retry-all', async (_req, res) => {
    const results = [];
    for (const letter of [...ledger.deadLetters()]) results.push({ id: letter.id, ...(await retry(letter)) });
    res.json({ results });
  });
  router.post('/dead-letters/:id/retry', async (req, res) => {
    const letter = ledger.deadLetters().find((candidate) => candidate.id === req.params.id);
    if (!letter) return void res.status(404).json({ error: `no dead letter ${req.params.id}` });
    const result = await retry(letter);
    res.status(result.retried ? 200 : 409).json(result);
  });
  router.delete('/dead-letters/:id', async (req, res) => {
    const letter = await ledger.removeDeadLetter(String(req.params.id));
    if (!letter) return void res.status(404).json({ error: `no dead letter ${req.params.id}` });
    logger.info({ deadLetter: letter.id, kind: letter.kind, by: parts.tokenLabel }, 'dead letter discarded');
    res.json({ discarded: letter.id });
  });

  router.get('/customers/points', async (req, res) => {
    const query = read(customerQuery, req.query);
    const result = await client.transactions({ type: query.type, ...(query.email ? { email: query.email } : { mobile: query.mobile ?? '' }) });
    res.json({ type: query.type, ...result.data });
  });

  router.get('/adjustments', (_req, res) => {
    res.json({ adjustments: [...ledger.adjustments()].reverse() });
  });
  router.post('/adjustments/earn', async (req, res) => {
    const body = read(earnAdjustment, req.body);
    const call = client.earn({ activityId: body.activityId, name: body.name, email: body.email, mobile: body.mobile, description: body.description ?? `Manual: ${body.reason}` });
    await adjust(res, call, { kind: 'earn', by: parts.tokenLabel, reason: body.reason, activityId: body.activityId, customer: { email: body.email, mobile: body.mobile, name: body.name } });
  });
  router.post('/adjustments/redeem', async (req, res) => {
    const body = read(redeemAdjustment, req.body);
    const call = client.redeem({ points: body.points, ...(body.email ? { email: body.email } : { mobile: body.mobile ?? '' }) });
    await adjust(res, call, { kind: 'redeem', by: parts.tokenLabel, reason: body.reason, points: body.points, customer: { email: body.email, mobile: body.mobile } });
  });

  router.get('/reconciliation', (_req, res) => {
    res.json({ platforms: reconciledState() });
  });

  router.use((_req, res) => {
    res.status(404).json({ error: 'not found' });
  });
  router.use((error: Error & { status?: number; type?: string }, _req: Request, res: Response, _next: NextFunction) => {
    if (error instanceof BadInput) return void res.status(400).json({ error: error.message, field: error.field });
    if (error.type === 'entity.parse.failed') return void res.status(400).json({ error: 'body: is not valid JSON', field: 'body' });
    if (error.type === 'entity.too.large') return void res.status(413).json({ error: 'the body is too large' });
    if (error instanceof LoyaltyError) {
      // The service's own words, never our credentials. Refused: 422 (the request was fine, the service said no); unreachable: 502.
      return void res.status(error.retryable ? 502 : 422).json({ error: error.message, service: { httpStatus: error.httpStatus, message: error.serviceMessage, detail: error.detail } });
    }
    if (error.status && error.status >= 400 && error.status < 500) return void res.status(error.status).json({ error: 'the request could not be read' });
    logger.error({ err: error }, 'admin API error');
    res.status(500).json({ error: 'internal error' });
  });
  return router;

  function reconciledState() {
    const state = ledger.reconciliation();
    return Object.fromEntries(reconciler.platforms.map((platform) => [platform, state[platform] ?? { highWaterMark: null, lastRun: null }]));
  }

  async function adjust(res: Response, call: Promise<{ message: string }>, record: Omit<Parameters<typeof ledger.addAdjustment>[0], 'outcome' | 'message'>) {
    try {
      const result = await call;
      const adjustment = await ledger.addAdjustment({ ...record, outcome: 'success', message: result.message });
      res.status(201).json({ adjustment });
    } catch (error) {
      const message = error instanceof LoyaltyError ? error.summary : (error as Error).message;
      const adjustment = await ledger.addAdjustment({ ...record, outcome: 'failed', message });
      res.status(error instanceof LoyaltyError && !error.retryable ? 422 : 502).json({ error: message, adjustment });
    }
  }

  /** A call is sent again; a delivery is read again by its adapter, now that the cause may be fixed. */
  async function retry(letter: DeadLetter): Promise<{ retried: boolean; reason?: string }> {
    if (letter.kind === 'call') {
      await engine.retryDeadLetter(letter.id);
      logger.info({ deadLetter: letter.id, order: letter.orderKey, by: parts.tokenLabel }, 'dead letter retried');
      return { retried: true };
    }
    const adapter = letter.platform ? adapters[letter.platform] : undefined;
    if (!adapter || letter.body === undefined) return { retried: false, reason: `no ${letter.platform ?? 'platform'} adapter is configured to read it` };
    const stored: StoredDelivery = { key: letter.deliveryKey ?? letter.id, topic: letter.topic ?? '', shop: letter.shop ?? '', body: Buffer.from(letter.body, 'utf8'), receivedAt: new Date(letter.createdAt) };
    const translation = await adapter.toEvents(adapter.restore(stored));
    if (translation.kind === 'unusable') {
      await ledger.updateDeadLetter({ ...letter, reason: translation.reason, retries: letter.retries + 1 });
      return { retried: false, reason: translation.reason };
    }
    if (translation.kind === 'events') await engine.accept(`${stored.key}:retry:${letter.id}`, translation.events);
    await ledger.removeDeadLetter(letter.id);
    logger.info({ deadLetter: letter.id, platform: letter.platform, by: parts.tokenLabel }, 'dead letter retried');
    return { retried: true };
  }
}
