// The admin API as a shop's own page sees it: who is signed in, that shop's orders, data requests, resyncs,
// test orders, attention and dead letters, and the loyalty account it earns on, within a merchant's reach
// (src/accounts/reach.ts; the routes: docs/accounts.md, "A merchant's reach"). Nothing of another shop (404,
// as if it did not exist), no other account, and nothing of the bridge as a whole: those stay with the
// operator's ADMIN_TOKEN, and answer 403 here.
import express, { type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import type { AccountCalls } from '../accounts/account-calls.ts';
import { accountView } from '../accounts/account-view.ts';
import { allowedFor, sameShop, WHY_NOT, type Allowed, type Standing } from '../accounts/reach.ts';
import type { AccountRegistry } from '../accounts/registry.ts';
import { trialAccountInput, type BridgeSandbox } from '../accounts/sandbox-trials.ts';
import type { PlatformParts } from '../core/platform-module.ts';
import type { AdjustmentResult } from '../core/adjustments.ts';
import type { ShopRef } from '../accounts/account-records.ts';
import type { Engine } from '../core/engine.ts';
import type { Ingest } from '../core/ingest.ts';
import type { ResyncJobs } from '../core/resync-jobs.ts';
import type { DataRequestRecord, Privacy } from '../core/privacy.ts';
import type {
  DeadLetter,
  OrderWorkRole,
  OperatorQueries,
  DeadLetterRole,
  RecordRole,
  PrivacyRole,
  LedgerLifecycle,
} from '../core/store/ledger-store.ts';
import type { Logger } from '../logger.ts';
import { isLetterOfShop, shopAttention, type AttentionParts } from './shop-attention.ts';
import { shopLetterView, shopOrderView } from './shop-views.ts';
import { byOf, shopRefOf } from './shop-ref.ts';
import { shopCaps } from './shop-caps.ts';
import { shopTestOrders } from './shop-test-orders.ts';
import { shopStorefrontApi } from './shop-storefront-api.ts';
import { withDetailWords, withWords, wordsOfRecord, type WordsParts } from './order-words-view.ts';
import { orderLabel, orderLine } from '../core/order-words.ts';
import { limiterOf } from '../loyalty/client.ts';
import { limitWords } from '../loyalty/rate-limiter.ts';
import { NOT_AN_OBJECT, objectBody, refuse, SETTINGS_ELSEWHERE } from './admin-accounts.ts';
import { BadInput, customerQuery, date, earnAdjustment, orderQuery, read, redeemAdjustment } from './admin-api.ts';
import { LoyaltyError } from '../loyalty/errors.ts';
import { earnByPoints, merchantReader, pointsOf, pointsSourceOf } from './order-points-view.ts';
import { ADJUSTMENT_KIND } from '../core/store/roles/core-kinds.ts';

/** A shop acts on its own account, which it never names. */
const NAMES_NO_ACCOUNT = 'account: a shop acts on its own account, which it never names';
/** Accounts a shop may make for itself (each made one is kept, with its key, until the operator removes it). */
const ACCOUNTS_PER_SHOP = 3;
/**
 * Points a shop gives or takes back by hand in an hour, counted from the adjustments the
 * ledger keeps (so across instances and restarts). Each is a call with no
 * order id, and one whose outcome is unknown becomes a dead letter for a
 * person to check: a page must not make those by the thousand.
 */
const MANUAL_ADJUSTMENTS_PER_HOUR = 30;
/**
 * Resyncs a shop starts in an hour, counted from the jobs the ledger keeps.
 * Each reads the shop's orders from its platform and queues those that
 * changed as backfill, which lanes keep behind live orders: a few an hour
 * put right what went missing, more would only keep the platform's API busy.
 */
const RESYNCS_PER_HOUR = 3;
/** How far back a shop's page reads: the platforms keep recent orders within reach (60 days, on one platform, without a scope to read older ones). */
const RESYNC_DAYS = 365;
const DAY_MS = 86_400_000;

/** A window of the shop's own orders: a shop never names a platform, a shop, or orders by id (the operator's). */
const shopResync = z
  .strictObject({ since: date('since'), until: date('until').optional() })
  .superRefine(({ since, until }, context) => {
    // Run even when a date did not parse (zod goes on to the object's checks): those are told already.
    if (!(since instanceof Date) || (until !== undefined && !(until instanceof Date))) return;
    const now = Date.now();
    const problem = (path: 'since' | 'until', message: string) =>
      context.addIssue({ code: 'custom', path: [path], message });
    if (since.getTime() > now) problem('since', 'must not be in the future');
    else if (since.getTime() < now - RESYNC_DAYS * DAY_MS)
      problem('since', `must be within the last ${RESYNC_DAYS} days`);
    if (until && until <= since) problem('until', 'must come after since');
  });

export interface ShopAdminApiParts {
  store: OrderWorkRole & OperatorQueries & DeadLetterRole & RecordRole & PrivacyRole & LedgerLifecycle;
  /** A platform's module's parts (platform-module.ts): a shop's own access from its installs, its skip reasons' words. */
  partsOf: (platform: string) => PlatformParts | undefined;
  accounts: AccountRegistry;
  privacy: Privacy;
  /** Sends a dead letter's delivery or call again (engine.retryDeadLetter). */
  retryDeadLetter: Engine['retryDeadLetter'];
  /** A shop's page reads a window of its orders again. */
  resyncJobs: ResyncJobs;
  /** The bridge's own sandbox, in sandbox mode: a merchant's trial account is made there. */
  bridgeSandbox: BridgeSandbox | undefined;
  /** Test orders enter the ledger as a platform's would. */
  ingest: Pick<Ingest, 'events'>;
  /** Each account's own calls in the last minute (account-calls.ts). */
  accountCalls: Pick<AccountCalls, 'lastMinute'>;
  /** Manual earns, recorded with who asked and why. */
  adjustments: Engine['adjustments'];
  /** Since when an account's spent rate budget has been spent, where its own orders found it so: Home says when it is for long. */
  spentSince?: AttentionParts['spentSince'];
  /** How long a budget is spent before Home says so (the worker's budgetSpentLongMs). */
  spentLongMs?: number;
  /** The shop's storefront was turned on (the storefront reader forgets the contacts refused for the shop). */
  storefrontTurnedOn?: (platform: string, shop: string) => void;
  /** The shop's rewards or its storefront changed: open codes of what is no longer offered go now, not at the next sweep. */
  rewardsChanged?: () => void;
  /** The storefront's widget where the bridge puts it on the store (shop-storefront-api.ts). */
  storefrontWidget?: Parameters<typeof shopStorefrontApi>[0]['widget'];
  logger: Logger;
}

/** A shop's query may narrow its own orders, never name a platform or shop. */
const shopOrderQuery = orderQuery.omit({ platform: true, shop: true });

export function shopAdminApi({
  store,
  partsOf,
  accounts,
  privacy,
  retryDeadLetter,
  resyncJobs,
  bridgeSandbox,
  ingest,
  accountCalls,
  adjustments,
  spentSince,
  spentLongMs,
  storefrontTurnedOn,
  rewardsChanged,
  storefrontWidget,
  logger,
}: ShopAdminApiParts): express.Router {
  const router = express.Router();
  router.use(express.json({ limit: '100kb' }));
  const { oneAtATime, hourly } = shopCaps(store);
  /** The words of the shop's orders: a fix in Set up is the operator's where the program is not the shop's to change. */
  const wordsFor = async (res: Response): Promise<WordsParts> => {
    const { allowed } = await reachOf(res);
    return { store, accounts, partsOf, audience: 'merchant', mayChangeProgram: allowed.change || allowed.create };
  };

  router.use(
    shopStorefrontApi({
      store,
      partsOf,
      accounts,
      ...(storefrontTurnedOn ? { turnedOn: storefrontTurnedOn } : {}),
      ...(rewardsChanged ? { rewardsChanged } : {}),
      widget: storefrontWidget,
    }),
  );

  // storeName: what the page calls the shop, its own alone (the platform's module reads it; the shop's name otherwise).
  router.get('/session', async (_req, res) => {
    const ref = shopRefOf(res);
    const storeName = (await partsOf(ref.platform)?.storeName?.(ref.shop)) ?? ref.shop;
    res.json({ caller: 'shop', ...ref, storeName });
  });

  router.get('/orders', async (req, res) => {
    const query = read(shopOrderQuery, req.query);
    const { total, orders } = await store.listOrders({ ...query, ...shopRefOf(res) });
    const parts = await wordsFor(res);
    const points = await pointsOf(orders, accounts, merchantReader(parts.mayChangeProgram));
    const worded = await withWords(parts, orders);
    // The fields points are read from stay here: which account an order went to is the operator's to read.
    const listed = worded.map(({ earnActivityId: _a, account: _b, redeemedPoints: _c, ...order }, i) => ({
      ...order,
      points: points[i],
    }));
    res.json({ total, page: query.page, limit: query.limit, orders: listed });
  });

  router.get('/orders/:key', async (req, res) => {
    const order = await store.getOrder(String(req.params.key));
    // Another shop's order is answered as if it did not exist.
    if (!order || !sameShop(order, shopRefOf(res)))
      return void res.status(404).json({ error: `no order ${req.params.key}` });
    const parts = await wordsFor(res);
    const [points] = await pointsOf([pointsSourceOf(order)], accounts, merchantReader(parts.mayChangeProgram));
    res.json({
      order: {
        ...withDetailWords(shopOrderView(order, shopRefOf(res))),
        points,
        words: await wordsOfRecord(parts, order),
        // The table's one line, and the state alone that heads the reason on the order's detail.
        line: orderLine(order.target ?? { state: 'new' }, Object.keys(order.work.held)),
        label: orderLabel(order.target ?? { state: 'new' }, Object.keys(order.work.held)),
      },
    });
  });

  // Its own platform's installs alone, and only its own shop's access in them.
  router.get('/:platform/shops', async (req, res) => {
    const { platform, shop } = shopRefOf(res);
    const installs = req.params.platform === platform ? partsOf(platform)?.installs : undefined;
    if (!installs) return void res.status(404).json({ error: 'not found' });
    res.json({ canInstall: false, shops: [await installs.describe(shop)] });
  });

  router.get('/account', async (_req, res) => {
    const { standing, allowed, account } = await reachOf(res);
    const record = allowed.read && account ? await accounts.get(account) : undefined;
    // No load of the account (calls, budget): its limiter counts every account with the same key, so a merchant who
    // typed a key would learn whether, and how much, it is used elsewhere (test/security/account-budgets.test.ts).
    res.json({
      account: record ? accountView(record) : null,
      standing,
      may: { read: allowed.read, change: allowed.change, create: allowed.create },
      // In sandbox mode a new account may be a trial on the bridge's sandbox.
      sandboxTrial: Boolean(bridgeSandbox),
      ...(WHY_NOT[standing] ? { note: WHY_NOT[standing] } : {}),
    });
  });

  router.post('/account', async (req, res) => {
    const { standing, allowed } = await reachOf(res);
    if (!allowed.create) return refuse(res, 403, [WHY_NOT[standing]]);
    const body = objectBody(req.body);
    if (!body.ok) return refuse(res, 400, [NOT_AN_OBJECT]);
    const shop = shopRefOf(res);
    // Counted and made in one step per shop, on every instance: a burst of requests makes no more than the cap.
    await oneAtATime(res, 'account', async () => {
      // Each account checks its credentials at an address the merchant gives, and keeps a key: a few per shop.
      const made = (await accounts.list()).filter((each) => each.madeFor && sameShop(each.madeFor, shop));
      if (made.length >= ACCOUNTS_PER_SHOP)
        return refuse(res, 409, [
          `this shop has made ${made.length} loyalty accounts already: change the one it earns on, or ask the bridge’s operator to remove one`,
        ]);
      const trial = 'sandbox' in body.value ? trialAccountInput(bridgeSandbox, body.value) : undefined;
      if (trial && !trial.ok) return refuse(res, trial.status, trial.errors);
      const input = trial?.input ?? body.value;
      const created = await accounts.create(input, byOf(res), shop, trial ? { onBridgeSandbox: true } : {});
      if (!created.ok) {
        // A trial refused after the sandbox made its account leaves nothing there (nor a merchant a way to fill it).
        if (trial) bridgeSandbox?.removeAccount(String(input.brandId));
        return refuse(res, created.status, created.errors);
      }
      const linked = await accounts.link(shop, created.value.id, byOf(res));
      if (!linked.ok) return refuse(res, linked.status, linked.errors);
      logger.info({ shop: shop.shop, account: created.value.id }, 'a shop made a loyalty account of its own');
      res.status(201).json({ account: accountView(created.value) });
    });
  });

  router.get('/account/settings', async (_req, res) => {
    const { standing, allowed, account } = await reachOf(res);
    if (!allowed.read || !account) return refuse(res, 403, [WHY_NOT[standing]]);
    const record = await accounts.get(account);
    res.json({ account, settings: await accounts.effectiveSettings(account), saved: record?.settings ?? {} });
  });

  router.patch('/account', async (req, res) => {
    const { standing, allowed, account } = await reachOf(res);
    if (!allowed.change || !account) return refuse(res, 403, [WHY_NOT[standing]]);
    const body = objectBody(req.body);
    if (!body.ok) return refuse(res, 400, [NOT_AN_OBJECT]);
    if ('settings' in body.value) return refuse(res, 400, [SETTINGS_ELSEWHERE]);
    const changed = await accounts.update(account, body.value, byOf(res), stillOwn(res, account));
    if (!changed.ok) return refuse(res, changed.status, changed.errors);
    res.json({ account: accountView(changed.value) });
  });

  router.patch('/account/settings', async (req, res) => {
    const { standing, allowed, account } = await reachOf(res);
    if (!allowed.change || !account) return refuse(res, 403, [WHY_NOT[standing]]);
    const body = objectBody(req.body);
    if (!body.ok) return refuse(res, 400, [NOT_AN_OBJECT]);
    const changed = await accounts.setSettings(account, body.value, byOf(res), stillOwn(res, account));
    if (!changed.ok) return refuse(res, changed.status, changed.errors);
    res.json({ account, settings: await accounts.effectiveSettings(account), saved: changed.value.settings });
  });

  // The account's own calls against its limit: counted by the account, never by its key (account-calls.ts), so
  // nothing another account does with the same key shows. This instance's count: each instance sends its own.
  router.get('/account/usage', async (_req, res) => {
    const account = await ownAccount(res, 'read');
    if (!account) return;
    const record = await accounts.get(account);
    if (!record) return refuse(res, 404, [`no account ${account}`]);
    const calls = accountCalls.lastMinute(account);
    const limiter = limiterOf((await accounts.runtime(account))?.client)?.stats();
    const sentPerMinute = limiter?.effectiveLimit ?? record.rateLimitPerMinute;
    const limit = {
      limit: record.rateLimitPerMinute,
      effectiveLimit: sentPerMinute,
      windowMs: limiter?.windowMs ?? 60_000,
    };
    res.json({
      account,
      callsInLastMinute: calls,
      allowedPerMinute: record.rateLimitPerMinute,
      sentPerMinute,
      // Counted by the account, against its own limit (a shared key's other calls are not the merchant's to see).
      words: limitWords(calls, limit),
    });
  });

  // A customer's points, on an account of the shop's own only: another account's customers are not the shop's.
  router.get('/customers/points', async (req, res) => {
    const account = await ownAccount(res, 'read');
    if (!account) return;
    const query = read(customerQuery, req.query);
    if (query.account !== undefined) return refuse(res, 400, [NAMES_NO_ACCOUNT]);
    const runtime = await accounts.runtime(account);
    if (!runtime?.client.transactions) return refuse(res, 404, [`no account ${account}`]);
    const result = await runtime.client.transactions({
      type: query.type,
      ...(query.email ? { email: query.email } : { mobile: query.mobile ?? '' }),
    });
    res.json({ type: query.type, ...result.data });
  });

  // Points given or taken back by hand (a goodwill gesture, a lost order; points given in error), on an account of the
  // shop's own, recorded with who and why.
  router.post('/adjustments/earn', (req, res) =>
    byHand(req, res, earnAdjustment, async (request, by) => {
      const picked = await earnByPoints(request, accounts, request.account, 'merchant');
      if (!picked.ok) throw new BadInput('points', picked.why);
      return adjustments.earn(picked.request, by);
    }),
  );
  router.post('/adjustments/redeem', (req, res) =>
    byHand(req, res, redeemAdjustment, adjustments.redeem.bind(adjustments)),
  );

  // Customers' data requests (a platform's compliance webhook), which the merchant must answer within 30 days.
  router.get('/privacy/data-requests', async (_req, res) => {
    const own = (await privacy.dataRequests()).filter((request) => isOwn(res, request));
    res.json({ dataRequests: own });
  });

  router.get('/privacy/data-requests/:id/export', async (req, res) => {
    const request = await ownRequest(res, String(req.params.id));
    if (!request) return void res.status(404).json({ error: `no data request ${req.params.id}` });
    const match = {
      platform: request.platform,
      shop: request.shop,
      emails: request.customer.email ? [request.customer.email] : [],
      phones: request.customer.phone ? [request.customer.phone] : [],
      orderIds: request.orderIds,
    };
    // Manual adjustments the operator made are the loyalty account's, for a customer by e-mail or phone in any shop:
    // not this shop's to read (a data request names whatever contact the merchant gave their customer). Those the
    // shop's own page made are its own.
    const { adjustments: all, orders, deadLetters, inbox, dataRequests } = await privacy.exportCustomer(match);
    const shop = shopRefOf(res);
    // Views, as every answer to a shop: an order's errors may name another store's order (an lp_orderid collision).
    const data = {
      orders: orders.filter((order) => sameShop(order, shop)).map((order) => shopOrderView(order, shop)),
      deadLetters: deadLetters
        .filter((letter) => isLetterOfShop(letter, shop))
        .map((letter) => ({ ...shopLetterView(letter, shop), delivery: letter.delivery ?? null })),
      inbox,
      adjustments: all.filter((each) => each.platform === request.platform && each.shop === request.shop),
      dataRequests,
    };
    await privacy.noteExport(match, 'shop');
    logger.info({ shop: request.shop, request: request.id, by: byOf(res) }, 'a shop exported a customer’s data');
    res.set('content-disposition', `attachment; filename="data-request-${request.requestId ?? request.id}.json"`).json({
      exportedAt: new Date().toISOString(),
      request: { id: request.id, requestId: request.requestId ?? null, platform: request.platform, shop: request.shop },
      ...data,
    });
  });

  router.delete('/privacy/data-requests/:id', async (req, res) => {
    const request = await ownRequest(res, String(req.params.id));
    if (!request || !(await privacy.closeDataRequest(request.id)))
      return void res.status(404).json({ error: `no data request ${req.params.id}` });
    logger.info(
      { shop: request.shop, request: request.id, by: byOf(res) },
      'a shop answered a customer’s data request',
    );
    res.json({ closed: request.id });
  });

  // A window of the shop's orders read again: what a lost webhook or an outage let slip is put right.
  router.post('/resync', async (req, res) => {
    const body = read(shopResync, req.body);
    const { platform, shop } = shopRefOf(res);
    const cap = {
      what: 'resync',
      limit: RESYNCS_PER_HOUR,
      madeSince: async (since: string) =>
        (await resyncJobs.ofShop(platform, shop)).filter((job) => job.startedAt > since).length,
      refusal: `a shop reads its orders again at most ${RESYNCS_PER_HOUR} times an hour; wait for the last one to finish`,
    };
    await hourly(res, cap, async () => {
      const started = await resyncJobs.start({ platform, shop, since: body.since, until: body.until, by: byOf(res) });
      // Not the reason itself: it names the shops the bridge can reach, which are other merchants'.
      if (!started.ok)
        return refuse(res, 409, [
          'the bridge has no working access to your store’s orders: open the app again from your store’s admin',
        ]);
      logger.info({ shop, resync: started.job.id, by: byOf(res) }, 'a shop started a resync');
      res.status(202).location(`/admin/api/resync/${started.job.id}`).json({ job: started.job });
    });
  });

  router.get('/resync', async (_req, res) => {
    const { platform, shop } = shopRefOf(res);
    res.json({ jobs: await resyncJobs.ofShop(platform, shop) });
  });

  router.get('/resync/:id', async (req, res) => {
    const job = await resyncJobs.get(String(req.params.id));
    const { platform, shop } = shopRefOf(res);
    // Another shop's job, or the operator's over several shops, is answered as if it did not exist.
    if (!job || job.platform !== platform || job.shops.length !== 1 || job.shops[0] !== shop)
      return void res.status(404).json({ error: `no resync ${req.params.id}` });
    res.json({ job });
  });

  router.use(shopTestOrders({ store, ingest, logger, ownAccount, hourly }));

  router.get('/attention', async (_req, res) => {
    const { allowed } = await reachOf(res);
    res.json({
      attention: await shopAttention(
        { store, accounts, partsOf, spentSince, spentLongMs },
        shopRefOf(res),
        allowed.change,
      ),
    });
  });

  // What could not go on, of this shop: the merchant sees why, fixes the cause (a scope, the account's credentials),
  // and sends it again. Discarding one stays the operator's: an order's points could go with it.
  router.get('/dead-letters', async (_req, res) => {
    const own = (await store.listDeadLetters()).filter((letter) => isOwnLetter(res, letter)).reverse();
    // With the order's name as the store shows it (#1001), which the merchant knows; the id is in the admin's URLs only.
    const named = await Promise.all(
      own.map(async (letter) => {
        const orderName = letter.orderKey ? (await store.getOrder(letter.orderKey))?.snapshot.orderName : undefined;
        return shopLetterView(letter, shopRefOf(res), orderName);
      }),
    );
    res.json({ deadLetters: named });
  });

  router.post('/dead-letters/:id/retry', async (req, res) => {
    const letter = await store.getDeadLetter(String(req.params.id));
    if (!letter || !isOwnLetter(res, letter))
      return void res.status(404).json({ error: `no dead letter ${req.params.id}` });
    // A redeem in doubt may have been applied: whoever retries it first checks the customer's history, which is
    // the operator's to read. A manual adjustment is the operator's too.
    if (letter.operation === 'redeem' || letter.adjustmentId)
      return refuse(res, 409, [
        "a redeem or a manual adjustment is retried by the bridge's operator, who checks the customer's history first",
      ]);
    const result = await retryDeadLetter(letter);
    logger.info(
      { deadLetter: letter.id, kind: letter.kind, retried: result.retried, by: byOf(res) },
      'a shop retried a dead letter',
    );
    res.status(result.retried ? 200 : 409).json(result);
  });

  router.use((_req, res) => {
    res.status(403).json({
      error: "a shop's sign-in shows that shop's orders; the rest is for the bridge's operator (ADMIN_TOKEN)",
    });
  });
  router.use((error: Error & { status?: number; type?: string }, _req: Request, res: Response, _next: NextFunction) => {
    if (error instanceof BadInput) return void res.status(400).json({ error: error.message, field: error.field });
    // An address Express could not read (an id that is not valid percent-encoding): the request's fault.
    if (error instanceof URIError || (error.status === 400 && !error.type))
      return refuse(res, 400, ['the address is not valid: an id holds a broken %-escape']);
    if (error.type === 'entity.parse.failed') return refuse(res, 400, ['body: is not valid JSON']);
    if (error.type === 'entity.too.large') return void res.status(413).json({ error: 'the body is too large' });
    // The service's answer, in its own words (never the account's key): refused 422, unreachable 502.
    if (error instanceof LoyaltyError)
      return void res.status(error.retryable ? 502 : 422).json({ error: error.message });
    logger.error({ err: error }, 'admin API error (shop)');
    res.status(500).json({ error: 'internal error' });
  });
  return router;

  /**
   * Points by hand, either way, under one cap: the call and its record are
   * inside the cap's step, so a burst cannot all pass one count of the
   * adjustments kept.
   */
  async function byHand<Body extends { account?: string | undefined }>(
    req: Request,
    res: Response,
    schema: z.ZodType<Body>,
    send: (request: Body & { account: string; shop: ShopRef }, by: string) => Promise<AdjustmentResult>,
  ): Promise<void> {
    const account = await ownAccount(res, 'change');
    if (!account) return;
    const body = read(schema, req.body);
    if (body.account !== undefined) return refuse(res, 400, [NAMES_NO_ACCOUNT]);
    const shop = shopRefOf(res);
    const cap = {
      what: 'points by hand',
      limit: MANUAL_ADJUSTMENTS_PER_HOUR,
      madeSince: async (since: string) =>
        (await store.listRecords(ADJUSTMENT_KIND)).filter(
          ({ value }) => value.platform === shop.platform && value.shop === shop.shop && value.at > since,
        ).length,
      refusal: `a shop gives or takes points by hand at most ${MANUAL_ADJUSTMENTS_PER_HOUR} times an hour; ask the bridge's operator for more`,
    };
    await hourly(res, cap, async () => {
      const { adjustment, error } = await send({ ...body, account, shop }, byOf(res));
      if (adjustment.outcome === 'success') return void res.status(201).json({ adjustment });
      const refused = error instanceof LoyaltyError && !error.retryable;
      res.status(refused ? 422 : 502).json({ error: adjustment.message, adjustment });
    });
  }

  function isOwnLetter(res: Response, letter: DeadLetter): boolean {
    return isLetterOfShop(letter, shopRefOf(res));
  }

  function isOwn(res: Response, request: Pick<DataRequestRecord, 'platform' | 'shop'>): boolean {
    return sameShop({ platform: request.platform, shop: request.shop }, shopRefOf(res));
  }

  /** The shop's own data request by id; another shop's, or none, is undefined alike. */
  async function ownRequest(res: Response, id: string): Promise<DataRequestRecord | undefined> {
    const request = (await privacy.dataRequests()).find((each) => each.id === id);
    return request && isOwn(res, request) ? request : undefined;
  }

  /**
   * The shop's own account, for what only an account of its own allows (a
   * customer's points, points by hand), judged before the request is read:
   * a shop without one is told 403, whatever it sent. Otherwise the refusal
   * is sent and undefined returned.
   */
  async function ownAccount(res: Response, need: 'read' | 'change') {
    const { standing, allowed, account } = await reachOf(res);
    if (!allowed[need] || !account) return void refuse(res, 403, [WHY_NOT[standing]]);
    return account;
  }

  /** Asked again right before a change is written: the operator may have shared the account in the meantime. */
  function stillOwn(res: Response, account: string) {
    return async () => {
      const now = await reachOf(res);
      return now.allowed.change && now.account === account;
    };
  }

  /** The account the shop earns on, judged now (another instance may have changed a link a moment ago). */
  async function reachOf(
    res: Response,
  ): Promise<{ standing: Standing; allowed: Allowed; account: string | undefined }> {
    const facts = await accounts.reachFacts(shopRefOf(res));
    const { standing, ...allowed } = allowedFor(shopRefOf(res), facts);
    return { standing, allowed, account: facts.account };
  }
}
