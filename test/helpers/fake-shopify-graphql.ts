// The fake Shopify's Admin API (fake-shopify.ts serves it), from Shopify's documentation:
//   POST /admin/api/<version>/graphql.json with X-Shopify-Access-Token: 401
//     for an unknown or expired token; the cost bucket in extensions.cost and
//     THROTTLED errors; the documents themselves are executed on Shopify's
//     published schema of that version (fake-shopify-admin.ts), with its
//     scope, protected-data, subscription and bulk-operation rules
//     customer(id): the record's defaultEmailAddress and defaultPhoneNumber;
//     without read_customers no data and one ACCESS_DENIED error, as Shopify
//     answers a root field the app may not read
//     code discounts (write_discounts, fake-shopify-discount-roots.ts): made,
//     found by code, counted and deleted through the API; useCode is an order paying
//     with one, counted in asyncUsageCount only once the clock moves or
//     countUses() runs (Shopify counts uses asynchronously)
//   GET <bulk operation url>: the JSONL result, without the Admin API token
// A test can also slow, hold, fail or throttle the next calls (hangMs, holdAt, failNext, throttleNext).
import express, { type Request, type Response } from 'express';
import { executeShopifyAdmin, type AdminContext } from './fake-shopify-admin.ts';
import { shopOf, type FakeShopifyContext } from './fake-shopify-shop.ts';

/** The cost bucket Shopify reports in extensions.cost. */
const cost = (requested: number, available = 1900) => ({
  cost: {
    requestedQueryCost: requested,
    actualQueryCost: requested,
    throttleStatus: { maximumAvailable: 2000, currentlyAvailable: available, restoreRate: 100 },
  },
});

/** The cost of the bridge's operations: its order pages by their size. */
const requestedCost = (operation: string, variables: Record<string, unknown>) =>
  operation === 'LoyaltyBridgeOrders'
    ? 2 + Number(variables.first ?? 50) * 2
    : operation === 'LoyaltyBridgeOrder'
      ? 20
      : 10;

/**
 * What stops a call before it runs, answered here: a failure a test asked for, a token Shopify does not know (or
 * for another shop, or expired), throttling. True when the call may run; it is logged either way.
 */
function admitted(context: FakeShopifyContext, name: string, given: string, res: Response, log: (s: number) => void) {
  if (context.failing.count > 0) {
    context.failing.count--;
    log(context.failing.status);
    res.status(context.failing.status).json({ errors: 'Internal error' });
    return false;
  }
  const held = context.tokens.get(given);
  if (!held || held.shop !== name || (held.expiresAt !== null && held.expiresAt <= context.now())) {
    log(401);
    res.status(401).json({ errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' });
    return false;
  }
  // The first use of a refreshed token ends the refresh token it replaced.
  if (held.replacedRefresh) {
    context.shop(name).refreshTokens.delete(held.replacedRefresh);
    delete held.replacedRefresh;
  }
  if (context.throttled > 0) {
    context.throttled--;
    log(200);
    res.json({ errors: [{ message: 'Throttled', extensions: { code: 'THROTTLED' } }], extensions: cost(202, 10) });
    return false;
  }
  log(200);
  return true;
}

/** The shop as the Admin API's resolvers see it now: its data, the app's grants and the fake's settings. */
function adminContext(context: FakeShopifyContext, name: string): AdminContext {
  const { settings } = context;
  return {
    shopName: name,
    shop: context.shop(name),
    scopes: new Set(
      settings.scopes
        .split(',')
        .map((scope) => scope.trim())
        .filter(Boolean),
    ),
    protectedDataGranted: settings.protectedDataGranted,
    readAllOrders: settings.readAllOrders,
    webhookApiVersion: settings.webhookApiVersion,
    bulkPolls: settings.bulkPolls,
    bulkLimit: 5,
    takeBulkFailure: () => {
      const failure = settings.bulkFailNext;
      settings.bulkFailNext = undefined;
      return failure;
    },
    bulkUrl: (id) => `${context.url}/bulk-results/${name}/${id.split('/').pop()}.jsonl`,
    nowMs: context.now(),
    newId: () => ++context.lastId,
    currency: 'EUR',
  };
}

/** POST /admin/api/<version>/graphql.json: admitted, then executed on that version's schema. */
export function serveAdminGraphql(router: express.Router, context: FakeShopifyContext): void {
  router.post('/admin/api/:version/graphql.json', express.json(), async (req: Request, res: Response) => {
    const name = shopOf(req);
    const given = String(req.headers['x-shopify-access-token'] ?? '');
    const body = req.body as { query: string; variables?: Record<string, unknown> };
    const operation = /(query|mutation)\s+(\w+)/.exec(body.query)?.[2] ?? 'anonymous';
    const log = (status: number) => context.requests.push({ shop: name, what: operation, token: given, status });
    const { settings } = context;
    if (settings.hangMs > 0) await new Promise((resolve) => setTimeout(resolve, settings.hangMs));
    await settings.holdAt?.(operation, 'before');
    if (!admitted(context, name, given, res, log)) return;
    let result;
    try {
      const variables = body.variables ?? {};
      result = await executeShopifyAdmin(
        adminContext(context, name),
        String(req.params.version),
        body.query,
        variables,
      );
    } catch (error) {
      // No schema for that version: Shopify answers 404 for a version it does not serve.
      return void res.status(404).json({ errors: `Not Found (${(error as Error).message})` });
    }
    await settings.holdAt?.(operation, 'after');
    res.json({ ...result, extensions: cost(requestedCost(operation, body.variables ?? {})) });
  });
}

/** A bulk operation's JSONL result: it lives on storage the URL names, not behind the Admin API token. */
export function serveBulkResults(router: express.Router, context: FakeShopifyContext): void {
  const { settings } = context;
  router.get('/bulk-results/:shop/:id.jsonl', async (req, res) => {
    const bulk = context
      .shop(String(req.params.shop))
      .bulkOperations.get(`gid://shopify/BulkOperation/${req.params.id}`);
    if (!bulk || bulk.status !== 'COMPLETED') return void res.status(404).send('NoSuchKey');
    if (settings.bulkResultsRedirectTo)
      return void res.redirect(302, `${settings.bulkResultsRedirectTo}${req.originalUrl}`);
    if (settings.bulkChunkDelayMs === 0)
      return void res.type('application/jsonl').send(bulk.lines.map((line) => `${line}\n`).join(''));
    // Line by line with a pause between: a download that takes longer than any fixed limit, never quiet for long.
    res.type('application/jsonl');
    for (const line of bulk.lines) {
      res.write(`${line}\n`);
      await new Promise((resolve) => setTimeout(resolve, settings.bulkChunkDelayMs));
    }
    res.end();
  });
}
