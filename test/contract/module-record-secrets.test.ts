// A platform's own record kinds are sealed at rest as its module declares them (PlatformModule.records):
// a shipped module's (WooCommerce's connect return, under its kind as earlier releases wrote it) and a
// registered one's, in every file under DATA_DIR, and read back plain; a record the modules leave out stays
// as it is.
import { describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.ts';
import { recordSecretsFromConfig } from '../../src/composition/open-store.ts';
import type { AnyPlatformModule } from '../../src/core/platform-module.ts';
import type { RecordKind } from '../../src/core/store/ledger-store.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { tinyShop } from '../platforms/tinyshop/module.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { filesAsText, TEST_SECRETS_KEY } from '../helpers/secrets.ts';

const config = { SECRETS_KEY: TEST_SECRETS_KEY, LOYALTY_BASE_URL: 'https://loyalty.example' } as Config;
const VAULT = 'tinyshop-vault' as RecordKind;
const vault: AnyPlatformModule = { ...tinyShop, records: { [VAULT]: ['token'] } };

describe('a platform’s own records at rest', () => {
  it('are sealed as the modules declare, shipped and registered alike, and read back plain', async () => {
    const dataDir = tempDataDir();
    const store = new LowdbStore({ dataDir, secrets: recordSecretsFromConfig(config, [vault]) });
    await store.open();
    const ticket = { forShop: 'shop.example', consumerKey: 'ck_LEAKCHECK_return_1', consumerSecret: 'cs_LEAKCHECK_2' };
    await store.putRecord('woocommerce-return', 'woocommerce-return:abc', ticket);
    await store.putRecord(VAULT, 'one', { token: 'LEAKCHECK-vault-token-3', note: 'kept as it is' });
    await store.putRecord('test-order', 'two', { token: 'not-a-declared-secret' });

    const kept = filesAsText(dataDir);
    for (const secret of ['ck_LEAKCHECK_return_1', 'cs_LEAKCHECK_2', 'LEAKCHECK-vault-token-3'])
      expect(kept.includes(secret), `${secret} kept in plain text`).toBe(false);
    expect(kept).toContain('kept as it is');
    expect(kept).toContain('not-a-declared-secret');

    expect(await store.getRecord('woocommerce-return', 'woocommerce-return:abc')).toEqual(ticket);
    expect(await store.getRecord(VAULT, 'one')).toMatchObject({ token: 'LEAKCHECK-vault-token-3' });
    await store.close();
  });
});
