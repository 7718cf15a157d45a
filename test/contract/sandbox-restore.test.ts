// A sandbox started from a saved state (createSandbox's `state`, the upgrade
// tests' recorded sandbox of an earlier run): it answers as the sandbox that
// saved it would have gone on answering.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxStore, type SandboxState } from '../../src/sandbox/store.ts';
import { authHeaders, rawPost, startTestSandbox, type TestSandbox } from '../helpers/sandbox-server.ts';

const ada = { lp_name: 'Ada', lp_email: 'ada@example.com', lp_mobile: '+447700900123' };
let saved: SandboxState;
let restored: TestSandbox;

beforeAll(async () => {
  const first = await startTestSandbox();
  await rawPost(`${first.url}/loyalty/v1/earn/1`, { ...ada, lp_orderid: '101' });
  await rawPost(`${first.url}/loyalty/v1/earn/1`, { ...ada, lp_orderid: '102' });
  await rawPost(`${first.url}/loyalty/v1/updatePoints`, { lp_status: 'approve', lp_orderid: '101' });
  await rawPost(`${first.url}/loyalty/v1/redeem`, { lp_points: 30, lp_email: ada.lp_email });
  await rawPost(`${first.url}/api/v1/conversion/add`, {
    order_id: '102',
    campaign_id: 21,
    referrer_code: 'ANNA-7',
    referee_email: ada.lp_email,
  });
  // Through a file, as the upgrade tests keep it.
  saved = JSON.parse(JSON.stringify(first.store.snapshot())) as SandboxState;
  await first.close();
  restored = await startTestSandbox({ state: saved });
});
afterAll(() => restored.close());

describe('a sandbox started from a saved state', () => {
  it('holds exactly that state', async () => {
    expect(await (await fetch(`${restored.url}/_sandbox/state`, { headers: authHeaders() })).json()).toEqual(saved);
  });

  it('goes on from it: an earn sent again is the same earning, and approve moves it', async () => {
    expect((await rawPost(`${restored.url}/loyalty/v1/earn/1`, { ...ada, lp_orderid: '102' })).status).toBe(200);
    expect(
      (await rawPost(`${restored.url}/loyalty/v1/updatePoints`, { lp_status: 'approve', lp_orderid: '102' })).status,
    ).toBe(200);
    const earnings = restored.store.snapshot().earnings.filter((earning) => earning.orderId === '102');
    expect(earnings).toEqual([expect.objectContaining({ id: saved.earnings[1]!.id, status: 'approved' })]);
  });

  it('knows its customers, by e-mail and by mobile, with the balance they had', async () => {
    // 100 + 100 approved, 30 redeemed before the save.
    const redeemed = await rawPost(`${restored.url}/loyalty/v1/redeem`, {
      lp_points: 170,
      lp_mobile: '+44 7700 900123',
    });
    expect(redeemed.body.response.data.balance).toMatchObject({ approved: 200, redeemed: 200, available: 0 });
    expect((await rawPost(`${restored.url}/loyalty/v1/redeem`, { lp_points: 1, lp_email: ada.lp_email })).status).toBe(
      400,
    );
  });

  it('records a conversion sent again once, and gives new records ids and times after its own', async () => {
    await rawPost(`${restored.url}/api/v1/conversion/add`, {
      order_id: '102',
      campaign_id: 21,
      referrer_code: 'ANNA-7',
      referee_email: ada.lp_email,
    });
    expect(restored.store.snapshot().conversions).toHaveLength(1);
    await rawPost(`${restored.url}/loyalty/v1/earn/1`, { ...ada, lp_orderid: '103' });
    const newest = restored.store.snapshot().earnings.at(-1)!;
    const highest = Math.max(...[...saved.earnings, ...saved.redemptions, ...saved.conversions].map((each) => each.id));
    expect(newest.id).toBeGreaterThan(highest);
    expect(newest.createdAt > saved.conversions[0]!.createdAt).toBe(true);
  });

  it('refuses what is not a saved state', () => {
    expect(() => new SandboxStore().restore({ earnings: [] } as unknown as SandboxState)).toThrow(TypeError);
  });
});
