// The addresses an operator configures (review of issue 28): one that holds
// a key (a user name and password, a query string) is refused when the
// bridge starts, and wherever an address is shown it is origin and path
// only; and plain http goes only to exactly localhost or a loopback number,
// never to a *.localhost name, which the system's resolver may answer from
// the network.
import { afterEach, describe, expect, it } from 'vitest';
import { beginWooConnect } from '../../adapters/woocommerce/connect.ts';
import { adminClient } from '../../src/cli/admin-client.ts';
import { loadConfig } from '../../src/config.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { createLogger } from '../../src/logger.ts';
import { LoyaltyClient } from '../../src/loyalty/client.ts';
import { startBridge, type RunningBridge } from '../../src/composition/main.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { startRecorder, startRedirector, type Recorder } from '../helpers/outbound-listeners.ts';
import { raw } from '../helpers/raw-records.ts';

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

describe('where a configured address is shown', () => {
  let bridge: RunningBridge | undefined;
  afterEach(async () => {
    await bridge?.stop();
    bridge = undefined;
  });

  it('the start-up line shows the loyalty service by origin and path only', async () => {
    // As a base URL from elsewhere than the settings would be (an account's, later): past the check, the log still holds no key.
    const service = await recorder();
    const loaded = loadConfig({
      env: {
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: tempDataDir(),
        LOG_LEVEL: 'info',
        DEMO_STORE: 'off',
        LOYALTY_BASE_URL: service.url,
        LOYALTY_API_KEY: 'k',
        LOYALTY_BRAND_ID: 'b',
        RECONCILE_INTERVAL_MINUTES: '0',
      },
    });
    if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
    const logged: string[] = [];
    const logger = createLogger({ level: 'info', destination: { write: (line: string) => void logged.push(line) } });
    const withKey = `http://user:secretpw@127.0.0.1:${service.port}/base?apikey=qsecret#fragsecret`;
    bridge = await startBridge({ ...loaded.config, LOYALTY_BASE_URL: withKey }, logger);
    const started = logged.find((line) => line.includes('loyalty service at'));
    expect(started).toContain(`loyalty service at http://127.0.0.1:${service.port}/base`);
    expect(JSON.parse(started!)).toMatchObject({ loyaltyBaseUrl: `http://127.0.0.1:${service.port}/base` });
    expectNoSecret(logged.join('\n'));
  });

  it('a redirect from the loyalty service quotes neither address with its user name, password or query string', async () => {
    const elsewhere = await recorder();
    const service = await startRedirector(
      307,
      (path) => `http://user:secretpw@127.0.0.1:${elsewhere.port}${path}?key=qsecret`,
    );
    closers.push(() => service.close());
    const client = new LoyaltyClient({
      baseUrl: `http://user:secretpw@127.0.0.1:${service.port}/base?apikey=qsecret`,
      apiKey: 'k',
      brandId: 'b',
      maxRetries: 0,
    });
    const error = (await client
      .updatePoints({ status: 'approve', orderId: '1' })
      .catch((caught: unknown) => caught)) as Error & { detail?: string };
    expect(error).toMatchObject({ kind: 'redirected' });
    // What a dead letter keeps: the message and the detail.
    expect(error.message).toContain(`LOYALTY_BASE_URL http://127.0.0.1:${service.port}/base answers 307`);
    expect(error.message).toContain(`Set LOYALTY_BASE_URL=http://127.0.0.1:${elsewhere.port} and restart`);
    expectNoSecret(`${error.message} ${JSON.stringify(error)}`);
    expect(elsewhere.received).toEqual([]);
  });
});

describe('plain http goes only to exactly localhost or a loopback number', () => {
  it.each(['LOYALTY_BASE_URL', 'WOOCOMMERCE_URL', 'BIGCOMMERCE_API_URL', 'BIGCOMMERCE_LOGIN_URL'])(
    '%s=http://anything.localhost:4010 is refused as plain http',
    (key) => {
      expect(lines({ [key]: 'http://anything.localhost:4010' })).toEqual([
        expect.stringMatching(new RegExp(`^${key} \\(environment\\): must be an https URL`)),
      ]);
    },
  );

  it('LOYALTY_BASE_URL=http://[::ffff:127.0.0.1]:4010, this machine in IPv4-mapped form, is accepted', () => {
    expect(lines({ LOYALTY_BASE_URL: 'http://[::ffff:127.0.0.1]:4010' })).toEqual([]);
  });

  it('the admin CLI sends its token to no *.localhost name over plain http', async () => {
    const bridge = await recorder();
    await expect(
      adminClient(`http://bridge.localhost:${bridge.port}`, 'admin-token-secret').get('status'),
    ).rejects.toThrow(/plain http.*--url/);
    expect(bridge.connections()).toBe(0);
  });

  it('a store at a *.localhost name over plain http is refused even when local stores are allowed', async () => {
    const ledger = new LowdbStore({ dataDir: tempDataDir() });
    await ledger.open();
    closers.push(() => ledger.close());
    const options = {
      publicUrl: 'https://bridge.example',
      appName: 'loyalty-bridge',
      returnPath: '/admin/',
      addresses: { allowPrivate: true },
    };
    await expect(beginWooConnect(ledger, 'http://shop.localhost:8089/', options)).rejects.toThrow(/must be https/);
    expect(await ledger.listRecords(raw('session'))).toEqual([]);
  });
});
