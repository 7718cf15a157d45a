// The admin API's customers: their points at the loyalty service, and privacy (exporting what the bridge holds about
// a customer, erasing it, erasing a shop, and the data requests and their log).
import type { Router } from 'express';
import { read, type AdminApiParts } from './admin-parts.ts';
import { customerMatch, customerQuery, shopEraseOf, toMatch } from './admin-input.ts';

export function adminCustomerRoutes(router: Router, { operator }: AdminApiParts): void {
  const { customers } = operator;
  const shopEraseBody = shopEraseOf(operator.platformNames());
  router.get('/customers/points', async (req, res) => {
    res.json(await customers.points(read(customerQuery, req.query)));
  });
  // Privacy: what the bridge holds about a customer, erasing it, erasing a shop.
  router.get('/customers/export', async (req, res) => {
    const query = read(customerMatch, req.query);
    const data = await customers.exportCustomer(toMatch(query), query.account);
    res.set('content-disposition', 'attachment; filename="customer-data.json"').json(data);
  });
  router.post('/customers/erase', async (req, res) => {
    const body = read(customerMatch, req.body);
    res.json(await customers.eraseCustomer(toMatch(body), body.account));
  });
  router.post('/shops/erase', async (req, res) => {
    const body = read(shopEraseBody, req.body);
    res.json(await customers.eraseShop(body.platform, body.shop));
  });
  router.get('/privacy', async (_req, res) => {
    res.json(await customers.privacy());
  });
  router.delete('/privacy/data-requests/:id', async (req, res) => {
    res.json(await customers.closeDataRequest(String(req.params.id)));
  });
}
