// Intake's view of a shop's install and its orders: an uninstall, a delivery that finds the app installed
// again, and orders that belong to another shop of the same platform.
import type { ActsOnce } from './platform-adapter.ts';
import type { Lease } from './leases.ts';
import type { InboxEntry, StoredDelivery } from './delivery.ts';
import { orderKey, type OrderEvent } from './order-event.ts';
import { ACCESS_KIND, SHOP_KIND } from './store/roles/core-kinds.ts';
import type { ShopState } from './store/ledger-store.ts';
import { actedOn } from './intake-acted-once.ts';
import type { IntakeSteps } from './intake-steps.ts';

/**
 * The app was removed from a shop (the adapter confirmed it with the
 * platform wherever it holds a token: a working token means installed). Its
 * token is forgotten and the shop marked uninstalled, unless the shop was
 * installed again meanwhile: an uninstall sent before the last install, or
 * a token saved after this delivery was read, is a newer install's, and it
 * stays (one compare-and-set on the token, across instances).
 */
export async function uninstalled(
  steps: IntakeSteps,
  entry: InboxEntry,
  delivery: StoredDelivery,
  once: ActsOnce | undefined,
  readAt: number,
  lease: Lease,
): Promise<void> {
  const shopId = `${delivery.platform}:${delivery.shop}`;
  const before = await steps.o.store.getRecord(SHOP_KIND, shopId);
  if (before?.installedAt && Date.parse(delivery.sentAt) <= Date.parse(before.installedAt)) {
    steps.o.logger.info(
      { platform: delivery.platform, shop: delivery.shop },
      'an uninstall sent before the app was last installed: the install stays',
    );
    return steps.commit({ entryKey: entry.key }, lease);
  }
  if (!steps.stillHeld(lease)) return;
  const session = await steps.o.store.changeRecord(ACCESS_KIND, shopId, (current) =>
    current && !(Date.parse(current.updatedAt ?? '') > readAt) ? { delete: true } : undefined,
  );
  if (!session.changed && session.value) {
    steps.o.logger.info(
      { platform: delivery.platform, shop: delivery.shop },
      'the app was installed again while the uninstall was read: the new install stays',
    );
    return steps.commit({ entryKey: entry.key }, lease);
  }
  steps.o.logger.info(
    { platform: delivery.platform, shop: delivery.shop },
    'the app was uninstalled from a shop; its access token is forgotten',
  );
  await steps.o.privacy.shopUninstalled(delivery.platform, delivery.shop);
  const state: ShopState = {
    ...before,
    platform: delivery.platform,
    shop: delivery.shop,
    uninstalledAt: delivery.sentAt,
  };
  return steps.commit(
    { entryKey: entry.key, shop: state, ...(once ? { records: [actedOn(steps, delivery)] } : {}) },
    lease,
  );
}

/**
 * Where a platform's order ids are unique across its shops (its adapter
 * says orderIdsAreGlobal), each order belongs to the first shop it came from: a delivery of it under
 * another shop's name (a captured body sent with another shop's header,
 * which is not signed) would make it earn twice. The reason, or undefined.
 */
export async function foreignOrders(steps: IntakeSteps, events: readonly OrderEvent[]): Promise<string | undefined> {
  for (const event of events) {
    if (!steps.o.adapterFor(event.platform)?.orderIdsAreGlobal) continue;
    const key = orderKey(event);
    const owner = await steps.o.store.claimLpOrderId(`${event.platform}-order:${event.orderId}`, key);
    if (owner !== key) return `order ${event.orderId} is ${owner.slice(0, owner.lastIndexOf(':'))}'s`;
  }
  return undefined;
}

/**
 * An order delivery from a shop the app was uninstalled from: sent before
 * the uninstall, it is ignored; sent after, the app is back (reinstalled
 * without OAuth, or by the platform itself), and the uninstall is cleared. When
 * it was sent is the earlier of the time its headers give (never after its
 * arrival) and the time its signed body gives its order: a captured
 * delivery of before the uninstall, sent again later with a header dated
 * now, still tells of an order as it was then.
 */
export async function reinstall(
  steps: IntakeSteps,
  delivery: StoredDelivery,
  events: readonly OrderEvent[],
): Promise<{ shop?: ShopState; ignore?: true }> {
  const state = await steps.o.store.getRecord(SHOP_KIND, `${delivery.platform}:${delivery.shop}`);
  if (!state?.uninstalledAt) return {};
  const bodyTime = Math.max(
    ...events.map((event) => Date.parse(event.occurredAt)).filter((time) => !Number.isNaN(time)),
  );
  const sent = Math.min(Date.parse(delivery.sentAt), Number.isFinite(bodyTime) ? bodyTime : Number.POSITIVE_INFINITY);
  if (sent <= Date.parse(state.uninstalledAt)) return { ignore: true };
  steps.o.logger.info(
    { platform: delivery.platform, shop: delivery.shop },
    'a delivery sent after the uninstall: the app is installed again',
  );
  return { shop: { ...state, uninstalledAt: null, installedAt: delivery.sentAt } };
}
