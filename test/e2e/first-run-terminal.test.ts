// `npm start` with nothing configured, in a real terminal (tmux), as a newcomer reads it: one line per demo
// order, the links (the dashboard's, the demo shop's page) still on the screen once the handful is sent, and
// `loyalty-bridge resync` on the demo's shops drawing its bar to the end in a second terminal.
import { execFileSync, spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI } from '../helpers/cli-process.ts';
import { eventually, tempDataDir } from '../helpers/engine.ts';
import { tools } from '../helpers/test-tools.ts';

const bridgeSession = `lb-first-run-${process.pid}`;
const resyncSession = `lb-first-resync-${process.pid}`;
const quoted = (parts: string[]) => parts.map((part) => `'${part}'`).join(' ');
/** Everything the terminal showed, its long lines joined. */
const history = (session: string) =>
  execFileSync('tmux', ['capture-pane', '-p', '-J', '-S', '-', '-t', session], { encoding: 'utf8' });
const screen = (session: string) =>
  execFileSync('tmux', ['capture-pane', '-p', '-J', '-t', session], { encoding: 'utf8' });

describe.skipIf(!tools.tmux)('the first run in a terminal', () => {
  afterAll(() => {
    spawnSync('tmux', ['kill-session', '-t', resyncSession]);
    spawnSync('tmux', ['kill-session', '-t', bridgeSession]);
  });

  it('logs one line per demo order, keeps the links in sight, and resyncs the demo with a progress bar', async () => {
    execFileSync('tmux', [
      'new-session',
      '-d',
      '-s',
      bridgeSession,
      '-x',
      '200',
      '-y',
      '30',
      '-e',
      `DATA_DIR=${tempDataDir()}`,
      '-e',
      'PORT=0',
      '-e',
      'HOST=127.0.0.1',
      '-e',
      'DEMO_STORE=auto',
      `${quoted([process.execPath, CLI, 'start'])}; sleep 150`,
    ]);
    // The links are told when the bridge starts and again below the demo's handful of orders.
    await eventually(() => expect(history(bridgeSession).match(/Open the dashboard:/g)?.length).toBe(2), 60_000);
    const text = history(bridgeSession);
    const orders = text.match(/INFO: demo: (Shopify|WooCommerce|BigCommerce) order #\d+, [\d.,]+ [A-Z]{3}, .+/g) ?? [];
    expect(orders.length).toBeGreaterThanOrEqual(9);
    expect(orders.some((line) => line.includes('BigCommerce'))).toBe(true);
    expect(orders.some((line) => /earned 100 points/.test(line))).toBe(true);
    // The start's details on its own line, not a block of settings that scrolls the links away.
    expect(text).toMatch(/INFO: loyalty-bridge listening on \S+ in sandbox mode;[^\n]+ \{"port":\d+,/);
    // Nothing else per order: no block per delivery, no request lines.
    expect(text).not.toMatch(/INFO: webhook|request completed|reqId/);
    // Still on the screen as it stands: the links.
    const now = screen(bridgeSession);
    const dashboard = /Open the dashboard: (http:\/\/127\.0\.0\.1:\d+)\/admin\/#token=([\w-]+)/.exec(now);
    expect(dashboard).toBeTruthy();
    expect(now).toMatch(/the Shopify demo shop's own page: http:\/\/127\.0\.0\.1:\d+\/demo\/shop\?ticket=[\w-]+/);
    expect(now).toMatch(
      /the WooCommerce demo shop's own page: http:\/\/127\.0\.0\.1:\d+\/demo\/shop\/woocommerce\?ticket=[\w-]+/,
    );
    expect(now).toMatch(
      /the BigCommerce demo shop's own page: http:\/\/127\.0\.0\.1:\d+\/demo\/shop\/bigcommerce\?ticket=[\w-]+/,
    );
    expect(now).toMatch(
      /the demo stores \(Shopify, WooCommerce, BigCommerce\): http:\/\/127\.0\.0\.1:\d+\/demo\/storefront\//,
    );

    // A used link prints one line with its next one, not every link again (issue 68, item 7).
    const shopLink = /the Shopify demo shop's own page: (http:\S+)/.exec(now)![1]!;
    expect((await fetch(shopLink, { redirect: 'manual' })).status).toBeLessThan(400);
    await eventually(() =>
      expect(screen(bridgeSession)).toMatch(
        /That link to the Shopify demo shop's page is used; its next one \(one use\): http:\/\/127\.0\.0\.1:\d+\/demo\/shop\?ticket=[\w-]+\n/,
      ),
    );
    expect(history(bridgeSession).match(/Open the dashboard:/g)).toHaveLength(2);

    const [, url, token] = dashboard!;
    // --token=: a token may begin with a dash, which would read as an option.
    execFileSync('tmux', [
      'new-session',
      '-d',
      '-s',
      resyncSession,
      '-x',
      '160',
      '-y',
      '12',
      `${quoted([process.execPath, CLI, 'resync', '--platform', 'shopify', '--since', new Date(Date.now() - 3_600_000).toISOString(), '--url', url!, `--token=${token!}`])}; echo "exit $?"; sleep 150`,
    ]);
    await eventually(() => expect(screen(resyncSession)).toMatch(/exit \d/), 60_000);
    const resync = screen(resyncSession);
    expect(resync).toMatch(/resync █+ fetched [1-9]\d* \| changed 0 \| unchanged [1-9]\d* \| failed 0/);
    expect(resync).toMatch(/resync done: fetched [1-9]\d*, changed 0, unchanged [1-9]\d*, failed 0/);
    expect(resync).toMatch(/exit 0/);
  }, 150_000);
});
