// A shop's own loyalty account, from its page: read it, make one (or a trial on the bridge's sandbox), change
// it and its program settings, and its calls against its limit.
import { accountView } from '../../accounts/account-view.ts';
import { sameShop, WHY_NOT } from '../../accounts/reach.ts';
import { trialAccountInput } from '../../accounts/sandbox-trials.ts';
import { limiterOf } from '../../loyalty/client.ts';
import { limitWords } from '../../loyalty/rate-limiter.ts';
import { Refused } from '../refused.ts';
import type { MerchantAsker, MerchantContext, ReadLater } from './parts.ts';

/** Accounts a shop may make for itself (each made one is kept, with its key, until the operator removes it). */
const ACCOUNTS_PER_SHOP = 3;

type Body = Record<string, unknown>;

/** The shop's account, if it may read it, and what it may do. */
export async function readAccount({ accounts, bridgeSandbox, reachOf }: MerchantContext, { shop }: MerchantAsker) {
  const { standing, allowed, account } = await reachOf(shop);
  const record = allowed.read && account ? await accounts.get(account) : undefined;
  // No load of the account (calls, budget): its limiter counts every account with the same key, so a merchant who
  // typed a key would learn whether, and how much, it is used elsewhere (test/security/account-budgets.test.ts).
  return {
    account: record ? accountView(record) : null,
    standing,
    may: { read: allowed.read, change: allowed.change, create: allowed.create },
    // In sandbox mode a new account may be a trial on the bridge's sandbox.
    sandboxTrial: Boolean(bridgeSandbox),
    ...(WHY_NOT[standing] ? { note: WHY_NOT[standing] } : {}),
  };
}

/** An account the shop makes for itself, linked to it at once. */
export async function makeAccount(ctx: MerchantContext, { shop, by }: MerchantAsker, input: ReadLater<Body>) {
  const { accounts, bridgeSandbox, logger } = ctx;
  const { standing, allowed } = await ctx.reachOf(shop);
  if (!allowed.create) throw new Refused(403, [WHY_NOT[standing]]);
  const body = input();
  // Counted and made in one step per shop, on every instance: a burst of requests makes no more than the cap.
  return ctx.oneAtATime(shop, 'account', async () => {
    // Each account checks its credentials at an address the merchant gives, and keeps a key: a few per shop.
    const made = (await accounts.list()).filter((each) => each.madeFor && sameShop(each.madeFor, shop));
    if (made.length >= ACCOUNTS_PER_SHOP)
      throw new Refused(409, [
        `this shop has made ${made.length} loyalty accounts already: change the one it earns on, or ask the bridge’s operator to remove one`,
      ]);
    const trial = 'sandbox' in body ? trialAccountInput(bridgeSandbox, body) : undefined;
    // Its status is one of Refused's (400, 409 or 503), typed as a number by sandbox-trials.ts.
    if (trial && !trial.ok) throw new Refused(trial.status as Refused['status'], trial.errors);
    const given = trial?.input ?? body;
    const created = await accounts.create(given, by, shop, trial ? { onBridgeSandbox: true } : {});
    if (!created.ok) {
      // A trial refused after the sandbox made its account leaves nothing there (nor a merchant a way to fill it).
      if (trial) bridgeSandbox?.removeAccount(String(given.brandId));
      throw new Refused(created.status, created.errors);
    }
    const linked = await accounts.link(shop, created.value.id, by);
    if (!linked.ok) throw new Refused(linked.status, linked.errors);
    logger.info({ shop: shop.shop, account: created.value.id }, 'a shop made a loyalty account of its own');
    return { account: accountView(created.value) };
  });
}

/** The settings in force, and those saved. */
export async function readSettings({ accounts, reachOf }: MerchantContext, { shop }: MerchantAsker) {
  const { standing, allowed, account } = await reachOf(shop);
  if (!allowed.read || !account) throw new Refused(403, [WHY_NOT[standing]]);
  const record = await accounts.get(account);
  return { account, settings: await accounts.effectiveSettings(account), saved: record?.settings ?? {} };
}

/** The account the shop may change, refused 403 otherwise, before its input is read. */
async function changeable({ reachOf }: MerchantContext, shop: MerchantAsker['shop']): Promise<string> {
  const { standing, allowed, account } = await reachOf(shop);
  if (!allowed.change || !account) throw new Refused(403, [WHY_NOT[standing]]);
  return account;
}

/** The account's name, address, credentials or limit (its settings have a use case of their own). */
export async function changeAccount(ctx: MerchantContext, { shop, by }: MerchantAsker, input: ReadLater<Body>) {
  const account = await changeable(ctx, shop);
  const changed = await ctx.accounts.update(account, input(), by, ctx.stillOwn(shop, account));
  if (!changed.ok) throw new Refused(changed.status, changed.errors);
  return { account: accountView(changed.value) };
}

/** Settings as given, over the ones saved. */
export async function changeSettings(ctx: MerchantContext, { shop, by }: MerchantAsker, input: ReadLater<Body>) {
  const { accounts } = ctx;
  const account = await changeable(ctx, shop);
  const changed = await accounts.setSettings(account, input(), by, ctx.stillOwn(shop, account));
  if (!changed.ok) throw new Refused(changed.status, changed.errors);
  return { account, settings: await accounts.effectiveSettings(account), saved: changed.value.settings };
}

// The account's own calls against its limit: counted by the account, never by its key (account-calls.ts), so
// nothing another account does with the same key shows. This instance's count: each instance sends its own.
export async function readUsage({ accounts, accountCalls, ownAccount }: MerchantContext, { shop }: MerchantAsker) {
  const account = await ownAccount(shop, 'read');
  const record = await accounts.get(account);
  if (!record) throw new Refused(404, [`no account ${account}`]);
  const calls = accountCalls.lastMinute(account);
  const limiter = limiterOf((await accounts.runtime(account))?.client)?.stats();
  const sentPerMinute = limiter?.effectiveLimit ?? record.rateLimitPerMinute;
  const limit = {
    limit: record.rateLimitPerMinute,
    effectiveLimit: sentPerMinute,
    windowMs: limiter?.windowMs ?? 60_000,
  };
  return {
    account,
    callsInLastMinute: calls,
    allowedPerMinute: record.rateLimitPerMinute,
    sentPerMinute,
    // Counted by the account, against its own limit (a shared key's other calls are not the merchant's to see).
    words: limitWords(calls, limit),
  };
}
