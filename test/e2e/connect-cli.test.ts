// loyalty-bridge connect --platform woocommerce --store <address>, run as a
// merchant runs it: through a running bridge (--url), and alone, where the
// command itself receives WooCommerce's key callback at PUBLIC_URL and the
// bridge started afterwards takes the store over. The merchant's part (log
// in to WordPress, approve) is test/helpers/wordpress-merchant.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../bench/lib/bridge-process.ts';
import type { RunningBridge } from '../../src/composition/main.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { spawnCli } from '../helpers/cli-process.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { startFakeWooCommerce, type FakeWooCommerce } from '../helpers/fake-woocommerce.ts';
import { opensslAvailable, startHttpsFront, type HttpsFront } from '../helpers/https-front.ts';
import { wooOrderJson } from '../helpers/woocommerce.ts';
import { answerConsent } from '../helpers/wordpress-merchant.ts';

const ADMIN_TOKEN = 'connect-cli-admin-token-0123456789abcdef';
const AUTHORIZE = /(http:\/\/\S+\/wc-auth\/v1\/authorize\?\S+)/;
const TOPICS = ['order.created', 'order.deleted', 'order.restored', 'order.updated'];

describe.skipIf(!opensslAvailable)('connect --platform woocommerce', () => {
  let front: HttpsFront;
  let woo: FakeWooCommerce;
  beforeAll(async () => {
    front = await startHttpsFront();
  });
  afterAll(async () => {
    await front.close();
  });

  it('through a running bridge: prints the link, waits for the approval, and says which webhooks it made', async () => {
    woo = await startFakeWooCommerce();
    const bridge: RunningBridge = await startTestBridge({
      PUBLIC_URL: front.url,
      ADMIN_TOKEN,
      RECONCILE_INTERVAL_MINUTES: '0',
    });
    front.forwardTo(bridge.http.localUrl);
    try {
      const cli = spawnCli(
        [
          'connect',
          '--platform',
          'woocommerce',
          '--store',
          woo.url,
          '--url',
          bridge.http.localUrl,
          '--token',
          ADMIN_TOKEN,
        ],
        {},
      );
      const [, link] = await cli.waitFor(AUTHORIZE);
      expect((await answerConsent(link!, 'approve')).searchParams.get('success')).toBe('1');
      const { code, output } = await cli.exited;
      expect(output).toContain(`Connected ${woo.host}.`);
      for (const topic of TOPICS)
        expect(output).toMatch(new RegExp(`${topic.replace('.', '\\.')}: created webhook \\d+`));
      expect(code).toBe(0);
      expect(woo.webhooks.map((webhook) => webhook.topic).sort()).toEqual(TOPICS);
    } finally {
      await bridge.stop();
      await woo.close();
    }
  }, 60_000);

  it('alone: receives the key itself, makes the webhooks, and the bridge started afterwards earns from the store', async () => {
    woo = await startFakeWooCommerce();
    const dataDir = tempDataDir();
    const port = await freePort();
    front.forwardTo(`http://127.0.0.1:${port}`);
    try {
      // The fake store is on 127.0.0.1: a store on this machine, as in development.
      const cli = spawnCli(['connect', '--platform', 'woocommerce', '--store', woo.url], {
        PORT: String(port),
        PUBLIC_URL: front.url,
        DATA_DIR: dataDir,
        ALLOW_PRIVATE_STORE_ADDRESSES: 'true',
      });
      const [, link] = await cli.waitFor(AUTHORIZE);
      expect((await answerConsent(link!, 'approve')).searchParams.get('success')).toBe('1');
      const { code, output } = await cli.exited;
      expect(output).toContain(`Connected ${woo.host}.`);
      expect(code).toBe(0);
      expect(woo.webhooks.map((webhook) => `${webhook.topic} ${webhook.status}`).sort()).toEqual(
        TOPICS.map((topic) => `${topic} active`),
      );

      const bridge = await startTestBridge({
        DATA_DIR: dataDir,
        PUBLIC_URL: front.url,
        ADMIN_TOKEN,
        RECONCILE_INTERVAL_MINUTES: '0',
      });
      front.forwardTo(bridge.http.localUrl);
      try {
        woo.orders.set(
          8200,
          JSON.parse(wooOrderJson({ id: 8200, status: 'processing', email: 'cli@example.com' })) as Record<
            string,
            unknown
          >,
        );
        expect(await woo.deliver('order.created', 8200)).toEqual([200]);
        await bridge.engine.drain();
        expect(bridge.sandbox?.store.snapshot().earnings.filter((each) => each.orderId === '8200')).toEqual([
          expect.objectContaining({ status: 'pending', email: 'cli@example.com' }),
        ]);
      } finally {
        await bridge.stop();
      }
    } finally {
      await woo.close();
    }
  }, 60_000);

  it('refuses without https PUBLIC_URL, and without a store address', async () => {
    const noHttps = spawnCli(['connect', '--platform', 'woocommerce', '--store', 'https://store.example'], {
      PUBLIC_URL: 'http://127.0.0.1:3000',
    });
    expect(await noHttps.exited).toMatchObject({
      code: 1,
      output: expect.stringContaining('PUBLIC_URL must be https'),
    });
    const noStore = spawnCli(['connect', '--platform', 'woocommerce'], {});
    expect(await noStore.exited).toMatchObject({ code: 1, output: expect.stringContaining('needs --store') });
  });
});
