// The CLI in a real terminal: `loyalty-bridge resync` run under tmux against
// a running bridge whose WooCommerce store (the fake, over HTTP) has hundreds
// of orders; the progress bar is read from the screen as a merchant sees it.
import { execFileSync, spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBridge } from '../../src/composition/main.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { CLI } from '../helpers/cli-process.ts';
import { eventually, tempDataDir } from '../helpers/engine.ts';
import { startFakeWooCommerce, type FakeWooCommerce } from '../helpers/fake-woocommerce.ts';
import { tools } from '../helpers/test-tools.ts';
import { WOO_SECRET, wooOrderJson } from '../helpers/woocommerce.ts';

const TOKEN = 'terminal-admin-token-0123456789abcdef';
// Three pages of the store's API: the bar moves, then fills. A loaded machine folds about ten orders a second.
const ORDERS = 300;
const session = `lb-resync-${process.pid}`;

describe.skipIf(!tools.tmux)('resync in a terminal', () => {
  let woo: FakeWooCommerce;
  let bridge: RunningBridge;

  beforeAll(async () => {
    woo = await startFakeWooCommerce({ consumerKey: 'ck_test', consumerSecret: 'cs_test' });
    for (let id = 1; id <= ORDERS; id++) {
      const minute = String(Math.floor(id / 60) % 60).padStart(2, '0');
      woo.orders.set(
        id,
        JSON.parse(
          wooOrderJson({
            id: 70_000 + id,
            status: 'processing',
            modified: `2026-11-20T10:${minute}:${String(id % 60).padStart(2, '0')}`,
          }),
        ) as Record<string, unknown>,
      );
    }
    bridge = await startTestBridge({
      ADMIN_TOKEN: TOKEN,
      WOOCOMMERCE_WEBHOOK_SECRET: WOO_SECRET,
      WOOCOMMERCE_URL: woo.url,
      WOOCOMMERCE_CONSUMER_KEY: 'ck_test',
      WOOCOMMERCE_CONSUMER_SECRET: 'cs_test',
      RECONCILE_INTERVAL_MINUTES: '0',
    });
  });
  afterAll(async () => {
    spawnSync('tmux', ['kill-session', '-t', session]);
    await bridge?.stop();
    await woo?.close();
  });

  it('draws a progress bar that ends full, with the counts, and the summary line', async () => {
    const command = [
      process.execPath,
      CLI,
      'resync',
      '--platform',
      'woocommerce',
      '--since',
      '2026-11-19',
      '--url',
      bridge.http.localUrl,
      '--token',
      TOKEN,
    ]
      .map((part) => `'${part}'`)
      .join(' ');
    // The shell stays after the command, so that the screen can still be read.
    execFileSync('tmux', [
      'new-session',
      '-d',
      '-s',
      session,
      '-x',
      '160',
      '-y',
      '12',
      '-e',
      `DATA_DIR=${tempDataDir()}`,
      '-e',
      'DEMO_STORE=off',
      `${command}; echo "exit $?"; sleep 150`,
    ]);
    const screen = () => execFileSync('tmux', ['capture-pane', '-p', '-t', session], { encoding: 'utf8' });
    await eventually(() => expect(screen()).toMatch(/exit \d/), 120_000);
    const text = screen();
    expect(text).toMatch(/resync █+ fetched 300 \| changed 300 \| unchanged 0 \| failed 0/);
    expect(text).not.toMatch(/resync [█]*░/);
    expect(text).toMatch(/resync done: fetched 300, changed 300, unchanged 0, failed 0/);
    expect(text).toMatch(/exit 0/);
  }, 150_000);
});
