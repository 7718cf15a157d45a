// What a merchant reads in the control panel right after installing: that store's hooks, its last reconciliation
// and its latest orders (number, state, points; no customer's contact details), as words on a plain page. No
// session: the install's address proves nothing of the browser it is opened in (bigcommerce module, /auth).
import type { SubscriptionHealth } from '../../src/core/order-source.ts';
import { plainPageAnswer } from '../../src/core/platform-answers.ts';
import { reconciliationId } from '../../src/core/reconciler.ts';
import type { OperatorQueries, RecordRole } from '../../src/core/store/ledger-store.ts';
import { counted } from '../../src/counted.ts';
import { RECONCILIATION_KIND } from '../../src/core/store/roles/core-kinds.ts';
import { HEALTH_KIND } from '../../src/core/order-source.ts';

const PLATFORM = 'bigcommerce';

const hooksSaid = (health: SubscriptionHealth | undefined) =>
  !health
    ? 'Not checked yet: the bridge is setting them up. Reload this page in a minute.'
    : health.error
      ? `Could not be checked: ${health.error}`
      : health.problems.length > 0
        ? health.problems.map((problem) => `${problem.detail}. ${problem.fix}.`).join(' ')
        : `All ${health.healthy} in order (checked ${health.checkedAt}).${health.repaired.length ? ` Put right on that check: ${health.repaired.join('; ')}.` : ''}`;

export async function installedPage(
  store: Pick<OperatorQueries, 'listOrders'> & RecordRole,
  shop: string,
  { notice, dashboardUrl }: { notice: string; dashboardUrl: string },
): Promise<Response> {
  const id = reconciliationId(PLATFORM, shop);
  const [health, reconciliation, orders] = await Promise.all([
    store.getRecord(HEALTH_KIND, id),
    store.getRecord(RECONCILIATION_KIND, id),
    store.listOrders({ platform: PLATFORM, shop, page: 1, limit: 20 }),
  ]);
  const run = reconciliation?.lastRun;
  const latest = orders.orders.map(
    (order) =>
      `${order.orderName || order.orderId}: ${order.reason ? `${order.state} (${order.reason})` : order.state}, points ${order.upstream}, updated ${order.updatedAt}.`,
  );
  return plainPageAnswer(
    200,
    {
      title: `loyalty-bridge · store ${shop}`,
      paragraphs: [
        notice,
        `Webhooks: ${hooksSaid(health)}`,
        `Reconciliation: ${run ? `last run ${run.finishedAt}: ${counted(run.fetched, 'order')} read, ${run.changed} changed, ${run.failed} failed.` : 'not run yet.'}`,
        orders.total === 0 ? 'Orders: none yet.' : `Orders: ${orders.total}; the latest:`,
        ...latest,
      ],
      link: { href: dashboardUrl, text: 'Open the full dashboard (it asks for the bridge’s admin token)' },
      form: null,
    },
    { frameAncestors: null },
  );
}
