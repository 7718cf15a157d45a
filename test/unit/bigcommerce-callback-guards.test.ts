// The guards around BigCommerce's app callbacks, each on its own, over a real
// lowdb ledger: a payload kept to one callback until it expires; an uninstall
// confirmed by BigCommerce refusing the token, checked again with backoff
// while it does not; which stores are allowed (and the two settings that
// say so); and stores installed before the upgrade allowed once.
import { describe, expect, it } from 'vitest';
import { AllowedStores } from '../../adapters/bigcommerce/allowed-shops.ts';
import { CallbackPayloads } from '../../adapters/bigcommerce/callback-payloads.ts';
import { allowEarlierInstalls } from '../../adapters/bigcommerce/earlier-installs.ts';
import type { TokenCheck } from '../../adapters/bigcommerce/admin-api.ts';
import { BigCommerceStores, type BigCommerceInstall } from '../../adapters/bigcommerce/stores.ts';
import { UninstallChecks, type BigCommerceShopState } from '../../adapters/bigcommerce/uninstall-checks.ts';
import { loadConfig } from '../../src/config.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { createLogger } from '../../src/logger.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { raw } from '../helpers/raw-records.ts';

const opened = async () => {
  const store = new LowdbStore({ dataDir: tempDataDir() });
  await store.open();
  return store;
};
const silent = createLogger({ level: 'silent' });
const T0 = Date.parse('2026-11-20T10:00:00Z');

describe('a payload kept to one callback', () => {
  it('is used again at the same callback, refused at another, and its record deleted only after it expired', async () => {
    const store = await opened();
    let now = T0;
    const payloads = new CallbackPayloads({ store, leewaySeconds: 60, pruneEveryMs: 1_000, now: () => now });
    const exp = T0 / 1000 + 86_400;
    expect(await payloads.use('jti-1', exp, 'load')).toEqual({ ok: true, again: false });
    expect(await payloads.use('jti-1', exp, 'load')).toEqual({ ok: true, again: true, handled: false });
    expect(await payloads.use('jti-1', exp, 'uninstall')).toMatchObject({ ok: false, usedAt: 'load' });
    expect(await payloads.use('jti-1', exp, 'remove_user')).toMatchObject({ ok: false, usedAt: 'load' });

    await payloads.use('jti-2', T0 / 1000 + 10, 'uninstall');
    now = T0 + 10_000 + 59_000;
    // Within the leeway jose still accepts the payload: its record stays, and for an hour beyond (another bridge's clock may be behind).
    expect(await payloads.pruneIfDue()).toBe(0);
    now += 3_600_000;
    expect(await payloads.pruneIfDue()).toBe(0);
    now += 2_000;
    expect(await payloads.pruneIfDue()).toBe(1);
    expect((await store.listRecords(raw('callback-payload'))).map((each) => each.id)).toEqual(['bigcommerce:jti-1']);
    // At most every pruneEveryMs.
    await payloads.use('jti-3', now / 1000 - 120, 'load');
    expect(await payloads.pruneIfDue()).toBe(0);
  });

  it('takes a load payload again only within 15 minutes of its first use', async () => {
    const store = await opened();
    let now = T0;
    const payloads = new CallbackPayloads({ store, leewaySeconds: 60, now: () => now });
    const exp = T0 / 1000 + 86_400;
    expect(await payloads.use('jti-l', exp, 'load')).toEqual({ ok: true, again: false });
    now += 15 * 60_000;
    expect(await payloads.use('jti-l', exp, 'load')).toMatchObject({ ok: true, again: true });
    now += 1;
    expect(await payloads.use('jti-l', exp, 'load')).toMatchObject({
      ok: false,
      refusal: 'repeat_too_late',
      usedAt: 'load',
    });
    // Other callbacks act once, or not at all: a repeat is theirs to answer.
    expect(await payloads.use('jti-r', exp, 'remove_user')).toEqual({ ok: true, again: false });
    now += 86_000_000;
    expect(await payloads.use('jti-r', exp, 'remove_user')).toMatchObject({ ok: true, again: true });
  });

  it('keeps a record an hour past its payload’s expiry and leeway: a bridge whose clock runs ahead prunes nothing another still accepts', async () => {
    const store = await opened();
    // Expired 40 s ago by this clock: jose still accepts it, within its minute of leeway.
    const exp = T0 / 1000 - 40;
    const onTime = new CallbackPayloads({ store, leewaySeconds: 60, now: () => T0 });
    const ahead = new CallbackPayloads({ store, leewaySeconds: 60, now: () => T0 + 30_000 });
    expect(await onTime.use('jti-e', exp, 'load')).toEqual({ ok: true, again: false });
    expect(await ahead.pruneIfDue()).toBe(0);
    expect(await onTime.use('jti-e', exp, 'uninstall')).toMatchObject({ ok: false, usedAt: 'load' });
  });

  it('says when a repeat at a callback comes after the callback acted on the payload', async () => {
    const store = await opened();
    const payloads = new CallbackPayloads({ store, leewaySeconds: 60, now: () => T0 });
    const exp = T0 / 1000 + 86_400;
    expect(await payloads.use('jti-u', exp, 'uninstall')).toEqual({ ok: true, again: false });
    // Not acted on yet (the first call failed, or is still under way): acted on again.
    expect(await payloads.use('jti-u', exp, 'uninstall')).toEqual({ ok: true, again: true, handled: false });
    await payloads.handled('jti-u');
    expect(await payloads.use('jti-u', exp, 'uninstall')).toEqual({ ok: true, again: true, handled: true });
  });

  it('lets exactly one of many uses racing at different callbacks through', async () => {
    const store = await opened();
    const payloads = new CallbackPayloads({ store, leewaySeconds: 60 });
    const uses = await Promise.all(
      ['load', 'uninstall', 'load', 'remove_user', 'uninstall'].map((callback) =>
        payloads.use('raced', T0 / 1000 + 86_400, callback as 'load'),
      ),
    );
    const winner = (await store.getRecord(raw<{ callback: string }>('callback-payload'), 'bigcommerce:raced'))!
      .callback;
    expect(uses.filter((use) => use.ok).length).toBe(
      ['load', 'uninstall', 'load', 'remove_user', 'uninstall'].filter((callback) => callback === winner).length,
    );
    expect(uses.filter((use) => !use.ok).every((use) => !use.ok && use.usedAt === winner)).toBe(true);
  });
});

describe('an uninstall confirmed with BigCommerce', () => {
  /** A store whose token BigCommerce answers for as the script says, one answer per check. */
  const setUp = async (answers: TokenCheck[]) => {
    const store = await opened();
    let now = T0;
    const forgotten: string[] = [];
    let installed = true;
    const stores = {
      appAccess: async () =>
        installed
          ? { accessToken: 'the-token', api: { tokenCheck: async () => answers.shift() ?? { kind: 'works' } } }
          : undefined,
      forget: async (hash: string, token: string) => {
        forgotten.push(`${hash}:${token}`);
        installed = false;
        return 'forgotten';
      },
    } as unknown as BigCommerceStores;
    const checks = new UninstallChecks({
      store,
      stores,
      logger: silent,
      recheckDelaysMs: [1_000, 2_000, 4_000],
      now: () => now,
    });
    const state = () => store.getRecord(raw<BigCommerceShopState>('shop'), 'bigcommerce:s1');
    const later = async (ms: number) => {
      now += ms;
      await checks.checkDue();
    };
    return { store, checks, state, later, forgotten };
  };

  it('forgets the token at once when BigCommerce refuses it', async () => {
    const { checks, state, forgotten } = await setUp([{ kind: 'refused', status: 401 }]);
    expect(await checks.confirm('s1')).toEqual({ kind: 'uninstalled', why: 'token_refused' });
    expect(forgotten).toEqual(['s1:the-token']);
    expect(await state()).toEqual({
      platform: 'bigcommerce',
      shop: 's1',
      uninstalledAt: new Date(T0).toISOString(),
      installedAt: null,
    });
  });

  it('keeps a token BigCommerce accepts, checks again with backoff, and forgets it once refused, as uninstalled from the callback on', async () => {
    const { checks, state, later, forgotten } = await setUp([
      { kind: 'works' },
      { kind: 'works' },
      { kind: 'unknown', reason: 'BigCommerce answered 503' },
      { kind: 'refused', status: 401 },
    ]);
    expect(await checks.confirm('s1')).toMatchObject({ kind: 'pending', why: 'token_works' });
    await later(999);
    expect((await state())?.uninstallPending?.checks).toBe(1);
    await later(1);
    expect((await state())?.uninstallPending).toMatchObject({
      checks: 2,
      last: 'works',
      nextCheckAt: new Date(T0 + 1_000 + 2_000).toISOString(),
    });
    await later(2_000);
    expect((await state())?.uninstallPending).toMatchObject({ checks: 3, last: 'unknown' });
    expect(forgotten).toEqual([]);
    await later(4_000);
    expect(forgotten).toEqual(['s1:the-token']);
    expect(await state()).toEqual({
      platform: 'bigcommerce',
      shop: 's1',
      uninstalledAt: new Date(T0).toISOString(),
      installedAt: null,
    });
  });

  it('drops the uninstall and keeps the token when BigCommerce still accepts it after the last check', async () => {
    const { checks, state, later, forgotten } = await setUp([]);
    await checks.confirm('s1');
    for (const ms of [1_000, 2_000]) await later(ms);
    expect((await state())?.uninstallPending?.checks).toBe(3);
    // The fourth check, after the last delay.
    await later(4_000);
    expect(await state()).toMatchObject({ uninstalledAt: null });
    expect((await state())?.uninstallPending).toBeUndefined();
    expect(forgotten).toEqual([]);
  });

  it('keeps asking, at the last delay, while BigCommerce does not answer', async () => {
    const unknown: TokenCheck = { kind: 'unknown', reason: 'BigCommerce did not answer' };
    const { checks, state, later } = await setUp(Array.from({ length: 10 }, () => unknown));
    await checks.confirm('s1');
    for (const ms of [1_000, 2_000, 4_000, 4_000, 4_000]) await later(ms);
    expect((await state())?.uninstallPending).toMatchObject({ checks: 6, last: 'unknown' });
  });

  it('stops checking once the store installed the app again', async () => {
    const { store, checks, state, later, forgotten } = await setUp([
      { kind: 'works' },
      { kind: 'refused', status: 401 },
    ]);
    await checks.confirm('s1');
    // What the auth callback writes.
    await store.putRecord(raw('shop'), 'bigcommerce:s1', {
      platform: 'bigcommerce',
      shop: 's1',
      uninstalledAt: null,
      installedAt: new Date(T0 + 500).toISOString(),
    });
    await later(1_000);
    expect(forgotten).toEqual([]);
    expect(await state()).toEqual({
      platform: 'bigcommerce',
      shop: 's1',
      uninstalledAt: null,
      installedAt: new Date(T0 + 500).toISOString(),
    });
  });

  it('lets no check that started before a new uninstall callback drop the pending uninstall that callback wrote', async () => {
    const store = await opened();
    let now = T0;
    let accepted = true;
    let session: string | undefined = 'the-token';
    // The first check (an older pass's) waits at BigCommerce until let go.
    let letGo!: () => void;
    const held = new Promise<void>((resolve) => (letGo = resolve));
    let calls = 0;
    const tokenCheck = async (): Promise<TokenCheck> => {
      const answer: TokenCheck = accepted ? { kind: 'works' } : { kind: 'refused', status: 401 };
      if (++calls === 1) await held;
      return answer;
    };
    const stores = {
      appAccess: async () => (session ? { accessToken: session, api: { tokenCheck } } : undefined),
      forget: async () => ((session = undefined), 'forgotten'),
    } as unknown as BigCommerceStores;
    const checks = new UninstallChecks({
      store,
      stores,
      logger: silent,
      recheckDelaysMs: [1_000, 2_000, 4_000],
      now: () => now,
    });
    // An uninstall pending a day, at its last check (an old payload replayed after a reinstall, say).
    const old = {
      since: new Date(T0 - 86_000_000).toISOString(),
      checks: 3,
      nextCheckAt: new Date(T0 - 1).toISOString(),
      last: 'works' as const,
    };
    await store.putRecord(raw<BigCommerceShopState>('shop'), 'bigcommerce:s1', {
      platform: 'bigcommerce',
      shop: 's1',
      uninstalledAt: null,
      uninstallPending: old,
    });

    const olderPass = checks.recheck('s1', old);
    // Meanwhile the merchant uninstalls; BigCommerce calls back before it revokes the token.
    expect(await checks.confirm('s1')).toMatchObject({ kind: 'pending' });
    letGo();
    expect(await olderPass).toEqual({ kind: 'superseded' });
    expect(
      (await store.getRecord(raw<BigCommerceShopState>('shop'), 'bigcommerce:s1'))?.uninstallPending,
    ).toMatchObject({
      checks: 1,
    });

    // BigCommerce revokes the token: the callback's uninstall is confirmed.
    accepted = false;
    now += 1_000;
    await checks.checkDue();
    expect(session).toBeUndefined();
    // Dated by the genuine callback, not by the old pending uninstall it replaced.
    expect(await store.getRecord(raw('shop'), 'bigcommerce:s1')).toMatchObject({
      uninstalledAt: new Date(T0).toISOString(),
    });
  });

  it('marks a store it holds no app token for uninstalled', async () => {
    const store = await opened();
    const stores = { appAccess: async () => undefined } as unknown as BigCommerceStores;
    const checks = new UninstallChecks({ store, stores, logger: silent, now: () => T0 });
    expect(await checks.confirm('s2')).toEqual({ kind: 'uninstalled', why: 'no_token' });
    expect(await store.getRecord(raw('shop'), 'bigcommerce:s2')).toMatchObject({
      uninstalledAt: new Date(T0).toISOString(),
    });
  });
});

describe('forgetting a store’s token', () => {
  const install = (accessToken: string): BigCommerceInstall => ({
    platform: 'bigcommerce',
    shop: 's1',
    accessToken,
    scope: 'store_v2_orders_read_only',
    accountUuid: null,
    installedAt: 'then',
    updatedAt: 'then',
  });

  it('keeps the new token of a reinstall another bridge saves the moment this one has read the old', async () => {
    const ledger = await opened();
    await ledger.putRecord(raw('session'), 'bigcommerce:s1', install('old-token'));
    // The reinstall lands at the earliest moment another bridge's write can: right after this bridge's read of the session.
    let landed = false;
    const reinstallAfter = async <T>(read: Promise<T>): Promise<T> => {
      const value = await read;
      if (!landed) {
        landed = true;
        await ledger.putRecord(raw('session'), 'bigcommerce:s1', install('new-token'));
      }
      return value;
    };
    const racing = new Proxy(ledger, {
      get(target, name) {
        const value = Reflect.get(target, name, target) as unknown;
        if (typeof value !== 'function') return value;
        const call = (...args: unknown[]) => (value as (...args: unknown[]) => Promise<unknown>).apply(target, args);
        return name === 'getRecord' || name === 'changeRecord'
          ? (...args: unknown[]) => reinstallAfter(call(...args))
          : call;
      },
    });
    const stores = new BigCommerceStores({ store: racing, env: {}, apiUrl: 'https://api.bigcommerce.test' });
    await stores.forget('s1', 'old-token');
    expect(landed).toBe(true);
    expect(await ledger.getRecord(raw('session'), 'bigcommerce:s1')).toMatchObject({ accessToken: 'new-token' });
  });
});

describe('the stores allowed to install and earn', () => {
  it('are the own store, the listed ones, those allowed by record, or any with open installs', async () => {
    const store = await opened();
    const allowed = new AllowedStores({ store, ownStore: 'own1', listed: ['listed1'] });
    expect(await allowed.check('own1')).toEqual({ allowed: true, why: 'own' });
    expect(await allowed.check('listed1')).toEqual({ allowed: true, why: 'listed' });
    expect(await allowed.check('other1')).toEqual({
      allowed: false,
      reason: expect.stringContaining('BIGCOMMERCE_STORES'),
    });
    await allowed.allow('other1', 'test');
    expect(await allowed.check('other1')).toEqual({ allowed: true, why: 'earlier' });
    expect(await allowed.filter(['other1', 'other2', 'own1'])).toEqual(['other1', 'own1']);
    expect(await new AllowedStores({ store, openInstalls: true }).check('other2')).toEqual({
      allowed: true,
      why: 'open',
    });
  });

  it('asks the ledger nothing for the configured ones, and remembers a store allowed by record', async () => {
    const store = await opened();
    let reads = 0;
    const counting = new Proxy(store, {
      get: (target, name) =>
        name === 'getRecord'
          ? (...args: Parameters<typeof store.getRecord>) => (reads++, target.getRecord(...args))
          : Reflect.get(target, name, target),
    });
    await store.putRecord(raw('allowed-shop'), 'bigcommerce:recorded1', { allowedBy: 'test', allowedAt: 'now' });
    const allowed = new AllowedStores({ store: counting, ownStore: 'own1', listed: ['listed1'] });
    for (let i = 0; i < 3; i++)
      for (const hash of ['own1', 'listed1', 'recorded1']) expect((await allowed.check(hash)).allowed).toBe(true);
    expect(reads).toBe(1);
  });

  it('are read from BIGCOMMERCE_STORES and BIGCOMMERCE_OPEN_INSTALLS, each refused with its own line when wrong', () => {
    expect(
      loadConfig({ env: { BIGCOMMERCE_STORES: 'abc123, def456', BIGCOMMERCE_OPEN_INSTALLS: 'yes' } }),
    ).toMatchObject({
      ok: true,
      config: { BIGCOMMERCE_STORES: ['abc123', 'def456'], BIGCOMMERCE_OPEN_INSTALLS: true },
    });
    expect(loadConfig({ env: {} })).toMatchObject({
      ok: true,
      config: { BIGCOMMERCE_STORES: [], BIGCOMMERCE_OPEN_INSTALLS: false },
    });
    const wrong = loadConfig({
      env: { BIGCOMMERCE_STORES: 'abc123,stores/Not A Hash', BIGCOMMERCE_OPEN_INSTALLS: 'sometimes' },
    });
    expect(wrong.ok ? [] : wrong.errors).toEqual([
      'BIGCOMMERCE_STORES (environment): must be store hashes (from the API path) like abc123,def456',
      'BIGCOMMERCE_OPEN_INSTALLS (environment): must be true or false',
    ]);
  });

  it('include, once, the stores the app was installed on before the upgrade', async () => {
    const store = await opened();
    const allowed = new AllowedStores({ store, ownStore: 'own1' });
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', destination: { write: (line: string) => void lines.push(line) } });
    expect(await allowEarlierInstalls(store, allowed, async () => ['own1', 'early1', 'early2'], logger)).toEqual([
      'early1',
      'early2',
    ]);
    expect(lines.join('')).toMatch(/early1, early2.*BIGCOMMERCE_STORES/);
    expect(await allowEarlierInstalls(store, allowed, async () => ['early1', 'later1'], logger)).toEqual([]);
    const fresh = new AllowedStores({ store });
    expect((await fresh.check('early2')).allowed).toBe(true);
    expect((await fresh.check('later1')).allowed).toBe(false);
  });
});
