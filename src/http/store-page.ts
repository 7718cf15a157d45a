// One store's page, rendered on the server: what a BigCommerce merchant sees
// inside the control panel when they open the app (the load callback). It
// shows only that store: how its hooks are, when it was last reconciled, and
// its latest orders (number, state, points; no customer's contact details).
// The full dashboard, behind the admin token, opens in a tab of its own.
import type { Response } from 'express';
import type { SubscriptionHealth } from '../core/order-source.ts';
import { reconciliationId } from '../core/reconciler.ts';
import type { LedgerStore, ReconciliationState } from '../core/store/ledger-store.ts';

const escape = (value: string) => value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** BigCommerce shows app pages in an iframe of its control panel, and nowhere else. */
export const FRAMED_BY = 'https://*.bigcommerce.com https://*.mybigcommerce.com';

export function sendPage(res: Response, status: number, title: string, body: string): void {
  res
    .status(status)
    .type('html')
    .set('content-security-policy', `default-src 'none'; style-src 'unsafe-inline'; frame-ancestors ${FRAMED_BY}`)
    .set('referrer-policy', 'no-referrer')
    .send(
      `<!doctype html><meta charset="utf-8"><title>${escape(title)}</title><body style="font-family:system-ui;max-width:48em;margin:2em auto;color:#1d232a"><h1 style="font-size:1.3rem">${escape(title)}</h1>${body}</body>`,
    );
}

export const paragraph = (text: string) => `<p>${escape(text)}</p>`;

export interface StorePageParts {
  store: LedgerStore;
  platform: string;
  shop: string;
  /** Where the full dashboard is. */
  dashboardUrl: string | undefined;
  notice?: string | undefined;
}

export async function sendStorePage(
  res: Response,
  { store, platform, shop, dashboardUrl, notice }: StorePageParts,
): Promise<void> {
  const id = reconciliationId(platform, shop);
  const [health, reconciliation, orders] = await Promise.all([
    store.getRecord<SubscriptionHealth>('platform-health', id),
    store.getRecord<ReconciliationState>('reconciliation', id),
    store.listOrders({ platform, shop, page: 1, limit: 20 }),
  ]);
  const hooks = !health
    ? 'Not checked yet: the bridge is setting them up. Reload this page in a minute.'
    : health.error
      ? `Could not be checked: ${health.error}`
      : health.problems.length > 0
        ? health.problems.map((problem) => `${problem.detail}. ${problem.fix}.`).join(' ')
        : `All ${health.healthy} in order (checked ${health.checkedAt}).${health.repaired.length ? ` Put right on that check: ${health.repaired.join('; ')}.` : ''}`;
  const rows = orders.orders
    .map(
      (order) =>
        `<tr><td>${escape(order.orderName || order.orderId)}</td><td>${escape(order.reason ? `${order.state} (${order.reason})` : order.state)}</td><td>${escape(order.upstream)}</td><td>${escape(order.updatedAt)}</td></tr>`,
    )
    .join('');
  const table =
    orders.total === 0
      ? paragraph('No order yet.')
      : `<p>${orders.total} order(s); the latest:</p><table style="border-collapse:collapse;width:100%"><thead><tr><th align="left">Order</th><th align="left">State</th><th align="left">Points</th><th align="left">Updated</th></tr></thead><tbody>${rows}</tbody></table>`;
  sendPage(
    res,
    200,
    `loyalty-bridge · store ${shop}`,
    [
      notice ? paragraph(notice) : '',
      `<h2 style="font-size:1.05rem">Webhooks</h2>${paragraph(hooks)}`,
      `<h2 style="font-size:1.05rem">Reconciliation</h2>${paragraph(reconciliation?.lastRun ? `Last run ${reconciliation.lastRun.finishedAt}: ${reconciliation.lastRun.fetched} order(s) read, ${reconciliation.lastRun.changed} changed, ${reconciliation.lastRun.failed} failed.` : 'Not run yet.')}`,
      `<h2 style="font-size:1.05rem">Orders</h2>${table}`,
      dashboardUrl
        ? `<p><a href="${escape(dashboardUrl)}" target="_blank" rel="noopener">Open the full dashboard</a> (it asks for the bridge’s admin token).</p>`
        : '',
    ].join(''),
  );
}
