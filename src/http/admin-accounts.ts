// The admin API's loyalty accounts, shops and audit, for the operator (inside adminApi, behind ADMIN_TOKEN;
// the routes are listed in docs/accounts.md). A refusal answers { error, errors } with one line per bad
// field. No answer carries an API key: the service shows accounts through accountView, the key as its last
// four characters.
import express, { type Request, type Response } from 'express';
import { z } from 'zod';
import { platformName } from '../core/platform-name.ts';
import { Refused } from '../services/refused.ts';
import type { AdminApiParts } from './admin-parts.ts';

// What the shop's own admin API (shop-*.ts) and the CLI import from here, wherever it lives now.
export { SETTINGS_ELSEWHERE, type ShopView } from '../services/operator.ts';

/** One line per bad field, as the registry reports them. */
export const refuse = (res: Response, status: number, errors: string[]) =>
  void res.status(status).json({ error: errors.join('; '), errors });

/** A JSON object, or the one line that says it is not. */
export function objectBody(body: unknown): { ok: true; value: Record<string, unknown> } | { ok: false } {
  if (body === undefined) return { ok: true, value: {} };
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { ok: false };
  return { ok: true, value: body as Record<string, unknown> };
}
export const NOT_AN_OBJECT = 'body: must be a JSON object';

/** The body as a JSON object, or a refusal that says it is not. */
const objectOf = (body: unknown): Record<string, unknown> => {
  const given = objectBody(body);
  if (!given.ok) throw new Refused(400, [NOT_AN_OBJECT]);
  return given.value;
};

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

type Handler = (req: Request, res: Response) => Promise<void>;

export function adminAccounts({ operator, tokenLabel: by }: AdminApiParts): express.Router {
  const { accounts } = operator;
  const router = express.Router();
  const linkOf = linkInput(shopParamsOf(operator.platformNames()));
  const id = (req: Request) => String(req.params.id);
  const answer =
    (made: (req: Request) => Promise<unknown>): Handler =>
    async (req, res) =>
      void res.json(await made(req));

  router.get(
    '/accounts',
    answer(() => accounts.accounts()),
  );
  router.post('/accounts', async (req, res) => {
    const made = await accounts.makeAccount(objectOf(req.body), by);
    res.location(`/admin/api/accounts/${made.account.id}`).status(201).json(made);
  });
  router.get(
    '/accounts/:id',
    answer((req) => accounts.account(id(req))),
  );
  router.patch(
    '/accounts/:id',
    answer((req) => accounts.changeAccount(id(req), objectOf(req.body), by)),
  );
  router.delete(
    '/accounts/:id',
    answer((req) => accounts.removeAccount(id(req), by)),
  );
  router.get(
    '/accounts/:id/settings',
    answer((req) => accounts.settings(id(req))),
  );
  router.patch(
    '/accounts/:id/settings',
    answer((req) => accounts.changeSettings(id(req), objectOf(req.body), by)),
  );
  router.post(
    '/accounts/:id/check',
    answer((req) => accounts.checkAccount(id(req))),
  );
  router.get(
    '/shops',
    answer(() => accounts.shops()),
  );
  router.patch(
    '/shops/:platform/:shop',
    answer((req) => {
      const { shop, account } = linkOf(req);
      return accounts.linkShop(shop, account, by);
    }),
  );
  router.get(
    '/audit',
    answer((req) => {
      const query = auditQuery.safeParse(req.query);
      if (!query.success) throw new Refused(400, query.error.issues.flatMap(fieldLines));
      return accounts.audit(query.data.limit);
    }),
  );

  return router;
}

/** A link asked for: the shop the path names and the account the body names, every bad field refused at once. */
const linkInput = (shopParams: ReturnType<typeof shopParamsOf>) => (req: Request) => {
  const params = shopParams.safeParse(req.params);
  const given = objectBody(req.body);
  const body = given.ok ? shopLinkBody.safeParse(given.value) : undefined;
  if (params.success && body?.success) return { shop: params.data, account: body.data.account };
  throw new Refused(400, [
    ...(params.success ? [] : params.error.issues.flatMap(fieldLines)),
    ...(!given.ok ? [NOT_AN_OBJECT] : body?.success ? [] : (body?.error.issues.flatMap(fieldLines) ?? [])),
  ]);
};

/** One line per field, unknown ones named each on a line of its own. */
const fieldLines = (issue: z.core.$ZodIssue): string[] =>
  issue.code === 'unrecognized_keys'
    ? issue.keys.map((key) => `${key}: is not a field here`)
    : [`${issue.path.join('.') || 'body'}: ${issue.message}`];
