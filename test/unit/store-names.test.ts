// A store's name as the merchant's page shows it (adapters/shared/store-names.ts): the merchant's own text, on
// one line, and never longer than the page has room for.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { STORE_NAME_MAX, StoreNames, storeNameText, storeNameType } from '../../adapters/shared/store-names.ts';
import { readWooSiteName } from '../../adapters/woocommerce/site-name.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';

describe('a store’s name, as its page shows it', () => {
  it('keeps what the merchant typed, on one line', () => {
    expect(storeNameText('  Tom & Jerry’s <Corner>\n\tShop  ')).toBe('Tom & Jerry’s <Corner> Shop');
    expect(storeNameText('Café\u0000 Ünïcode 🛍️')).toBe('Café Ünïcode 🛍️');
    expect(storeNameText('\u202eCrafts\u202c by 👨‍👩‍👧')).toBe('Crafts by 👨‍👩‍👧');
  });

  it('cuts a long name at the limit, with an ellipsis, never inside a character', () => {
    const cut = storeNameText(`${'🛍'.repeat(60)}${'a'.repeat(90)}`)!;
    expect([...cut]).toHaveLength(STORE_NAME_MAX);
    expect(cut.endsWith('…')).toBe(true);
    expect(cut.startsWith('🛍'.repeat(60))).toBe(true);
  });

  it('is no name at all when the platform gives none, or nothing but spaces', () => {
    for (const raw of [undefined, null, 42, '', '   \n'] as const) expect(storeNameText(raw)).toBeUndefined();
  });
});

describe('a store’s name, as the bridge reads and keeps it', () => {
  const withIndex = async (
    answer: (res: ServerResponse) => void,
    run: (url: string) => Promise<void>,
    asked: (path: string) => void = () => undefined,
  ) => {
    const server = createServer((req, res) => {
      asked(req.url ?? '');
      answer(res);
    });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    const { port } = server.address() as AddressInfo;
    try {
      await run(`http://127.0.0.1:${port}`);
    } finally {
      server.closeAllConnections();
      await new Promise((closed) => server.close(closed));
    }
  };
  const site = (url: string) => ({ url, requestUrl: undefined, outbound: { userAddress: true, allowPrivate: true } });

  it('reads the title alone, decoding what WordPress escaped, and nothing of an object’s own names', async () => {
    let asked = '';
    await withIndex(
      (res) => res.end(JSON.stringify({ name: 'Tom &amp; Jerry&#8217;s &constructor;' })),
      async (url) => expect(await readWooSiteName(site(url))).toBe('Tom & Jerry’s &constructor;'),
      (path) => (asked = path),
    );
    expect(asked).toBe('/wp-json/?_fields=name');
  });

  it('stops reading an index far longer than a title, and the store stays nameless', async () => {
    let sent = 0;
    await withIndex(
      (res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        // Up to 64 MB, unless the reader stops first.
        const more = () => {
          while (sent < 64 * 1024 * 1024) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', more);
          }
          res.end();
        };
        more();
      },
      async (url) => {
        await expect(readWooSiteName(site(url))).rejects.toThrow();
      },
    );
    expect(sent).toBeLessThan(8 * 1024 * 1024);
  });

  it('keeps no name for a store erased while its name was being read', async () => {
    const kept = new Map<string, unknown>();
    let served = true;
    let answer: (name: string) => void = () => undefined;
    const names = new StoreNames({
      store: {
        putRecord: async (_kind: string, id: string, value: unknown) => void kept.set(id, value),
        getRecord: async (_kind: string, id: string) => kept.get(id),
      } as unknown as LedgerStore,
      type: storeNameType('woocommerce-store-name'),
      platform: 'woocommerce',
      read: () => new Promise<string>((resolve) => (answer = resolve)),
      served: async () => served,
    });
    const reading = names.learn('https://shop.example');
    served = false;
    answer('Jane Doe Crafts');
    expect(await reading).toBeUndefined();
    expect(kept.size).toBe(0);
  });
});
