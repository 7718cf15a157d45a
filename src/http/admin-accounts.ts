// The admin API's loyalty accounts, shops and audit, for the operator (inside adminApi, behind ADMIN_TOKEN;
// the routes are listed in docs/accounts.md). A refusal answers { error, errors } with one line per bad
// field. No answer carries an API key: accounts are shown through accountView, the key as its last four
// characters.
import express, { type Request, type Response } from 'express';
import { z } from 'zod';
import type { AccountLoad } from '../accounts/account-load.ts';
import type { AccountRecord, ShopLink, ShopRef } from '../accounts/account-records.ts';
import { accountView, type AccountView } from '../accounts/account-view.ts';
import { trialAccountInput, type BridgeSandbox } from '../accounts/sandbox-trials.ts';
import type { AccountRegistry, Change } from '../accounts/registry.ts';
import { DEFAULT_ACCOUNT, type AccountRuntime } from '../core/accounts.ts';
import { emptyLaneCounts } from '../core/lanes.ts';
import type { OrderWorkRole, DeadLetterRole, RecordRole } from '../core/store/ledger-store.ts';
import type { Platforms } from '../core/platforms.ts';
import { platformName } from '../core/platform-name.ts';
import { ADJUSTMENT_KIND } from '../core/store/roles/core-kinds.ts';

export interface AdminAccountsParts {
  accounts: AccountRegistry;
  store: OrderWorkRole & DeadLetterRole & RecordRole;
  platforms: Platforms;
  /** Who makes the changes: the admin token's label (ADMIN_TOKEN_LABEL). */
  tokenLabel: string;
  /** The environment's account as it may be shown (accountView's shape, its key as a hint). */
  defaultAccount: () => AccountView;
  /** Each account's calls against its limit, its budget, and its due work per lane (account-load.ts). */
  loads: () => Promise<AccountLoad[]>;
  /** The bridge's own sandbox, in sandbox mode: { sandbox: true } makes an account there, as a merchant's trial is. */
  bridgeSandbox?: BridgeSandbox | undefined;
}

/** Past this many dead letters, counting them per account (a read of each one's order) is not worth a dashboard refresh. */
const MAX_DEAD_LETTERS_COUNTED = 200;

/** One line per bad field, as the registry reports them. */
export const refuse = (res: Response, status: number, errors: string[]) =>
  void res.status(status).json({ error: errors.join('; '), errors });

export const answerChange = <T>(res: Response, change: Change<T>, answer: (value: T) => unknown, status = 200) =>
  change.ok ? void res.status(status).json(answer(change.value)) : refuse(res, change.status, change.errors);

/** A JSON object, or the one line that says it is not. */
export function objectBody(body: unknown): { ok: true; value: Record<string, unknown> } | { ok: false } {
  if (body === undefined) return { ok: true, value: {} };
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { ok: false };
  return { ok: true, value: body as Record<string, unknown> };
}
export const NOT_AN_OBJECT = 'body: must be a JSON object';
/** Settings have their own route: a change to an account's fields never resets them by accident. */
export const SETTINGS_ELSEWHERE = 'settings: change them at …/settings (PATCH, by the configuration’s names)';

const shopLinkBody = z.strictObject({
  account: z.union([z.string().trim().min(1).max(100), z.null()], {
    error: 'must be an account id, or null for no link',
  }),
});
/** A shop as the path names it: on one of the platforms the bridge knows. */
const shopParamsOf = (known: readonly string[]) =>
  z.object({
    platform: platformName(known),
    shop: z.string().trim().min(1, { error: 'is required' }).max(255),
  });
const auditQuery = z.object({
  limit: z.coerce
    .number({ error: 'must be a number' })
    .int()
    .min(1)
    .max(1000, { error: 'must be at most 1000' })
    .default(200),
});

export interface ShopView extends ShopRef {
  /** The account its orders earn on: its link, or the default for a shop the operator chose; null: none. */
  account: string | null;
  accountName: string | null;
  /** The explicit link, if there is one (without one, the environment decides). */
  link: Pick<ShopLink, 'linkedAt' | 'by'> | null;
}

type Handler = (req: Request, res: Response) => Promise<void>;

export function adminAccounts(parts: AdminAccountsParts): express.Router {
  const { platforms } = parts;
  const router = express.Router();
  const shopParams = shopParamsOf(platforms.directory.map(({ name }) => name));

  router.get('/accounts', listAccounts(parts));
  router.post('/accounts', createAccount(parts));
  router.get('/accounts/:id', showAccount(parts));
  router.patch('/accounts/:id', updateAccount(parts));
  router.delete('/accounts/:id', removeAccount(parts));
  router.get('/accounts/:id/settings', showSettings(parts));
  router.patch('/accounts/:id/settings', changeSettings(parts));
  router.post('/accounts/:id/check', checkAccount(parts));
  router.get('/shops', listShops(parts));
  router.patch('/shops/:platform/:shop', linkShop(parts, shopParams));
  router.get('/audit', showAudit(parts));

  return router;
}

/** GET /accounts: the environment's account, then every other, each with its shops and health. */
function listAccounts(parts: AdminAccountsParts): Handler {
  return async (_req, res) => {
    const [records, shops, deadLetters, loads] = await Promise.all([
      parts.accounts.list(),
      knownShops(parts),
      deadLettersByAccount(parts),
      loadsById(parts),
    ]);
    const views = [parts.defaultAccount(), ...records.map(accountView)];
    res.json({
      accounts: await Promise.all(views.map((view) => withHealth(parts, view, shops, deadLetters, loads))),
    });
  };
}

function createAccount(parts: AdminAccountsParts): Handler {
  const { accounts, tokenLabel } = parts;
  return async (req, res) => {
    const body = objectBody(req.body);
    if (!body.ok) return refuse(res, 400, [NOT_AN_OBJECT]);
    // On the bridge's own sandbox: its address is on this machine, which an account given by hand may not name.
    const trial = 'sandbox' in body.value ? trialAccountInput(parts.bridgeSandbox, body.value) : undefined;
    if (trial && !trial.ok) return refuse(res, trial.status, trial.errors);
    const input = trial?.input ?? body.value;
    const created = await accounts.create(input, tokenLabel, undefined, trial ? { onBridgeSandbox: true } : {});
    if (!created.ok && trial) parts.bridgeSandbox?.removeAccount(String(input.brandId));
    if (created.ok) res.location(`/admin/api/accounts/${created.value.id}`);
    answerChange(res, created, (record) => ({ account: accountView(record) }), 201);
  };
}

function showAccount(parts: AdminAccountsParts): Handler {
  return async (req, res) => {
    const view = await viewOf(parts, String(req.params.id));
    if (!view) return refuse(res, 404, [`no account ${req.params.id}`]);
    const [shops, deadLetters, loads] = await Promise.all([
      knownShops(parts),
      deadLettersByAccount(parts),
      loadsById(parts),
    ]);
    res.json({ account: await withHealth(parts, view, shops, deadLetters, loads) });
  };
}

function updateAccount({ accounts, tokenLabel }: AdminAccountsParts): Handler {
  return async (req, res) => {
    const body = objectBody(req.body);
    if (!body.ok) return refuse(res, 400, [NOT_AN_OBJECT]);
    if ('settings' in body.value) return refuse(res, 400, [SETTINGS_ELSEWHERE]);
    const changed = await accounts.update(String(req.params.id), body.value, tokenLabel);
    answerChange(res, changed, (record) => ({ account: accountView(record) }));
  };
}

function removeAccount({ accounts, tokenLabel }: AdminAccountsParts): Handler {
  return async (req, res) => {
    answerChange(res, await accounts.remove(String(req.params.id), tokenLabel), ({ id }) => ({ deleted: id }));
  };
}

function showSettings({ accounts }: AdminAccountsParts): Handler {
  return async (req, res) => {
    const id = String(req.params.id);
    const settings = await accounts.effectiveSettings(id);
    if (!settings) return refuse(res, 404, [`no account ${id}`]);
    const record = id === DEFAULT_ACCOUNT ? undefined : await accounts.get(id);
    res.json({ account: id, settings, saved: record?.settings ?? {} });
  };
}

function changeSettings({ accounts, tokenLabel }: AdminAccountsParts): Handler {
  return async (req, res) => {
    const id = String(req.params.id);
    const body = objectBody(req.body);
    if (!body.ok) return refuse(res, 400, [NOT_AN_OBJECT]);
    const changed = await accounts.setSettings(id, body.value, tokenLabel);
    if (!changed.ok) return refuse(res, changed.status, changed.errors);
    res.json({ account: id, settings: await accounts.effectiveSettings(id), saved: changed.value.settings });
  };
}

function checkAccount({ accounts }: AdminAccountsParts): Handler {
  return async (req, res) => {
    answerChange(res, await accounts.check(String(req.params.id)), (check) => ({ check }));
  };
}

function listShops(parts: AdminAccountsParts): Handler {
  return async (_req, res) => {
    res.json({ shops: await knownShops(parts) });
  };
}

function linkShop(parts: AdminAccountsParts, shopParams: ReturnType<typeof shopParamsOf>): Handler {
  const { accounts, tokenLabel } = parts;
  return async (req, res) => {
    const params = shopParams.safeParse(req.params);
    const given = objectBody(req.body);
    const body = given.ok ? shopLinkBody.safeParse(given.value) : undefined;
    const errors = [
      ...(params.success ? [] : params.error.issues.flatMap(fieldLines)),
      ...(!given.ok ? [NOT_AN_OBJECT] : body?.success ? [] : (body?.error.issues.flatMap(fieldLines) ?? [])),
    ];
    if (!params.success || !body?.success) return refuse(res, 400, errors);
    const shop = params.data;
    const linked = await accounts.link(shop, body.data.account ?? undefined, tokenLabel);
    if (!linked.ok) return refuse(res, linked.status, linked.errors);
    const view = (await knownShops(parts)).find((each) => each.platform === shop.platform && each.shop === shop.shop);
    res.json({ shop: view ?? { ...shop, account: null, accountName: null, link: null } });
  };
}

function showAudit({ accounts }: AdminAccountsParts): Handler {
  return async (req, res) => {
    const query = auditQuery.safeParse(req.query);
    if (!query.success) return refuse(res, 400, query.error.issues.flatMap(fieldLines));
    res.json({ audit: await accounts.audit(query.data.limit) });
  };
}

async function viewOf(parts: AdminAccountsParts, id: string): Promise<AccountView | undefined> {
  if (id === DEFAULT_ACCOUNT) return parts.defaultAccount();
  const record: AccountRecord | undefined = await parts.accounts.get(id);
  return record && accountView(record);
}

/** Every shop the bridge knows: each platform's (installed, connected, allowed by name), and every linked shop. */
async function knownShops(bridge: AdminAccountsParts): Promise<ShopView[]> {
  const { accounts, platforms } = bridge;
  const [links, records] = await Promise.all([accounts.links(), accounts.list()]);
  const names = new Map<string, string>([
    [DEFAULT_ACCOUNT, bridge.defaultAccount().name],
    ...records.map((record): [string, string] => [record.id, record.name]),
  ]);
  const shops = new Map<string, ShopRef>();
  const add = (platform: string, shop: string) => shops.set(`${platform}:${shop}`, { platform, shop });
  for (const { module, parts } of platforms.modules)
    for (const shop of (await parts.shops?.list()) ?? []) add(module.name, shop);
  for (const link of links) add(link.platform, link.shop);
  const sorted = [...shops.values()].sort(
    (a, b) => a.platform.localeCompare(b.platform) || a.shop.localeCompare(b.shop),
  );
  return Promise.all(
    sorted.map(async (shop): Promise<ShopView> => {
      const link = links.find((each) => each.platform === shop.platform && each.shop === shop.shop);
      const account = (await accounts.accountOf(shop, links)) ?? null;
      return {
        ...shop,
        account,
        accountName: account === null ? null : (names.get(account) ?? null),
        link: link ? { linkedAt: link.linkedAt, by: link.by } : null,
      };
    }),
  );
}

async function loadsById(parts: AdminAccountsParts): Promise<Map<string, AccountLoad>> {
  return new Map((await parts.loads()).map((load) => [load.id, load]));
}

async function withHealth(
  { accounts }: AdminAccountsParts,
  view: AccountView,
  shops: ShopView[],
  deadLetters: Map<string, number> | undefined,
  loads: Map<string, AccountLoad>,
) {
  const runtime: AccountRuntime | undefined = await accounts.runtime(view.id);
  const load = loads.get(view.id);
  return {
    ...view,
    shops: shops.filter((shop) => shop.account === view.id).map(({ platform, shop }) => ({ platform, shop })),
    health: {
      paused: runtime?.authPause.paused ?? false,
      callsLastMinute: load?.callsLastMinute ?? null,
      limitPerMinute: load?.limitPerMinute ?? null,
      limitWords: load?.limitWords ?? null,
      budgetSpentUntil: load?.budgetSpentUntil ?? null,
      lanes: load?.lanes ?? emptyLaneCounts(),
      deadLetters: deadLetters ? (deadLetters.get(view.id) ?? 0) : null,
    },
  };
}

/** Dead letters by the account their order (or adjustment, or shop) belongs to; undefined when there are too many to count cheaply. */
async function deadLettersByAccount({ accounts, store }: AdminAccountsParts): Promise<Map<string, number> | undefined> {
  const letters = await store.listDeadLetters();
  if (letters.length > MAX_DEAD_LETTERS_COUNTED) return undefined;
  const counts = new Map<string, number>();
  for (const letter of letters) {
    let account: string | undefined;
    if (letter.adjustmentId)
      account = (await store.getRecord(ADJUSTMENT_KIND, letter.adjustmentId))?.account ?? DEFAULT_ACCOUNT;
    else if (letter.orderKey) account = (await store.getOrder(letter.orderKey))?.upstream.account;
    if (account === undefined && letter.platform && letter.shop)
      account = await accounts.accountOf({ platform: letter.platform, shop: letter.shop });
    if (account !== undefined) counts.set(account, (counts.get(account) ?? 0) + 1);
  }
  return counts;
}

/** One line per field, unknown ones named each on a line of its own. */
const fieldLines = (issue: z.core.$ZodIssue): string[] =>
  issue.code === 'unrecognized_keys'
    ? issue.keys.map((key) => `${key}: is not a field here`)
    : [`${issue.path.join('.') || 'body'}: ${issue.message}`];
