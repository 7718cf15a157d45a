// The admin API under /admin/api: status, orders, resync, dead letters, customers' points, manual
// adjustments, privacy requests, platforms' installs, accounts and shops (admin-accounts.ts). Every route sits
// behind the admin token; input is validated with zod, and a 400 names the field. No answer carries a secret
// or an access token; customers' contact details appear only in the order views and exports asked for.
// The routes live in admin-*.ts, one file per subject, each reading the request, calling one method of the
// operator's service (services/operator.ts) and answering; this file mounts them, in the order Express matches them.
import express from 'express';
import { adminAccounts } from './admin-accounts.ts';
import { requireAdminToken } from './admin-auth.ts';
import type { AdminApiParts } from './admin-parts.ts';
import { adminStatusRoutes } from './admin-status.ts';
import { adminOrderRoutes } from './admin-orders.ts';
import { adminDeadLetterRoutes } from './admin-dead-letters.ts';
import { adminCustomerRoutes } from './admin-customers.ts';
import { adminAdjustmentRoutes } from './admin-adjustments.ts';
import { adminPlatformRoutes } from './admin-platforms.ts';
import { adminErrorHandlers } from './admin-errors.ts';

// What other files import from here, wherever it lives now.
export { BadInput, read, type AdminApiParts } from './admin-parts.ts';
export { customerQuery, date, earnAdjustment, orderQuery, redeemAdjustment } from './admin-input.ts';

export function adminApi(parts: AdminApiParts): express.Router {
  const router = express.Router();
  router.use(requireAdminToken(parts.token));
  router.use(express.json({ limit: '100kb' }));

  adminStatusRoutes(router, parts);
  adminOrderRoutes(router, parts);
  adminDeadLetterRoutes(router, parts);
  adminCustomerRoutes(router, parts);
  adminAdjustmentRoutes(router, parts);
  router.use(adminAccounts(parts));
  adminPlatformRoutes(router, parts);
  adminErrorHandlers(router, parts);
  return router;
}
