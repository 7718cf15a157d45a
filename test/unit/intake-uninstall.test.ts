// The uninstall's last step, on its own: an install saved while the
// uninstall was being read (a merchant who removed the app and added it again
// at once, on this bridge or another on the same ledger) is newer than
// anything the platform was asked, and it stays. The adapter here plays
// that reinstall: it saves a new token in the middle of its translation.
import { describe, expect, it } from 'vitest';
import type { PlatformAdapter, Translation } from '../../src/core/platform-adapter.ts';
import type { StoredDelivery } from '../../src/core/delivery.ts';
import type { Engine } from '../../src/core/engine.ts';
import type { ShopState } from '../../src/core/store/ledger-store.ts';
import { sandboxWithEngines } from '../helpers/engine.ts';
import { raw } from '../helpers/raw-records.ts';

const SHOP = 'reinstalled.example';
const sessionId = `testshop:${SHOP}`;

function adapterReinstallingWhileRead(engine: () => Engine, reinstall: boolean): PlatformAdapter<unknown> {
  return {
    platform: 'testshop',
    orderIdsAreGlobal: false,
    actsOnce: { 'app/uninstalled': 'per-install' },
    keptBody: null,
    shopKeyPrefix: null,
    preflight: () => ({ ok: true }),
    verify: () => Promise.reject(new Error('not used')),
    describe: () => {
      throw new Error('not used');
    },
    async translate(): Promise<Translation> {
      // The platform refused the old token a moment ago; meanwhile the merchant installs the app again.
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (reinstall)
        await engine().store.putRecord(raw('session'), sessionId, {
          shop: SHOP,
          accessToken: 'new-token',
          updatedAt: new Date().toISOString(),
        });
      return { kind: 'uninstalled' };
    },
    redact: (stored) => ({ about: false, redacted: stored }),
  };
}

const uninstall = (n: number): StoredDelivery => ({
  platform: 'testshop',
  topic: 'app/uninstalled',
  shop: SHOP,
  sentAt: new Date().toISOString(),
  headers: {},
  body: `{"shop":"${SHOP}","n":${n}}`,
  bodyEncoding: 'utf8',
});

describe('an uninstall read while the app is installed again', () => {
  const { start } = sandboxWithEngines();

  it('leaves the token saved after it was read, and does not mark the shop uninstalled', async () => {
    const engine: Engine = await start({
      adapterFor: (platform) =>
        platform === 'testshop' ? adapterReinstallingWhileRead(() => engine, true) : undefined,
    });
    await engine.store.putRecord(raw('session'), sessionId, {
      shop: SHOP,
      accessToken: 'old-token',
      updatedAt: new Date(Date.now() - 60_000).toISOString(),
    });
    await engine.ingest.delivery('uninstall-1', uninstall(1), []);
    await engine.drain();
    expect(await engine.store.getRecord(raw('session'), sessionId)).toMatchObject({ accessToken: 'new-token' });
    expect((await engine.store.getRecord(raw<ShopState>('shop'), sessionId))?.uninstalledAt ?? null).toBeNull();
  });

  it('forgets the token it was about, and marks the shop uninstalled, when nothing was saved since', async () => {
    const engine: Engine = await start({
      adapterFor: (platform) =>
        platform === 'testshop' ? adapterReinstallingWhileRead(() => engine, false) : undefined,
    });
    await engine.store.putRecord(raw('session'), sessionId, {
      shop: SHOP,
      accessToken: 'old-token',
      updatedAt: new Date(Date.now() - 60_000).toISOString(),
    });
    await engine.ingest.delivery('uninstall-2', uninstall(2), []);
    await engine.drain();
    expect(await engine.store.getRecord(raw('session'), sessionId)).toBeUndefined();
    expect((await engine.store.getRecord(raw<ShopState>('shop'), sessionId))?.uninstalledAt).toEqual(
      expect.any(String),
    );
  });
});
