// The admin API under /admin/api: status, orders, resync, dead letters, customers' points, manual
// adjustments, privacy requests, platforms' installs, accounts and shops (admin-accounts.ts). Every route sits
// behind the admin token; input is validated with zod, and a 400 names the field. No answer carries a secret
// or an access token; customers' contact details appear only in the order views and exports asked for.
import { laneStatus } from '../core/lanes.ts';
import express, { type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import type { Activity } from '../activity.ts';
import type { Engine } from '../core/engine.ts';
import { activityWords } from './activity-words.ts';
import { withDetailWords, withWords, wordsOfRecord, type WordsParts } from './order-words-view.ts';
import { letterCallWords, REASON_CODES, reasonWords, STATE_LABELS, stateWords } from '../core/order-words.ts';
import { limitWords, type RateLimiterStats } from '../loyalty/rate-limiter.ts';

import { reconciliationId, type Reconciler } from '../core/reconciler.ts';
import type { ResyncJobs } from '../core/resync-jobs.ts';
import type { CustomerMatch, ReconciliationState } from '../core/store/ledger-store.ts';
import type { LoyaltyClient } from '../loyalty/client.ts';
import { LoyaltyError } from '../loyalty/errors.ts';
import type { UpstreamHealth } from '../loyalty/health.ts';
import { TRANSACTION_TYPES } from '../loyalty/protocol.ts';
import type { Logger } from '../logger.ts';
import type { Platforms } from '../composition/platforms.ts';
import { platformName } from '../composition/platform-registry.ts';
import type { AccountView } from '../accounts/account-view.ts';
import type { AccountRegistry } from '../accounts/registry.ts';
import type { BridgeSandbox } from '../accounts/sandbox-trials.ts';
import { adminAccounts } from './admin-accounts.ts';
import { accountLoads, operatorView } from '../accounts/account-load.ts';
import { requireAdminToken } from './admin-auth.ts';
import { letterOrderName, operatorProblems } from './problems.ts';
import { BridgeError } from '../errors.ts';
import { DEFAULT_ACCOUNT } from '../core/accounts.ts';
import { earnByPoints, pointsOf, pointsSourceOf, newestOrders } from './order-points-view.ts';
import { stateChart } from './state-chart.ts';
import { RECONCILIATION_KIND } from '../core/store/roles/core-kinds.ts';
import { HEALTH_KIND } from '../core/order-source.ts';

export interface AdminApiParts {
  token: string | undefined;
  /** The loyalty service is the built-in sandbox. */
  sandbox?: boolean;
  /** The bridge's own sandbox, in sandbox mode: the operator may make an account on it. */
  bridgeSandbox?: BridgeSandbox | undefined;
  /** A first run: whether the built-in demo store sends orders now (until a store of the merchant's own is connected). */
  demo?: () => boolean;
  /** Recorded as "who asked" on manual adjustments, privacy requests and changes to accounts. */
  tokenLabel: string;
  /** The loyalty accounts and which shop earns on which (admin-accounts.ts). */
  accounts: AccountRegistry;
  /** The environment's account as it may be shown: its key as a hint. */
  defaultAccount: () => AccountView;
  engine: Engine;
  platforms: Platforms;
  reconciler: Reconciler;
  resyncJobs: ResyncJobs;
  client: LoyaltyClient;
  health: UpstreamHealth;
  activity: Activity;
  logger: Logger;
}

export class BadInput extends BridgeError<'bad_input'> {
  readonly field: string;
  constructor(field: string, message: string) {
    super('bad_input', `${field}: ${message}`);
    this.field = field;
  }
}

export function read<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.join('.') || 'body';
  throw new BadInput(field, issue?.message ?? 'is invalid');
}

export const date = (name: string) =>
  z
    .string({ error: `${name} must be a date like 2026-11-01` })
    .refine((value) => !Number.isNaN(Date.parse(value)), { error: `must be a date like 2026-11-01` })
    .transform((value) => new Date(value));
const email = () =>
  z
    .string()
    .trim()
    .pipe(z.email({ error: 'must be an e-mail address' }));
/** With its country code: a number without one could be several customers' in several countries. */
const mobile = () =>
  z
    .string()
    .trim()
    .regex(/^\+[\d\s().-]{7,20}$/, { error: 'must be a phone number with its country code, like +44 20 7946 0958' });
const platform = () => platformName();
const shop = () => z.string().trim().min(1).max(255);

export const orderQuery = z.strictObject({
  platform: platform().optional(),
  shop: shop().optional(),
  state: z
    .enum(['new', 'earned', 'approved', 'cancelled', 'void', 'skipped'], {
      error: 'must be new, earned, approved, cancelled, void or skipped',
    })
    .optional(),
  reason: z.enum(REASON_CODES, { error: `must be one of ${REASON_CODES.join(', ')}` }).optional(),
  since: date('since').optional(),
  until: date('until').optional(),
  q: z.string().max(200).optional(),
  page: z.coerce.number({ error: 'must be a page number' }).int().min(1, { error: 'must be 1 or more' }).default(1),
  limit: z.coerce
    .number({ error: 'must be a number' })
    .int()
    .min(1)
    .max(200, { error: 'must be at most 200' })
    .default(50),
});

const resyncBody = z.union(
  [
    z.strictObject({
      platform: z.string().min(1, { error: 'is required' }),
      shop: shop().optional(),
      since: date('since'),
      until: date('until').optional(),
    }),
    z.strictObject({
      platform: z.string().min(1, { error: 'is required' }),
      shop: shop().optional(),
      orderIds: z
        .array(z.string().regex(/^\d{1,40}$/, { error: 'must be order ids as digits' }))
        .min(1)
        .max(500),
    }),
  ],
  { error: 'give since (and until), or orderIds' },
);

const accountId = () => z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, { error: 'must be an account id' });

export const customerQuery = z
  .strictObject({
    email: email().optional(),
    mobile: mobile().optional(),
    type: z.enum(TRANSACTION_TYPES, { error: 'must be earn, redeem, all or ledger' }).default('all'),
    /** The loyalty account whose points to read; the default account's when unset. */
    account: accountId().optional(),
  })
  .refine((query) => query.email !== undefined || query.mobile !== undefined, {
    error: 'give email or mobile',
    path: ['email'],
  });

/** Who a privacy request is about: at least an e-mail, a phone or order ids; optionally one platform and shop. */
const customerMatch = z
  .strictObject({
    email: email().optional(),
    phone: mobile().optional(),
    platform: platform().optional(),
    shop: shop().optional(),
    /** A loyalty account: only what belongs to it (its orders, and its shops' dead letters and deliveries). */
    account: z.string().min(1).max(100).optional(),
    orderIds: z
      .union([
        z.array(z.string().regex(/^\d{1,40}$/)),
        z
          .string()
          .regex(/^\d{1,40}(,\d{1,40})*$/)
          .transform((ids) => ids.split(',')),
      ])
      .optional(),
  })
  .refine((body) => body.email !== undefined || body.phone !== undefined || (body.orderIds?.length ?? 0) > 0, {
    error: 'give email, phone or orderIds',
    path: ['email'],
  })
  .refine((body) => !body.shop || body.platform, { error: 'give the platform of the shop', path: ['platform'] });

const toMatch = (body: z.output<typeof customerMatch>): CustomerMatch => ({
  platform: body.platform,
  shop: body.shop,
  emails: body.email ? [body.email] : [],
  phones: body.phone ? [body.phone] : [],
  orderIds: body.orderIds ?? [],
});

const shopEraseOf = (known: readonly string[]) =>
  z.strictObject({
    platform: platformName(known),
    shop: shop(),
    confirm: z.literal(true, { error: 'must be true: everything of this shop is erased for good' }),
  });

export const earnAdjustment = z
  .strictObject({
    /** The points to give: the bridge picks the activity that gives exactly that many (earnByPoints). */
    points: z
      .number({ error: 'must be a whole number of points' })
      .int({ error: 'must be a whole number of points' })
      .positive({ error: 'must be more than 0' })
      .optional(),
    /** Callers from before points: the activity itself. */
    activityId: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'must be an activity id' })
      .optional(),
    name: z.string().trim().min(1, { error: 'is required' }).max(200),
    email: email(),
    mobile: mobile(),
    description: z.string().max(500).optional(),
    reason: z.string().trim().min(3, { error: 'say why, in a few words' }).max(500),
    /** The loyalty account to earn on; the default account's when unset. */
    account: accountId().optional(),
  })
  .refine((body) => (body.points === undefined) !== (body.activityId === undefined), {
    error: 'give the points to give (or, as before, an activityId), not both',
    path: ['points'],
  });

const giveBackBody = z.strictObject({
  activityId: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'must be an activity id' })
    .optional(),
  reason: z.string().trim().min(3, { error: 'say why, in a few words' }).max(500).optional(),
});

export const redeemAdjustment = z
  .strictObject({
    email: email().optional(),
    mobile: mobile().optional(),
    points: z
      .number({ error: 'must be a whole number of points' })
      .int({ error: 'must be a whole number of points' })
      .positive({ error: 'must be more than 0' }),
    reason: z.string().trim().min(3, { error: 'say why, in a few words' }).max(500),
    /** The loyalty account to redeem on; the default account's when unset. */
    account: accountId().optional(),
  })
  .refine((body) => body.email !== undefined || body.mobile !== undefined, {
    error: 'give email or mobile',
    path: ['email'],
  });

export function adminApi(parts: AdminApiParts): express.Router {
  const { engine, platforms, resyncJobs, client, health, activity, logger } = parts;
  const { store, privacy, adjustments } = engine;
  const router = express.Router();
  const shopErase = shopEraseOf(platforms.directory.map(({ name }) => name));
  const wordsParts: WordsParts = {
    store,
    accounts: engine.accounts,
    partsOf: (platform) => platforms.modules.find(({ module }) => module.name === platform)?.parts,
    audience: 'operator',
  };
  // A platform's own words for a reason only it gives, from whichever module gives it.
  const skipReasonsOf = (reason: string) =>
    platforms.modules.find(({ parts: built }) => built.skipReasons?.[reason])?.parts.skipReasons;
  router.use(requireAdminToken(parts.token));
  router.use(express.json({ limit: '100kb' }));

  // Whether this bridge's demo store sends orders now (first-run.ts stops it when a store of the merchant's own is
  // connected, and never starts it beside one), so the dashboard's demo banner goes when it stops.
  const demoPlays = () => parts.demo?.() ?? false;

  const accountLoadsNow = () =>
    accountLoads({
      accounts: parts.accounts,
      store,
      view: operatorView(
        () => engine.worker.spentBudgets,
        () => engine.worker.spentBudgetsSince,
      ),
    });

  router.get('/status', async (_req, res) => {
    const [
      orders,
      deadLetters,
      ledger,
      reconciliation,
      connections,
      dataRequests,
      laneCounts,
      secrets,
      accounts,
      recentOrders,
    ] = await Promise.all([
      store.countOrders(),
      store.countDeadLetters(),
      store.stats(),
      reconciledState(),
      connectionsState(),
      privacy.dataRequests(),
      store.laneCounts(),
      store.secretsStatus(),
      accountLoadsNow(),
      newestOrders(store, engine.accounts),
    ]);
    const demo = demoPlays();
    const problems = await operatorProblems({
      store,
      runtimes: () => engine.accounts.all(),
      records: () => parts.accounts.list(),
      accountOf: (shop) => parts.accounts.accountOf(shop),
      loads: accounts,
      spentLongMs: engine.worker.budgetSpentLongMs,
      now: new Date(),
    });
    res.json({
      // What stops orders earning, each with its cause and fix: the top of the dashboard, status's !! lines.
      problems,
      orders,
      deadLetters,
      worker: engine.worker.stats,
      lanes: laneStatus(laneCounts, engine.worker.lanes, new Date()),
      // Per loyalty account: calls against its limit, its budget, its due work per lane.
      accounts,
      rateLimit: rateLimitView(client.limiter.stats()),
      // Each state and reason listed above in words, with its fix (the codes stay the keys).
      stateWords: Object.fromEntries(Object.keys(orders.byState).map((state) => [state, stateWords(state)])),
      // Each state in a few words, where a sentence does not fit (the orders' filter).
      stateLabels: STATE_LABELS,
      // The states chart's bars, each with its words and tone: a held order apart from the state it plans.
      stateChart: await stateChart(orders.byState, store),
      reasonWords: Object.fromEntries(
        [...Object.keys(orders.skipped), ...Object.keys(orders.attention)].map((reason) => [
          reason,
          reasonWords(reason, { audience: 'operator', platformReasons: skipReasonsOf(reason) }),
        ]),
      ),
      upstream: health.snapshot(),
      ledger: { store: store.kind, ...ledger },
      reconciliation,
      connections,
      privacy: { openDataRequests: dataRequests.length },
      // Key ids are digests, counts are counts: nothing here is a secret.
      secrets,
      // demo: the demo store sends orders now (it stops once a store of the merchant's own is connected).
      mode: { sandbox: parts.sandbox ?? false, demo },
      // The newest orders, each with its points as a number (status prints them).
      recentOrders,
    });
  });

  // "Try again now" after the credentials were put right at the service, instead of waiting for the next probe.
  router.post('/upstream/probe', async (_req, res) => {
    // Every paused account is asked now; what stays paused is listed.
    const still: string[] = [];
    for (const account of await engine.accounts.all()) if (await account.authPause.probeNow()) still.push(account.id);
    res.json({ paused: still.length > 0, accounts: still });
  });

  // Every platform the bridge knows, with the names a person reads: the pages name none of their own.
  router.get('/platforms', (_req, res) => {
    const installs = new Set(
      platforms.modules.flatMap(({ module, parts: built }) => (built.installs ? [module.name] : [])),
    );
    // installs: the operator installs its app on a shop from the dashboard (/admin/api/<name>/shops and /installs).
    res.json({ platforms: platforms.directory.map((each) => ({ ...each, installs: installs.has(each.name) })) });
  });

  router.get('/connections', async (_req, res) => {
    res.json({ connections: await connectionsState() });
  });

  router.get('/activity', (req, res) => {
    const minutes = Math.min(24 * 60, Math.max(10, Number(req.query.minutes) || 180));
    const series = activity.series(minutes);
    // Each series named in words (the chart's legend); the codes stay the keys.
    const platformName = (name: string) =>
      platforms.directory.find((each) => each.name === name)?.names.platform ?? name;
    res.json({ minutes: series, words: activityWords(series, platformName) });
  });

  router.get('/orders', async (req, res) => {
    const query = read(orderQuery, req.query);
    const { total, orders } = await store.listOrders(query);
    const points = await pointsOf(orders, engine.accounts, 'operator');
    const worded = await withWords(wordsParts, orders);
    res.json({
      total,
      page: query.page,
      limit: query.limit,
      orders: worded.map((order, i) => ({ ...order, points: points[i] })),
    });
  });

  // Orders whose redeemed points a cancellation left taken ("points redeemed on a cancelled order").
  router.get('/redeemed-on-cancelled', async (_req, res) => {
    res.json({ orders: await engine.redeemedPoints.list() });
  });
  router.post('/orders/:key/give-back-redeemed', async (req, res) => {
    const body = read(giveBackBody, req.body);
    const result = await engine.redeemedPoints.giveBack(String(req.params.key), {
      by: parts.tokenLabel,
      reason: body.reason,
      activityId: body.activityId,
    });
    switch (result.kind) {
      case 'given':
        return void res.status(201).json({ adjustment: result.adjustment });
      case 'refused':
        return void res.status(result.status).json({ error: result.reason });
      case 'failed':
        return void adjusted(res, { adjustment: result.adjustment, error: result.error });
      case 'unknown':
        return void adjusted(res, { adjustment: result.adjustment, deadLetter: result.deadLetter });
    }
  });

  router.get('/orders/:key', async (req, res) => {
    const order = await store.getOrder(String(req.params.key));
    if (!order) return void res.status(404).json({ error: `no order ${req.params.key}` });
    const [points] = await pointsOf([pointsSourceOf(order)], engine.accounts, 'operator');
    res.json({ order: { ...withDetailWords(order), points, words: await wordsOfRecord(wordsParts, order) } });
  });

  router.post('/resync', async (req, res) => {
    const body = read(resyncBody, req.body);
    const started = await resyncJobs.start(body);
    if (!started.ok)
      throw new BadInput(
        started.reason.startsWith('loyalty-bridge has no API access to') ? 'shop' : 'platform',
        started.reason,
      );
    res.status(202).location(`/admin/api/resync/${started.job.id}`).json({ job: started.job });
  });
  router.get('/resync', async (_req, res) => {
    res.json({ jobs: await resyncJobs.list() });
  });
  router.get('/resync/:id', async (req, res) => {
    const job = await resyncJobs.get(String(req.params.id));
    if (!job) return void res.status(404).json({ error: `no resync ${req.params.id}` });
    res.json({ job });
  });

  // Each with its order's name as the store shows it (#1001) beside the key: people know orders by it.
  router.get('/dead-letters', async (_req, res) => {
    const letters = (await store.listDeadLetters()).reverse();
    res.json({
      deadLetters: await Promise.all(
        letters.map(async (letter) => ({
          ...letter,
          orderName: (await letterOrderName(store, letter)) ?? null,
          callWords: letterCallWords(letter),
        })),
      ),
    });
  });
  router.get('/dead-letters/:id', async (req, res) => {
    const letter = await store.getDeadLetter(String(req.params.id));
    if (!letter) return void res.status(404).json({ error: `no dead letter ${req.params.id}` });
    res.json({ deadLetter: { ...letter, orderName: (await letterOrderName(store, letter)) ?? null } });
  });
  router.post('/dead-letters/retry-all', async (_req, res) => {
    const results = [];
    for (const listed of await store.listDeadLetters()) {
      // Listed letters may come without their delivery: read each whole before sending it again.
      const letter = await store.getDeadLetter(listed.id);
      // A bulk retry is backfill: live orders go before it.
      if (letter) results.push({ id: letter.id, ...(await engine.retryDeadLetter(letter, 'backfill')) });
    }
    logger.info({ count: results.length, by: parts.tokenLabel }, 'every dead letter retried');
    res.json({ results });
  });
  router.post('/dead-letters/:id/retry', async (req, res) => {
    const letter = await store.getDeadLetter(String(req.params.id));
    if (!letter) return void res.status(404).json({ error: `no dead letter ${req.params.id}` });
    const result = await engine.retryDeadLetter(letter);
    logger.info(
      { deadLetter: letter.id, kind: letter.kind, retried: result.retried, by: parts.tokenLabel },
      'dead letter retried',
    );
    res.status(result.retried ? 200 : 409).json(result);
  });
  router.delete('/dead-letters/:id', async (req, res) => {
    const letter = await engine.discardDeadLetter(String(req.params.id));
    if (!letter) return void res.status(404).json({ error: `no dead letter ${req.params.id}` });
    logger.info({ deadLetter: letter.id, kind: letter.kind, by: parts.tokenLabel }, 'dead letter discarded');
    res.json({ discarded: letter.id });
  });

  router.get('/customers/points', async (req, res) => {
    const query = read(customerQuery, req.query);
    const account = query.account ? await engine.accounts.runtime(query.account) : undefined;
    if (query.account && !account?.client.transactions)
      return void res.status(404).json({ error: `no account ${query.account}` });
    const transactions = account?.client.transactions?.bind(account.client) ?? client.transactions.bind(client);
    const result = await transactions({
      type: query.type,
      ...(query.email ? { email: query.email } : { mobile: query.mobile ?? '' }),
    });
    res.json({ type: query.type, account: query.account ?? 'default', ...result.data });
  });

  // Privacy: what the bridge holds about a customer, erasing it, erasing a shop.
  router.get('/customers/export', async (req, res) => {
    const query = read(customerMatch, req.query);
    const match = toMatch(query);
    const data = await privacy.exportCustomer(match, query.account);
    await privacy.noteExport(match, 'admin');
    res.set('content-disposition', 'attachment; filename="customer-data.json"').json({
      exportedAt: new Date().toISOString(),
      request: { platform: match.platform ?? null, shop: match.shop ?? null, account: query.account ?? null },
      ...data,
    });
  });
  router.post('/customers/erase', async (req, res) => {
    const body = read(customerMatch, req.body);
    const report = await privacy.eraseCustomer(toMatch(body), 'admin', body.account);
    res.json({ erased: report });
  });
  router.post('/shops/erase', async (req, res) => {
    const body = read(shopErase, req.body);
    res.json({ erased: await privacy.eraseShop(body.platform, body.shop, 'admin') });
  });
  router.get('/privacy', async (_req, res) => {
    res.json({ dataRequests: await privacy.dataRequests(), log: await privacy.log() });
  });
  router.delete('/privacy/data-requests/:id', async (req, res) => {
    const removed = await privacy.closeDataRequest(String(req.params.id));
    if (!removed) return void res.status(404).json({ error: `no data request ${req.params.id}` });
    res.json({ closed: req.params.id });
  });

  router.get('/adjustments', async (_req, res) => {
    res.json({ adjustments: await adjustments.list() });
  });
  // An adjustment names its account: one no bridge knows is refused, never sent (it would be a dead letter in doubt).
  const knownAccount = async (res: express.Response, account: string | undefined) => {
    if (account === undefined || (await engine.accounts.runtime(account))) return true;
    res.status(404).json({ error: `no account ${account}` });
    return false;
  };
  router.post('/adjustments/earn', async (req, res) => {
    const body = read(earnAdjustment, req.body);
    if (!(await knownAccount(res, body.account))) return;
    const picked = await earnByPoints(body, engine.accounts, body.account ?? DEFAULT_ACCOUNT, 'operator');
    if (!picked.ok) throw new BadInput('points', picked.why);
    adjusted(res, await adjustments.earn(picked.request, parts.tokenLabel));
  });
  router.post('/adjustments/redeem', async (req, res) => {
    const body = read(redeemAdjustment, req.body);
    if (await knownAccount(res, body.account)) adjusted(res, await adjustments.redeem(body, parts.tokenLabel));
  });

  router.use(
    adminAccounts({
      accounts: parts.accounts,
      store,
      platforms,
      tokenLabel: parts.tokenLabel,
      defaultAccount: parts.defaultAccount,
      loads: accountLoadsNow,
      bridgeSandbox: parts.bridgeSandbox,
    }),
  );

  router.get('/reconciliation', async (_req, res) => {
    res.json({ platforms: await reconciledState() });
  });

  // A platform whose app the operator installs from the dashboard: its shops, and an install started here, which makes
  // the shop one of the bridge's; the page then goes where the platform says (its consent screen).
  for (const { module, parts: built } of platforms.modules) {
    const installs = built.installs;
    if (!installs) continue;
    router.get(`/${module.name}/shops`, async (_req, res) => {
      res.json({ canInstall: installs.canInstall(), example: installs.example, shops: await installs.shops() });
    });
    router.post(`/${module.name}/installs`, async (req, res) => {
      const { shop: wanted } = read(installs.input, req.body);
      if (!installs.canInstall()) throw new BadInput('shop', installs.cannotInstall);
      const { next } = await installs.start(wanted, parts.tokenLabel);
      res.status(201).json({ shop: wanted, next });
    });
  }

  router.use((_req, res) => {
    res.status(404).json({ error: 'not found' });
  });
  router.use((error: Error & { status?: number; type?: string }, _req: Request, res: Response, _next: NextFunction) => {
    if (error instanceof BadInput) return void res.status(400).json({ error: error.message, field: error.field });
    if (error.type === 'entity.parse.failed')
      return void res.status(400).json({ error: 'body: is not valid JSON', field: 'body' });
    if (error.type === 'entity.too.large') return void res.status(413).json({ error: 'the body is too large' });
    if (error instanceof LoyaltyError) {
      // The service's own words, never our credentials. Refused: 422 (the request was fine, the service said no); unreachable: 502.
      return void res.status(error.retryable ? 502 : 422).json({
        error: error.message,
        service: { httpStatus: error.httpStatus, message: error.serviceMessage, detail: error.detail },
      });
    }
    if (error.status && error.status >= 400 && error.status < 500)
      return void res.status(error.status).json({ error: 'the request could not be read' });
    logger.error({ err: error }, 'admin API error');
    res.status(500).json({ error: 'internal error' });
  });
  return router;

  function adjusted(res: Response, { adjustment, error, deadLetter }: Awaited<ReturnType<typeof adjustments.earn>>) {
    if (adjustment.outcome === 'success') return void res.status(201).json({ adjustment });
    const refused = error instanceof LoyaltyError && !error.retryable;
    res
      .status(refused ? 422 : 502)
      .json({ error: adjustment.message, adjustment, ...(deadLetter ? { deadLetter: deadLetter.id } : {}) });
  }

  async function reconciledState() {
    const states = await store.listRecords(RECONCILIATION_KIND);
    const result: Record<string, ReconciliationState & { platform: string; shop: string | null }> = {};
    // What a resync reads (a first run's demo shops among them), not only the platforms' own: the dashboard
    // offers what POST /resync starts.
    for (const source of resyncJobs.sources) {
      const shops = await source.shops().catch(() => [] as string[]);
      for (const each of shops.length > 0 ? shops : ['']) {
        const state = states.find(({ id }) => id === reconciliationId(source.platform, each))?.value;
        result[shops.length > 1 ? reconciliationId(source.platform, each) : source.platform] = {
          platform: source.platform,
          shop: each || null,
          highWaterMark: state?.highWaterMark ?? null,
          lastRun: state?.lastRun ?? null,
        };
      }
    }
    return result;
  }

  /** Per platform: deliveries in the last hour, the last one, signature failures, and what the platform says of our subscriptions. */
  async function connectionsState() {
    const reports = (await store.listRecords(HEALTH_KIND)).map(({ value }) => value);
    const notesOf = async (name: string) => {
      const built = platforms.modules.find(({ module }) => module.name === name);
      const notes = built?.parts.operatorNotes;
      // What to do about topics declared but not yet seen delivered: the module's own words, as the CLI's status says.
      const unconfirmed = built?.module.unconfirmedWhy;
      if (!notes && !unconfirmed) return {};
      return { notes: { notServed: notes?.notServed, unconfirmed, attention: (await notes?.attention?.()) ?? [] } };
    };
    // Store API: what a resync reads (the demo's shops too); only a platform's own source has subscriptions.
    const reads = (name: string) => resyncJobs.sources.some((source) => source.platform === name);
    return Promise.all(
      platforms.directory
        .filter(({ name }) => platforms.adapterFor(name) || reads(name))
        .map(async ({ name, names }) => ({
          platform: name,
          label: names.platform,
          webhooks: Boolean(platforms.adapterFor(name)),
          ...{ api: reads(name), subscriptionsHeld: platforms.sources.some((each) => each.platform === name) },
          ...activity.platform(name),
          subscriptions: reports.filter((report) => report.platform === name),
          // In the operator's words, the module's own: how to serve a shop, what needs their eye.
          ...(await notesOf(name)),
        })),
    );
  }
}

/** The limiter's figures, and the same in words: why it sends fewer calls than the service allows. */
const rateLimitView = (stats: RateLimiterStats) => ({ ...stats, words: limitWords(stats.startedInWindow, stats) });
