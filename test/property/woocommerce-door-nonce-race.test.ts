// A door nonce opens one session however its finishes arrive (adapters/woocommerce/plugin-door.ts): the same
// browser's finish sent twice at once (a double click, a reload while the first is under way) opens the merchant's
// page once, on either of the ledger's backends (PostgreSQL's finishes really run at once, on its pool).
import { describe, expect, it } from 'vitest';
import { pluginDoorRoutes } from '../../adapters/woocommerce/plugin-door.ts';
import { keepPluginKey, newPluginKey } from '../../adapters/woocommerce/plugin-keys.ts';
import { BridgeAnswer } from '../../src/core/platform-answers.ts';
import { createLogger } from '../../src/logger.ts';
import { ledgerBackends } from '../helpers/ledger-backends.ts';
import { DOOR_PURPOSE, pluginSigned } from '../helpers/woocommerce-plugin.ts';

const SHOP = 'shop.example';
const logger = createLogger({ level: 'silent' });

const request = (path: string, query: Record<string, string>, cookie?: string): Request =>
  new Request(`http://bridge.example/woocommerce${path}?${new URLSearchParams(query).toString()}`, {
    headers: cookie ? { cookie } : {},
  });

/** Whom the answer opens the merchant's page for, if it is that page. */
const opened = (answer: Response) =>
  answer instanceof BridgeAnswer && answer.rendered.kind === 'merchant-page' ? answer.rendered.opened : undefined;

describe.each(ledgerBackends())('door nonces on %s', (_name, available, open) => {
  it.skipIf(!available)(
    'two finishes at once with the same cookie and link open one session',
    async () => {
      const store = await open();
      const key = newPluginKey();
      await keepPluginKey(store, {
        platform: 'woocommerce',
        shop: SHOP,
        ...key,
        storeUrl: `https://${SHOP}`,
        connectedAt: new Date().toISOString(),
      });
      const [start, finish] = pluginDoorRoutes({ store, publicUrl: 'https://bridge.example', logger });
      for (let round = 0; round < 10; round++) {
        const started = await start!.handle(request('/plugin-door', { store: SHOP }));
        const nonce = new URL(started.headers.get('location')!).searchParams.get('nonce')!;
        const cookie = started.headers.getSetCookie()[0]!.split(';')[0]!;
        const { payload, sig } = pluginSigned(
          DOOR_PURPOSE,
          {
            purpose: 'merchant-door',
            store: SHOP,
            keyId: key.keyId,
            nonce,
            user: 1,
            iat: Math.floor(Date.now() / 1000),
          },
          key.key,
        );
        const finishing = () => finish!.handle(request('/plugin-door/finish', { payload, sig }, cookie));
        const answers = await Promise.all([finishing(), finishing(), finishing()]);
        expect(answers.map(opened).filter((each) => each !== undefined)).toEqual([
          // A payload that does not say the user may connect the plugin: they may not (no connection codes).
          { shop: SHOP, user: '1', mayConnectPlugin: false },
        ]);
        expect(answers.filter((answer) => answer.status === 401)).toHaveLength(2);
      }
    },
    20_000,
  );
});
