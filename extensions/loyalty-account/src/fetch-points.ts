// The extension's calls to the bridge: its account-points route (and its redeem) with the session token Shopify gives the
// extension (a fresh one for each call: shopify.sessionToken.get() caches them itself). Plain fetch and no
// Shopify global, so the tests make this very call against a running bridge.
import { failed, pointsScreen, redeemed, type Formatting, type PointsScreen, type Redeemed } from './points-view.ts';

/** The bridge's route for this extension (adapters/shopify/customer-account-entrance.ts). */
export const ACCOUNT_POINTS_PATH = '/shopify/storefront/account-points';

export interface PointsCall {
  /** The bridge's public address; undefined when the extension was built without it (bridge-url.ts). */
  bridgeUrl: string | undefined;
  token: () => Promise<string>;
  fetch?: typeof fetch;
}

export async function loadPoints(call: PointsCall, format: Formatting): Promise<PointsScreen> {
  if (!call.bridgeUrl) return failed('notConfigured');
  const get = call.fetch ?? fetch;
  try {
    const token = await call.token();
    const response = await get(`${call.bridgeUrl}${ACCOUNT_POINTS_PATH}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const answer: unknown = response.headers.get('content-type')?.includes('application/json')
      ? await response.json()
      : undefined;
    return pointsScreen(response.status, answer, format);
  } catch {
    // No token, no network, or not JSON: the customer is told to try again; the next render asks again.
    return failed('error');
  }
}

/** Spends points on a reward: POST …/account-points/redeem?reward=<id>, no body, the session token as for the read. */
export async function redeemReward(call: PointsCall, reward: string, format: Formatting): Promise<Redeemed> {
  if (!call.bridgeUrl) return { ok: false, error: { key: 'notConfigured' } };
  const post = call.fetch ?? fetch;
  try {
    const token = await call.token();
    const response = await post(`${call.bridgeUrl}${ACCOUNT_POINTS_PATH}/redeem?reward=${encodeURIComponent(reward)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    const answer: unknown = response.headers.get('content-type')?.includes('application/json')
      ? await response.json()
      : undefined;
    return redeemed(response.status, answer, format);
  } catch {
    return { ok: false, error: { key: 'redeemFailed' } };
  }
}
