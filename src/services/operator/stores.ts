// The operator's stores: every store a platform's module lists (its `connections`) and what the last check of its
// webhooks found and did (never a key or secret), and a connect started for each module that connects a store by
// its address (with landing "store-page", the merchant lands on their store's own page).
import type { ConnectLanding } from '../../core/platform-shapes.ts';
import type { PlatformNames, StoreConnectionView } from '../../core/platform-module.ts';
import { HEALTH_KIND, type SubscriptionHealth } from '../../core/order-source.ts';
import { reconciliationId } from '../../core/reconciler.ts';
import { RECONCILIATION_KIND } from '../../core/store/roles/core-kinds.ts';
import { BadInput } from '../refused.ts';
import { Declined } from './declined.ts';
import type { OperatorParts } from './parts.ts';

export interface StoreView extends StoreConnectionView {
  /** The platform's code name. */
  platform: string;
  /** Its name as a person reads it. */
  platformLabel: string;
  subscriptions: SubscriptionHealth | null;
  reconciledAt: string | null;
}

/** A platform whose stores the operator connects by address: its names, and why a connect cannot start now. */
export interface ConnectView {
  platform: string;
  names: PlatformNames;
  possible: boolean;
  problem: string | null;
}

/** A connect asked for: the store's address and where the browser lands once approved. */
export interface ConnectAsked {
  store: string;
  landing: ConnectLanding | undefined;
}

type StoresParts = Pick<OperatorParts, 'engine' | 'platforms' | 'demoShops'>;

/** A connect begun: where the browser goes to approve it, and until when the link works. */
export interface ConnectBegun {
  authorizeUrl: string;
  shop: string;
  storeUrl: string;
  expiresAt: string;
}

export interface OperatorStores {
  stores(): Promise<{ stores: StoreView[]; connect: ConnectView[] }>;
  /** `asked` reads the request once the platform is known to connect stores: an unknown one is answered first. */
  connectStore(platform: string, asked: () => ConnectAsked): Promise<ConnectBegun>;
}

export const operatorStores = (parts: StoresParts): OperatorStores => ({
  stores: async () => {
    const connect: ConnectView[] = parts.platforms.modules.flatMap(({ module, parts: built }) => {
      if (!built.connect) return [];
      const problem = built.connect.problem() ?? null;
      return [{ platform: module.name, names: module.names, possible: problem === null, problem }];
    });
    return { stores: await storeViews(parts), connect };
  },
  connectStore: async (platform: string, asked: () => ConnectAsked) => {
    const connect = parts.platforms.modules.find(
      ({ module, parts: built }) => module.name === platform && built.connect,
    )?.parts.connect;
    if (!connect) throw new Declined(404, `no platform ${platform} connects a store by its address`);
    const { store, landing } = asked();
    const problem = connect.problem();
    if (problem) throw new Declined(409, problem);
    const begun = await connect.begin(store, landing ?? 'dashboard');
    if (!begun.ok) throw new BadInput('store', begun.problem);
    return begun.began;
  },
});

/** Every store as the operator is shown it: no key, token or secret. */
async function storeViews({ engine: { store }, platforms, demoShops }: StoresParts): Promise<StoreView[]> {
  const health = async (platform: string, shop: string) =>
    (await store.getRecord(HEALTH_KIND, reconciliationId(platform, shop))) ?? null;
  const reconciled = async (platform: string, shop: string) =>
    (await store.getRecord(RECONCILIATION_KIND, reconciliationId(platform, shop)))?.lastRun?.finishedAt ?? null;
  const views: StoreView[] = [];
  for (const { module, parts } of platforms.modules) {
    for (const each of (await parts.connections?.list()) ?? []) {
      // Each field of the view by name: whatever else a module hands over with it (its record's key) stays here.
      const { shop, url, via, connectedAt, keyPermissions, authMode } = each;
      views.push({
        platform: module.name,
        platformLabel: module.names.platform,
        shop,
        url,
        via,
        connectedAt,
        keyPermissions,
        authMode,
        subscriptions: await health(module.name, each.shop),
        reconciledAt: await reconciled(module.name, each.shop),
      });
    }
  }
  return withDemoShops(views, demoShops(), platforms);
}

/** The demo's shops marked as the demo's (one configured by the demo is listed once), the others added. */
function withDemoShops(
  views: StoreView[],
  demo: ReadonlyArray<{ platform: string; shop: string }>,
  platforms: StoresParts['platforms'],
): StoreView[] {
  const isDemo = (view: StoreView) =>
    demo.some(({ platform, shop }) => view.platform === platform && view.shop === shop);
  const listed = views.map((view) => (isDemo(view) ? { ...view, via: 'demo' } : view));
  const added = demo
    .filter(({ platform, shop }) => !views.some((view) => view.platform === platform && view.shop === shop))
    .map(({ platform, shop }): StoreView => ({
      platform,
      platformLabel:
        platforms.modules.find(({ module }) => module.name === platform)?.module.names.platform ?? platform,
      shop,
      url: null,
      via: 'demo',
      connectedAt: null,
      keyPermissions: null,
      authMode: null,
      subscriptions: null,
      reconciledAt: null,
    }));
  return [...listed, ...added];
}
