// The addresses an operator configures (review of issue 28): one that holds
// a key (a user name and password, a query string) is refused when the
// bridge starts; and plain http goes only to exactly localhost or a loopback number,
// never to a *.localhost name, which the system's resolver may answer from
// the network.
import { afterEach, describe, expect, it } from 'vitest';
import { beginWooConnect } from '../../adapters/woocommerce/connect.ts';
import { adminClient } from '../../src/cli/admin-client.ts';
import { loadConfig } from '../../src/config.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { startRecorder, type Recorder } from '../helpers/outbound-listeners.ts';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});
async function recorder(): Promise<Recorder> {
  const started = await startRecorder();
  closers.push(() => started.close());
  return started;
}

const SECRETS = ['secretpw', 'qsecret', 'fragsecret'];
const expectNoSecret = (text: string) => {
  for (const secret of SECRETS) expect(text).not.toContain(secret);
};

const lines = (env: Record<string, string>) => {
  const loaded = loadConfig({ env: { LOYALTY_API_KEY: 'k', LOYALTY_BRAND_ID: 'b', ...env } });
  return loaded.ok ? [] : loaded.errors;
};

describe('a configured address with a key in it', () => {
  it.each([
    ['LOYALTY_BASE_URL', 'https://user:secretpw@loyalty.example.com', /must not hold a user name or password/],
    ['LOYALTY_BASE_URL', 'https://loyalty.example.com/?apikey=qsecret', /must not hold a query string/],
    ['LOYALTY_BASE_URL', 'https://loyalty.example.com/#fragsecret', /must not hold a query string or fragment/],
    ['WOOCOMMERCE_URL', 'https://admin:secretpw@store.example', /must not hold a user name or password/],
    ['BIGCOMMERCE_API_URL', 'https://api.example/?token=qsecret', /must not hold a query string/],
    ['BIGCOMMERCE_LOGIN_URL', 'https://u:secretpw@login.example', /must not hold a user name or password/],
    ['SHOPIFY_APP_URL', 'https://bridge.example/?k=qsecret', /must not hold a query string/],
    ['PUBLIC_URL', 'https://u:secretpw@bridge.example', /must not hold a user name or password/],
  ])('%s=%s stops the start with one line that names the key and quotes none of it', (key, value, why) => {
    const errors = lines({ [key]: value });
    expect(errors).toEqual([expect.stringMatching(new RegExp(`^${key} \\(environment\\): `))]);
    expect(errors[0]).toMatch(why);
    expectNoSecret(errors.join('\n'));
  });
});

describe('plain http goes only to exactly localhost or a loopback number', () => {
  it.each(['LOYALTY_BASE_URL', 'WOOCOMMERCE_URL', 'BIGCOMMERCE_API_URL', 'BIGCOMMERCE_LOGIN_URL'])('%s=http://anything.localhost:4010 is refused as plain http', (key) => {
    expect(lines({ [key]: 'http://anything.localhost:4010' })).toEqual([expect.stringMatching(new RegExp(`^${key} \\(environment\\): must be an https URL`))]);
  });

  it('LOYALTY_BASE_URL=http://[::ffff:127.0.0.1]:4010, this machine in IPv4-mapped form, is accepted', () => {
    expect(lines({ LOYALTY_BASE_URL: 'http://[::ffff:127.0.0.1]:4010' })).toEqual([]);
  });

  it('the admin CLI sends its token to no *.localhost name over plain http', async () => {
    const bridge = await recorder();
    await expect(adminClient(`http://bridge.localhost:${bridge.port}`, 'admin-token-secret').get('status')).rejects.toThrow(/plain http.*--url/);
    expect(bridge.connections()).toBe(0);
  });

  it('a store at a *.localhost name over plain http is refused even when local stores are allowed', async () => {
    const ledger = new LowdbStore({ dataDir: tempDataDir() });
    await ledger.open();
    closers.push(() => ledger.close());
    const options = { publicUrl: 'https://bridge.example', appName: 'loyalty-bridge', returnPath: '/admin/', addresses: { allowPrivate: true } };
    await expect(beginWooConnect(ledger, 'http://shop.localhost:8089/', options)).rejects.toThrow(/must be https/);
    expect(await ledger.listRecords('session')).toEqual([]);
  });
});
