// The merchant's storefront switch saved across the shop's uninstall or erasure, on the ledger's own backends: the
// put held until the uninstall (or erasure) is done must not leave the switch on for a shop that left
// (src/core/storefront/storefront-switch.ts; the uninstall forgets the install, then turns the storefront off).
import { describe, expect, it } from 'vitest';
import { Privacy } from '../../src/core/privacy.ts';
import { setStorefront, storefrontOn } from '../../src/core/storefront/storefront-switch.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { createLogger } from '../../src/logger.ts';
import { gate, ledgerBackends } from '../helpers/ledger-backends.ts';
import { storeWith } from '../helpers/store-with.ts';
import { raw } from '../helpers/raw-records.ts';

const logger = createLogger({ level: 'silent' });
const backends = ledgerBackends();

const [platform, shop] = ['shopify', 'leaving.myshopify.com'];
const sessionId = `${platform}:${shop}`;

/** The store, with the switch's put held at the gate. */
function heldPut(store: LedgerStore) {
  const reached = gate();
  const held = gate();
  const slow = storeWith(store, {
    putRecord: async (kind, id, value) => {
      reached.open();
      await held.opened;
      return store.putRecord(kind, id, value);
    },
  });
  return { slow, reached, held };
}

/** As intake.ts uninstalls: the install (its session) is forgotten, then the storefront is turned off. */
async function uninstall(store: LedgerStore, privacy: Privacy) {
  await store.changeRecord(raw('session'), sessionId, () => ({ delete: true }));
  await privacy.shopUninstalled(platform, shop);
}

describe.each(backends)('the storefront switch saved across the shop leaving (%s)', (_name, available, open) => {
  for (const [leaving, leave] of [
    ['uninstall', uninstall],
    ['erasure', (_store: LedgerStore, privacy: Privacy) => privacy.eraseShop(platform, shop, 'platform')],
  ] as const)
    it.runIf(available)(`a switch turned on as the shop's ${leaving} runs stays off`, async () => {
      const store = await open();
      await store.putRecord(raw('session'), sessionId, { platform, shop, token: 't' });
      const privacy = new Privacy({ store, adapterFor: () => undefined, logger });
      const served = async () => (await store.getRecord(raw('session'), sessionId)) !== undefined;
      const { slow, reached, held } = heldPut(store);

      const turning = setStorefront(slow, { platform, shop, on: true, by: 'merchant' }, served);
      await reached.opened; // the page's PUT is on its way, past its checks
      await leave(store, privacy);
      held.open();

      expect(await turning).toBe('not-served');
      expect(await storefrontOn(store, platform, shop)).toBe(false);
      expect(await store.getRecord(raw('storefront'), sessionId)).toBeUndefined();
    });

  for (const [leaving, leave] of [
    ['uninstall', uninstall],
    ['erasure', (_store: LedgerStore, privacy: Privacy) => privacy.eraseShop(platform, shop, 'platform')],
  ] as const)
    it.runIf(available)(
      `a refused write during the shop's ${leaving} puts back no switch for a shop that left`,
      async () => {
        const store = await open();
        await store.putRecord(raw('session'), sessionId, { platform, shop, token: 't' });
        const privacy = new Privacy({ store, adapterFor: () => undefined, logger });
        const served = async () => (await store.getRecord(raw('session'), sessionId)) !== undefined;
        expect(await setStorefront(store, { platform, shop, on: true, by: 'merchant' }, served)).toBe('saved');
        // The next put is held while the shop leaves, then refused (a full disk); putting back what was there follows.
        const reached = gate();
        const held = gate();
        let refused = false;
        const failing = storeWith(store, {
          putRecord: async (kind, id, value) => {
            if (refused) return store.putRecord(kind, id, value);
            refused = true;
            reached.open();
            await held.opened;
            throw new Error('ENOSPC: no space left on device');
          },
        });

        const turning = setStorefront(failing, { platform, shop, on: false, by: 'merchant' }, served);
        await reached.opened;
        await leave(store, privacy);
        held.open();

        await expect(turning).rejects.toThrow(/ENOSPC/);
        expect(await storefrontOn(store, platform, shop)).toBe(false);
        if (leaving === 'erasure') expect(await store.getRecord(raw('storefront'), sessionId)).toBeUndefined();
      },
    );

  it.runIf(available)('a switch turned on while the shop is served is saved', async () => {
    const store = await open();
    await store.putRecord(raw('session'), sessionId, { platform, shop, token: 't' });
    const served = async () => (await store.getRecord(raw('session'), sessionId)) !== undefined;
    expect(await setStorefront(store, { platform, shop, on: true, by: 'merchant' }, served)).toBe('saved');
    expect(await storefrontOn(store, platform, shop)).toBe(true);
  });
});
