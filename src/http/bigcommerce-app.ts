// The bridge as a BigCommerce single-click app, under /bigcommerce:
//   GET /auth       the merchant installed (or accepted new scopes): a store
//                   the bridge does not serve (allowed-stores.ts) is refused
//                   with a page that says why, before the code is used;
//                   otherwise the code is exchanged at BigCommerce's token
//                   endpoint, the store's token kept in the ledger, an
//                   earlier uninstall cleared, and the store's page shown;
//                   its hooks are made and its recent orders read after the
//                   answer
//   GET /load       the merchant opened the app: signed_payload_jwt verified
//                   with jose (signed-payload.ts), that store's page shown
//   GET /uninstall  the merchant removed the app: verified the same way, the
//                   token forgotten and the store marked uninstalled (its
//                   deliveries sent before that are not processed)
// A payload that does not verify is 401 and changes nothing.
import { randomBytes } from 'node:crypto';
import express, { type Request, type Response } from 'express';
import type { AllowedStores } from '../../adapters/bigcommerce/allowed-stores.ts';
import { BigCommerceAuthError, exchangeBigCommerceCode, storeHashOfContext } from '../../adapters/bigcommerce/app-token.ts';
import { verifySignedPayload } from '../../adapters/bigcommerce/signed-payload.ts';
import type { BigCommerceStores } from '../../adapters/bigcommerce/stores.ts';
import type { LedgerStore, ShopState } from '../core/store/ledger-store.ts';
import type { Logger } from '../logger.ts';
import { paragraph, sendPage, sendStorePage } from './store-page.ts';

export const BIGCOMMERCE_AUTH_PATH = '/bigcommerce/auth';

export interface BigCommerceAppParts {
  store: LedgerStore;
  stores: BigCommerceStores;
  allowed: AllowedStores;
  clientId: string;
  clientSecret: string;
  loginUrl: string;
  publicUrl: string;
  logger: Logger;
  /** After the answer: the store's hooks made and its recent orders read. */
  onInstalled(storeHash: string): Promise<void>;
}

export function bigCommerceAppRoutes(parts: BigCommerceAppParts): express.Router {
  const router = express.Router();
  const base = parts.publicUrl.replace(/\/+$/, '');
  const dashboardUrl = `${base}/admin/`;
  const verify = (req: Request) => verifySignedPayload(typeof req.query.signed_payload_jwt === 'string' ? req.query.signed_payload_jwt : undefined, { clientId: parts.clientId, clientSecret: parts.clientSecret });
  const installState = (storeHash: string, state: Omit<ShopState, 'platform' | 'shop'>) => parts.store.putRecord<ShopState>('shop', `bigcommerce:${storeHash}`, { platform: 'bigcommerce', shop: storeHash, ...state });
  if (!parts.allowed.configured) {
    parts.logger.warn(
      { platform: 'bigcommerce' },
      'BIGCOMMERCE_CLIENT_ID is set, but no store may install the app: list the stores in BIGCOMMERCE_STORES (or set BIGCOMMERCE_STORE_HASH, or BIGCOMMERCE_OPEN_INSTALLS=true)',
    );
  }

  router.get('/auth', async (req: Request, res: Response) => {
    const [code, scope, context] = ['code', 'scope', 'context'].map((name) => (typeof req.query[name] === 'string' ? (req.query[name] as string) : ''));
    const storeHash = storeHashOfContext(context ?? '');
    if (!code || !storeHash) return sendPage(res, 400, 'This install link is not complete', paragraph('Start the install again from the BigCommerce control panel (Apps).'));
    // Before the code is used: a store the bridge does not serve gets no token kept, and no hooks.
    const allowance = await parts.allowed.check(storeHash);
    if (!allowance.allowed) {
      parts.logger.warn({ platform: 'bigcommerce', shop: storeHash }, 'a BigCommerce install from a store this bridge does not serve was refused');
      return sendPage(res, 403, 'This store may not install the app', paragraph(`${allowance.reason}.`));
    }
    let token;
    try {
      const redirectUri = `${base}${BIGCOMMERCE_AUTH_PATH}`;
      token = await exchangeBigCommerceCode({ loginUrl: parts.loginUrl, clientId: parts.clientId, clientSecret: parts.clientSecret, redirectUri, code, scope: scope ?? '', context: context! });
    } catch (error) {
      if (!(error instanceof BigCommerceAuthError)) throw error;
      parts.logger.warn({ platform: 'bigcommerce', shop: storeHash, reason: error.message }, 'a BigCommerce install could not be completed');
      return sendPage(res, error.refused ? 400 : 502, error.refused ? 'BigCommerce did not accept this install' : 'BigCommerce did not answer', paragraph(error.refused ? `${error.message}. Start the install again from the control panel; if it keeps failing, check BIGCOMMERCE_CLIENT_ID and BIGCOMMERCE_CLIENT_SECRET.` : 'Try the install again in a minute.'));
    }
    if (token.storeHash !== storeHash) {
      parts.logger.warn({ platform: 'bigcommerce', shop: storeHash, answeredFor: token.storeHash }, 'BigCommerce answered an install for another store than the link named; nothing was kept');
      return sendPage(res, 400, 'BigCommerce did not accept this install', paragraph('Start the install again from the BigCommerce control panel (Apps).'));
    }
    const now = new Date().toISOString();
    const before = await parts.stores.existing(token.storeHash);
    await parts.stores.save({
      platform: 'bigcommerce',
      shop: token.storeHash,
      accessToken: token.accessToken,
      scope: token.scope,
      // Kept across a reinstall, so that hooks made before still check out.
      headerSecret: before?.headerSecret ?? randomBytes(32).toString('base64url'),
      accountUuid: token.accountUuid,
      installedAt: before?.installedAt ?? now,
      updatedAt: now,
    });
    await installState(token.storeHash, { uninstalledAt: null, installedAt: now });
    parts.logger.info({ platform: 'bigcommerce', shop: token.storeHash, scope: token.scope, allowed: allowance.why }, 'BigCommerce app installed');
    await sendStorePage(res, { store: parts.store, platform: 'bigcommerce', shop: token.storeHash, dashboardUrl, notice: 'Installed. The bridge is creating its hooks and reading the last day’s orders; reload in a minute to see them.' });
    void parts.onInstalled(token.storeHash).catch((error: unknown) => parts.logger.warn({ err: error, shop: token.storeHash }, 'could not set the installed store up yet; the next reconciliation tries again'));
  });

  router.get('/load', async (req: Request, res: Response) => {
    const verified = await verify(req);
    if (!verified.ok) {
      parts.logger.warn({ platform: 'bigcommerce', refusal: verified.refusal }, 'a BigCommerce load was refused');
      return sendPage(res, 401, 'This link could not be verified', paragraph('Open the app again from the BigCommerce control panel.'));
    }
    const storeHash = verified.claims.storeHash;
    if (!(await parts.stores.get(storeHash))) return sendPage(res, 404, 'The app is not installed on this store', paragraph('Install it again from the BigCommerce control panel (Apps).'));
    await sendStorePage(res, { store: parts.store, platform: 'bigcommerce', shop: storeHash, dashboardUrl });
  });

  router.get('/uninstall', async (req: Request, res: Response) => {
    const verified = await verify(req);
    if (!verified.ok) {
      parts.logger.warn({ platform: 'bigcommerce', refusal: verified.refusal }, 'a BigCommerce uninstall was refused');
      return void res.status(401).json({ error: verified.reason });
    }
    const storeHash = verified.claims.storeHash;
    await parts.stores.forget(storeHash);
    await installState(storeHash, { uninstalledAt: new Date().toISOString() });
    parts.logger.info({ platform: 'bigcommerce', shop: storeHash }, 'BigCommerce app uninstalled; the store’s token is forgotten');
    res.json({ result: 'uninstalled' });
  });

  return router;
}
