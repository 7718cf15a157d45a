// A shop's own loyalty account, from its page: read it, make one (or a trial on the bridge's sandbox), change
// it and its program settings, and its calls against its limit. Each handler is a route of shop-admin-api.ts.
import type { Request, RequestHandler, Response } from 'express';
import { accountView } from '../accounts/account-view.ts';
import { sameShop, WHY_NOT } from '../accounts/reach.ts';
import { trialAccountInput } from '../accounts/sandbox-trials.ts';
import { limiterOf } from '../loyalty/client.ts';
import { limitWords } from '../loyalty/rate-limiter.ts';
import { NOT_AN_OBJECT, objectBody, refuse, SETTINGS_ELSEWHERE } from './admin-accounts.ts';
import type { ShopAdminContext } from './shop-admin-context.ts';
import { byOf, shopRefOf } from './shop-ref.ts';

/** Accounts a shop may make for itself (each made one is kept, with its key, until the operator removes it). */
const ACCOUNTS_PER_SHOP = 3;

/** GET /account: the shop's account, if it may read it, and what it may do. */
export const readAccount =
  ({ accounts, bridgeSandbox, reachOf }: ShopAdminContext): RequestHandler =>
  async (_req, res) => {
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
  };

/** POST /account: an account the shop makes for itself, linked to it at once. */
export const makeAccount =
  ({ accounts, bridgeSandbox, logger, reachOf, oneAtATime }: ShopAdminContext): RequestHandler =>
  async (req, res) => {
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
  };

/** GET /account/settings: the settings in force, and those saved. */
export const readSettings =
  ({ accounts, reachOf }: ShopAdminContext): RequestHandler =>
  async (_req, res) => {
    const { standing, allowed, account } = await reachOf(res);
    if (!allowed.read || !account) return refuse(res, 403, [WHY_NOT[standing]]);
    const record = await accounts.get(account);
    res.json({ account, settings: await accounts.effectiveSettings(account), saved: record?.settings ?? {} });
  };

/** PATCH /account: the account's name, address, credentials or limit (its settings have a route of their own). */
/** The account the shop may change and the body as an object; or undefined, the refusal sent. */
async function changeable(
  reachOf: ShopAdminContext['reachOf'],
  req: Request,
  res: Response,
): Promise<{ account: string; body: Record<string, unknown> } | undefined> {
  const { standing, allowed, account } = await reachOf(res);
  if (!allowed.change || !account) return void refuse(res, 403, [WHY_NOT[standing]]);
  const body = objectBody(req.body);
  if (!body.ok) return void refuse(res, 400, [NOT_AN_OBJECT]);
  return { account, body: body.value };
}

export const changeAccount =
  ({ accounts, reachOf, stillOwn }: ShopAdminContext): RequestHandler =>
  async (req, res) => {
    const asked = await changeable(reachOf, req, res);
    if (!asked) return;
    if ('settings' in asked.body) return refuse(res, 400, [SETTINGS_ELSEWHERE]);
    const changed = await accounts.update(asked.account, asked.body, byOf(res), stillOwn(res, asked.account));
    if (!changed.ok) return refuse(res, changed.status, changed.errors);
    res.json({ account: accountView(changed.value) });
  };

/** PATCH /account/settings: settings as given, over the ones saved. */
export const changeSettings =
  ({ accounts, reachOf, stillOwn }: ShopAdminContext): RequestHandler =>
  async (req, res) => {
    const asked = await changeable(reachOf, req, res);
    if (!asked) return;
    const { account, body } = asked;
    const changed = await accounts.setSettings(account, body, byOf(res), stillOwn(res, account));
    if (!changed.ok) return refuse(res, changed.status, changed.errors);
    res.json({ account, settings: await accounts.effectiveSettings(account), saved: changed.value.settings });
  };

// The account's own calls against its limit: counted by the account, never by its key (account-calls.ts), so
// nothing another account does with the same key shows. This instance's count: each instance sends its own.
export const readUsage =
  ({ accounts, accountCalls, ownAccount }: ShopAdminContext): RequestHandler =>
  async (_req, res) => {
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
  };
