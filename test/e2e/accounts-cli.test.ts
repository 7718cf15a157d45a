// loyalty-bridge accounts and shops, run as an operator runs them: the real
// CLI in a child process, against a running bridge with --url and the admin
// token. The key goes in (on the command line, or on stdin with -) and never
// comes out: every line printed shows its last four characters at most.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBridge } from '../../src/composition/main.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { runCli } from '../helpers/cli-process.ts';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-server.ts';
import { SHOP, SHOPIFY_SECRET } from '../helpers/shopify.ts';

const TOKEN = 'accounts-cli-admin-token-0123456789';
const KEY = 'cli-account-secret-key-7e6d5c4b3a29-LMNO';
const OTHER_KEY = 'cli-account-other-key-1a2b3c4d5e6f-PQRS';

let bridge: RunningBridge;
let service: TestSandbox;
const printed: string[] = [];

beforeAll(async () => {
  service = await startTestSandbox({ apiKey: KEY, brandId: 'brand-cli' });
  bridge = await startTestBridge({
    ADMIN_TOKEN: TOKEN,
    ADMIN_TOKEN_LABEL: 'cli-operator',
    SHOPIFY_API_SECRET: SHOPIFY_SECRET,
    RECONCILE_INTERVAL_MINUTES: '0',
  });
});
afterAll(async () => {
  await bridge?.stop();
  await service?.close();
});

async function cli(args: string[], input?: string) {
  const result = await runCli([...args, '--url', bridge.http.localUrl, '--token', TOKEN], {}, input);
  printed.push(result.stdout, result.stderr);
  return result;
}

let id = '';

describe('loyalty-bridge accounts', () => {
  it('refuses to create an account without its fields (usage), and prints one line per bad field from the bridge', async () => {
    const usage = await cli(['accounts', 'create', '--name', 'Cli Club']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('accounts create needs --base-url, --api-key, --brand-id');
    const bad = await cli([
      'accounts',
      'create',
      '--name',
      'Cli Club',
      '--base-url',
      'ftp://nowhere.example',
      '--api-key',
      KEY,
      '--brand-id',
      'brand-cli',
      '--rate-limit',
      '0',
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/ {2}baseUrl: .*\n {2}rateLimitPerMinute: /);
  });

  it('creates one with the key read from stdin, and says its credentials were checked', async () => {
    const made = await cli(
      [
        'accounts',
        'create',
        '--name',
        'Cli Club',
        '--base-url',
        service.url,
        '--api-key',
        '-',
        '--brand-id',
        'brand-cli',
      ],
      `${KEY}\n`,
    );
    expect(made.code).toBe(0);
    expect(made.stdout).toMatch(/^created [0-9a-f-]{36} \(Cli Club\): credentials connected/);
    id = /^created (\S+)/.exec(made.stdout)?.[1] ?? '';
    expect((await bridge.accounts.get(id))?.apiKey).toBe(KEY);
  });

  it('lists the default account first, then each one with its key’s last four characters', async () => {
    const listed = await cli(['accounts', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^default {2}default \(the environment’s\) {2}\[read-only\]/);
    expect(listed.stdout).toContain(`${id}  Cli Club`);
    expect(listed.stdout).toContain('key …LMNO');
  });

  it('sets fields and program settings by their names, and shows the settings in force', async () => {
    const set = await cli(['accounts', 'set', id, 'name=Cli Rewards', 'rateLimitPerMinute=250', 'EARN_TRIGGER=placed']);
    expect(set.code).toBe(0);
    expect(set.stdout).toContain('changed name, rateLimitPerMinute of');
    expect(set.stdout).toContain('changed EARN_TRIGGER of');
    const shown = await cli(['accounts', 'show', id]);
    expect(shown.stdout).toContain('Cli Rewards');
    expect(shown.stdout).toContain('250 calls a minute');
    expect(shown.stdout).toMatch(/\* EARN_TRIGGER = "placed"/);
    expect(shown.stdout).toMatch(/ {2}MIN_ORDER_TOTAL = /);
    const reset = await cli(['accounts', 'set', id, 'EARN_TRIGGER=']);
    expect(reset.code).toBe(0);
    expect((await cli(['accounts', 'show', id])).stdout).toMatch(/ {2}EARN_TRIGGER = "paid"/);
  });

  it('prints the bridge’s lines when a change is refused, and a usage error for a key it does not know', async () => {
    const bad = await cli(['accounts', 'set', id, 'EARN_TRIGGER=sometimes', 'MIN_ORDER_TOTAL=lots']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/EARN_TRIGGER: /);
    expect(bad.stderr).toMatch(/MIN_ORDER_TOTAL: /);
    expect((await cli(['accounts', 'set', id, 'colour=red'])).code).toBe(2);
    expect((await cli(['accounts', 'set', 'default', 'name=mine'])).stderr).toContain('environment');
    const rotated = await cli(['accounts', 'set', id, `apiKey=${OTHER_KEY}`]);
    expect(rotated.stdout).toContain('credentials refused');
    expect((await cli(['accounts', 'set', id, 'apiKey=-'], KEY)).stdout).toContain('credentials connected');
  });
});

describe('loyalty-bridge shops', () => {
  it('lists the shops with the account each earns on, and moves one', async () => {
    expect((await cli(['shops', 'list'])).stdout).toMatch(new RegExp(`shopify +${SHOP} +earns on default`));
    const linked = await cli(['shops', 'link', 'shopify', SHOP, id]);
    expect(linked).toMatchObject({ code: 0 });
    expect(linked.stdout).toContain(`shopify ${SHOP} earns on Cli Rewards (${id})`);
    expect((await cli(['accounts', 'show', id])).stdout).toContain(`shops: shopify ${SHOP}`);
  });

  it('refuses to delete an account a shop is linked to, then deletes it once the shop is back on the default', async () => {
    const refused = await cli(['accounts', 'delete', id]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('shops are linked to it');
    expect((await cli(['shops', 'link', 'shopify', SHOP, 'none'])).stdout).toContain('earns on default');
    expect(await cli(['accounts', 'delete', id])).toMatchObject({ code: 0, stdout: `deleted ${id}\n` });
    expect((await cli(['shops', 'link', 'shopify', SHOP, id])).code).toBe(1);
  });

  it('needs --url: accounts change through a running bridge', async () => {
    const local = await runCli(['accounts', 'list'], {});
    expect(local.code).toBe(1);
    expect(local.stderr).toContain('give --url');
  });
});

describe('what the CLI printed', () => {
  it('never holds a key', async () => {
    const everything = printed.join('\n');
    expect(everything).toContain('…LMNO');
    for (const key of [KEY, OTHER_KEY]) expect(everything).not.toContain(key);
  });
});
