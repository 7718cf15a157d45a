// The admin API's customers: their points at the loyalty service, and privacy (exporting what the bridge holds about
// a customer, erasing it, erasing a shop, and the data requests and their log).
import type { Request, Response, Router } from 'express';
import { read, type AdminApiParts } from './admin-parts.ts';
import { customerMatch, customerQuery, shopEraseOf, toMatch } from './admin-input.ts';

export function adminCustomerRoutes(router: Router, parts: AdminApiParts): void {
  router.get('/customers/points', customerPoints(parts));
  // Privacy: what the bridge holds about a customer, erasing it, erasing a shop.
  router.get('/customers/export', customerExport(parts));
  router.post('/customers/erase', customerErase(parts));
  router.post('/shops/erase', shopErase(parts));
  router.get('/privacy', privacyLog(parts));
  router.delete('/privacy/data-requests/:id', closeDataRequest(parts));
}

const customerPoints =
  ({ engine, client }: AdminApiParts) =>
  async (req: Request, res: Response) => {
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
  };

const customerExport =
  ({ engine: { privacy } }: AdminApiParts) =>
  async (req: Request, res: Response) => {
    const query = read(customerMatch, req.query);
    const match = toMatch(query);
    const data = await privacy.exportCustomer(match, query.account);
    await privacy.noteExport(match, 'admin');
    res.set('content-disposition', 'attachment; filename="customer-data.json"').json({
      exportedAt: new Date().toISOString(),
      request: { platform: match.platform ?? null, shop: match.shop ?? null, account: query.account ?? null },
      ...data,
    });
  };

const customerErase =
  ({ engine: { privacy } }: AdminApiParts) =>
  async (req: Request, res: Response) => {
    const body = read(customerMatch, req.body);
    const report = await privacy.eraseCustomer(toMatch(body), 'admin', body.account);
    res.json({ erased: report });
  };

const shopErase = ({ engine: { privacy }, platforms }: AdminApiParts) => {
  const shopEraseBody = shopEraseOf(platforms.directory.map(({ name }) => name));
  return async (req: Request, res: Response) => {
    const body = read(shopEraseBody, req.body);
    res.json({ erased: await privacy.eraseShop(body.platform, body.shop, 'admin') });
  };
};

const privacyLog =
  ({ engine: { privacy } }: AdminApiParts) =>
  async (_req: Request, res: Response) => {
    res.json({ dataRequests: await privacy.dataRequests(), log: await privacy.log() });
  };

const closeDataRequest =
  ({ engine: { privacy } }: AdminApiParts) =>
  async (req: Request, res: Response) => {
    const removed = await privacy.closeDataRequest(String(req.params.id));
    if (!removed) return void res.status(404).json({ error: `no data request ${req.params.id}` });
    res.json({ closed: req.params.id });
  };
