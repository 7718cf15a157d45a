// The ledger as a platform's module receives it: its records (module-records.ts), and of the other roles only what
// the modules use, each held to the module's own platform. A plain object, not the store behind a proxy: nothing
// else of the store (its export of every record with secrets opened, its database, another shop's erasure) is
// reachable from a module, whether it is checked by TypeScript or not.
import type { AnyPlatformModule, PlatformStore } from '../core/platform-module.ts';
import type { LedgerStore } from '../core/store/ledger-store.ts';
import {
  isModulesId,
  moduleRecords,
  OutsideModuleError,
  type ModuleRecordScope,
} from '../core/store/roles/module-records.ts';

/** The ledger for this module: its own kinds (`records`), the shared ones it lists, its own platform's work. */
export function moduleStore(
  store: LedgerStore,
  module: Pick<AnyPlatformModule, 'name' | 'records' | 'sharedRecords'>,
): PlatformStore {
  const { name } = module;
  const scope: ModuleRecordScope = { name, own: Object.keys(module.records), shared: module.sharedRecords };
  const own = async (yes: boolean, what: string): Promise<void> => {
    if (!yes) throw new OutsideModuleError(name, what);
  };
  const ownKey = (key: string) => key.startsWith(`${name}:`);
  const ownLetter = (letter: { platform?: string | undefined }) => letter.platform === name;
  return {
    ...moduleRecords(store, scope),
    // Its own locks alone: another platform's (a token's renewal) is never held up by it.
    exclusive: async (lock, fn) => (
      await own(isModulesId(name, lock), 'locks of other parts'),
      store.exclusive(lock, fn)
    ),
    countOrders: () => store.countOrders(),
    listOrders: async (query) => (
      await own(query.platform === name, 'orders of other platforms'),
      store.listOrders(query)
    ),
    getOrder: async (key) => (await own(ownKey(key), 'orders of other platforms'), store.getOrder(key)),
    // An order's own lp_orderid alone (as its record says, or its platform's ownership claim): another order's,
    // or another platform's claim to an order, would stop that order's calls or its deliveries.
    claimLpOrderId: async (lpOrderId, key, options) => {
      const ours =
        ownKey(key) &&
        (lpOrderId.startsWith(`${name}-order:`) || (await store.getOrder(key))?.upstream.lpOrderId === lpOrderId);
      await own(ours, "another order's lp_orderid");
      return store.claimLpOrderId(lpOrderId, key, options);
    },
    listDeadLetters: async () => (await store.listDeadLetters()).filter(ownLetter),
    getDeadLetter: async (id) => {
      const letter = await store.getDeadLetter(id);
      return letter && ownLetter(letter) ? letter : undefined;
    },
    addDeadLetter: async (letter) => (
      await own(ownLetter(letter), 'dead letters of other platforms'),
      store.addDeadLetter(letter)
    ),
    removeDeadLetter: async (id) => {
      const letter = await store.getDeadLetter(id);
      return letter && ownLetter(letter) ? store.removeDeadLetter(id) : undefined;
    },
    // Its own shops, and of the dedupe keys only those under its own name: none of another platform's is forgotten.
    eraseShop: async (platform, shop, keyPrefix) => (
      await own(platform === name && (keyPrefix === undefined || ownKey(keyPrefix)), 'shops of other platforms'),
      store.eraseShop(platform, shop, keyPrefix)
    ),
    importItems: async (items) => (
      await own(
        items.every((item) => item.type === 'order' && item.record.platform === name && ownKey(item.record.key)),
        'anything but its own orders to import',
      ),
      store.importItems(items)
    ),
  };
}
