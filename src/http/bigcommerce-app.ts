// The bridge as a BigCommerce single-click app, under /bigcommerce: /auth (an install, or new scopes), /load
// (the store's own pages, in a frame only), /uninstall (confirmed with BigCommerce before the token is
// forgotten) and /remove_user. The last three carry a signed_payload_jwt, each payload kept to the callback
// that used it first (callback-payloads.ts), so the load payload a browser holds for a day cannot uninstall,
// and loads again only for a few minutes. A store the bridge does not serve is refused before its code is used.
import { stringifySetCookie } from 'cookie';
import express, { type Request, type Response } from 'express';
import type { AllowedStores } from '../../adapters/bigcommerce/allowed-stores.ts';
import {
  BigCommerceAuthError,
  exchangeBigCommerceCode,
  storeHashOfContext,
} from '../../adapters/bigcommerce/app-token.ts';
import {
  CallbackPayloads,
  LOAD_REPEAT_WITHIN_MS,
  type BigCommerceCallback,
  type PayloadUse,
} from '../../adapters/bigcommerce/callback-payloads.ts';
import {
  SIGNED_PAYLOAD_LEEWAY_SECONDS,
  verifySignedPayload,
  type SignedPayloadClaims,
} from '../../adapters/bigcommerce/signed-payload.ts';
import type { RemovedUsers } from '../../adapters/bigcommerce/removed-users.ts';
import type { BigCommerceStores } from '../../adapters/bigcommerce/stores.ts';
import { UninstallChecks } from '../../adapters/bigcommerce/uninstall-checks.ts';
import type { LedgerStore, ShopState } from '../core/store/ledger-store.ts';
import type { Logger } from '../logger.ts';
import type { BridgeShopTokens } from './bridge-shop-token.ts';
import { keptSecret, newSecret, secretHash } from './browser-secret.ts';
import { sendStandaloneMerchantPage } from './merchant-page.ts';
import { FRAMED_BY, paragraph, sendPage, sendStorePage } from './store-page.ts';
import { trimTrailing } from '../trim-trailing.ts';

export const BIGCOMMERCE_AUTH_PATH = '/bigcommerce/auth';
/** The Load frame's own secret: which browser first used a load payload (a reload of that frame signs in again). */
const FRAME_COOKIE = '__Host-loyalty-bridge-frame';

/** Partitioned (CHIPS): kept for the control panel's site alone, where browsers block other third-party cookies. */
const frameCookie = (secret: string) =>
  stringifySetCookie(FRAME_COOKIE, secret, {
    path: '/',
    secure: true,
    httpOnly: true,
    sameSite: 'none',
    partitioned: true,
    maxAge: LOAD_REPEAT_WITHIN_MS / 1000,
  });

export interface BigCommerceAppParts {
  store: LedgerStore;
  stores: BigCommerceStores;
  allowed: AllowedStores;
  clientId: string;
  clientSecret: string;
  loginUrl: string;
  publicUrl: string;
  logger: Logger;
  /** Sessions for the store's own pages, which the load callback opens (bridge-shop-token.ts, lbb1.). */
  pageTokens: BridgeShopTokens;
  /** Users whose access the store's owner removed. */
  removedUsers: RemovedUsers;
  /** After the answer: the store's hooks made and its recent orders read. */
  onInstalled(storeHash: string): Promise<void>;
  /** How often pending uninstalls are checked again (tests shorten it). */
  uninstallChecks?: { recheckDelaysMs?: readonly number[]; passMs?: number } | undefined;
}

export interface BigCommerceApp {
  routes: express.Router;
  /** Starts checking pending uninstalls again (those left by an earlier run included). */
  start(): void;
  stop(): Promise<void>;
}

type Verified =
  { ok: true; claims: SignedPayloadClaims; use: Extract<PayloadUse, { ok: true }> } | { ok: false; reason: string };

export function bigCommerceApp(parts: BigCommerceAppParts): BigCommerceApp {
  const router = express.Router();
  const { logger, removedUsers } = parts;
  const base = trimTrailing(parts.publicUrl, '/');
  const dashboardUrl = `${base}/admin/`;
  const payloads = new CallbackPayloads({ store: parts.store, leewaySeconds: SIGNED_PAYLOAD_LEEWAY_SECONDS });
  const uninstalls = new UninstallChecks({
    store: parts.store,
    stores: parts.stores,
    logger,
    ...parts.uninstallChecks,
  });
  const installState = (storeHash: string, state: Omit<ShopState, 'platform' | 'shop'>) =>
    parts.store.putRecord<ShopState>('shop', `bigcommerce:${storeHash}`, {
      platform: 'bigcommerce',
      shop: storeHash,
      ...state,
    });
  if (!parts.allowed.configured) {
    logger.warn(
      { platform: 'bigcommerce' },
      'BIGCOMMERCE_CLIENT_ID is set, but no store may install the app: list the stores in BIGCOMMERCE_STORES (or set BIGCOMMERCE_STORE_HASH, or BIGCOMMERCE_OPEN_INSTALLS=true)',
    );
  }

  /** The payload checked, and kept to this callback (and to `browser`, at its first use). Nothing of the token is logged or answered. */
  const verify = async (req: Request, callback: BigCommerceCallback, browser?: string): Promise<Verified> => {
    const jwt = typeof req.query.signed_payload_jwt === 'string' ? req.query.signed_payload_jwt : undefined;
    const verified = await verifySignedPayload(jwt, { clientId: parts.clientId, clientSecret: parts.clientSecret });
    if (!verified.ok) {
      logger.warn(
        { platform: 'bigcommerce', callback, refusal: verified.refusal },
        `a BigCommerce ${callback} callback was refused`,
      );
      return verified;
    }
    const { storeHash, jti, expiresAt } = verified.claims;
    const use = await payloads.use(jti, expiresAt, callback, browser);
    void payloads
      .pruneIfDue()
      .catch((error: unknown) =>
        logger.warn(
          { err: error },
          'could not delete the records of expired BigCommerce payloads; a later callback tries again',
        ),
      );
    if (!use.ok) {
      const why =
        use.refusal === 'used_elsewhere'
          ? 'its payload was used at another callback'
          : 'its payload was first used there too long ago';
      const fields = { platform: 'bigcommerce', callback, shop: storeHash, usedAt: use.usedAt, refusal: use.refusal };
      logger.warn(fields, `a BigCommerce ${callback} callback was refused: ${why}`);
      return { ok: false, reason: use.reason };
    }
    return { ...verified, use };
  };

  router.get('/auth', async (req: Request, res: Response) => {
    const [code, scope, context] = ['code', 'scope', 'context'].map((name) =>
      typeof req.query[name] === 'string' ? (req.query[name] as string) : '',
    );
    const storeHash = storeHashOfContext(context ?? '');
    if (!code || !storeHash)
      return sendPage(
        res,
        400,
        'This install link is not complete',
        paragraph('Start the install again from the BigCommerce control panel (Apps).'),
      );
    // Before the code is used: a store the bridge does not serve gets no token kept, and no hooks.
    const allowance = await parts.allowed.check(storeHash);
    if (!allowance.allowed) {
      logger.warn(
        { platform: 'bigcommerce', shop: storeHash },
        'a BigCommerce install from a store this bridge does not serve was refused',
      );
      return sendPage(res, 403, 'This store may not install the app', paragraph(`${allowance.reason}.`));
    }
    let token;
    try {
      const redirectUri = `${base}${BIGCOMMERCE_AUTH_PATH}`;
      token = await exchangeBigCommerceCode({
        loginUrl: parts.loginUrl,
        clientId: parts.clientId,
        clientSecret: parts.clientSecret,
        redirectUri,
        code,
        scope: scope ?? '',
        context: context!,
      });
    } catch (error) {
      if (!(error instanceof BigCommerceAuthError)) throw error;
      logger.warn(
        { platform: 'bigcommerce', shop: storeHash, reason: error.message },
        'a BigCommerce install could not be completed',
      );
      return sendPage(
        res,
        error.refused ? 400 : 502,
        error.refused ? 'BigCommerce did not accept this install' : 'BigCommerce did not answer',
        paragraph(
          error.refused
            ? `${error.message}. Start the install again from the control panel; if it keeps failing, check BIGCOMMERCE_CLIENT_ID and BIGCOMMERCE_CLIENT_SECRET.`
            : 'Try the install again in a minute.',
        ),
      );
    }
    if (token.storeHash !== storeHash) {
      logger.warn(
        { platform: 'bigcommerce', shop: storeHash, answeredFor: token.storeHash },
        'BigCommerce answered an install for another store than the link named; nothing was kept',
      );
      return sendPage(
        res,
        400,
        'BigCommerce did not accept this install',
        paragraph('Start the install again from the BigCommerce control panel (Apps).'),
      );
    }
    const now = new Date().toISOString();
    const before = await parts.stores.existing(storeHash);
    await parts.stores.save({
      platform: 'bigcommerce',
      shop: storeHash,
      accessToken: token.accessToken,
      scope: token.scope,
      // No header secret: BigCommerce signs the app's hooks with its client secret, and that alone is checked (stores.ts).
      accountUuid: token.accountUuid,
      installedAt: before?.installedAt ?? now,
      updatedAt: now,
    });
    // Rewritten whole: a pending uninstall check ends with the reinstall.
    await installState(storeHash, { uninstalledAt: null, installedAt: now });
    logger.info(
      { platform: 'bigcommerce', shop: storeHash, scope: token.scope, allowed: allowance.why },
      'BigCommerce app installed',
    );
    await sendStorePage(res, {
      store: parts.store,
      platform: 'bigcommerce',
      shop: storeHash,
      dashboardUrl,
      notice:
        'Installed. The bridge is creating its hooks and reading the last day’s orders; reload in a minute to see them.',
    });
    void parts
      .onInstalled(storeHash)
      .catch((error: unknown) =>
        logger.warn(
          { err: error, shop: storeHash },
          'could not set the installed store up yet; the next reconciliation tries again',
        ),
      );
  });

  router.get('/load', async (req: Request, res: Response) => {
    // BigCommerce opens the app in its control panel's frame, and nowhere else: a Load URL opened at the top level
    // was handed over (copied from a frame, from history). Refused before its payload is used, which stays good for
    // the frame it was made for. A browser says what it is loading for; one that does not say is let through.
    const loadingFor = req.get('sec-fetch-dest');
    if (loadingFor !== undefined && loadingFor !== 'iframe' && loadingFor !== 'frame') {
      logger.warn({ platform: 'bigcommerce', loadingFor }, 'a BigCommerce Load URL was opened outside a frame');
      return sendPage(
        res,
        403,
        'Open the app from your BigCommerce control panel',
        paragraph(
          'This page opens inside your store’s control panel, which signs each opening of the app: open loyalty-bridge from your BigCommerce control panel, under Apps.',
        ),
      );
    }
    const kept = keptSecret(req, FRAME_COOKIE);
    const secret = kept ?? newSecret();
    const verified = await verify(req, 'load', secretHash(secret));
    if (!verified.ok) {
      return sendPage(
        res,
        401,
        'This link could not be verified',
        `${paragraph(`${verified.reason}.`)}${paragraph('Open the app again from the BigCommerce control panel.')}`,
      );
    }
    const { storeHash, userId, issuedAt } = verified.claims;
    // The app's own install: a store served only through BIGCOMMERCE_ACCESS_TOKEN has no app to open.
    if (!(await parts.stores.existing(storeHash)))
      return sendPage(
        res,
        404,
        'The app is not installed on this store',
        paragraph('Install it again from the BigCommerce control panel (Apps).'),
      );
    const allowance = await parts.allowed.check(storeHash);
    if (!allowance.allowed)
      return sendPage(res, 403, 'This store is not served here', paragraph(`${allowance.reason}.`));
    const user = userId === null ? undefined : String(userId);
    if (user !== undefined) {
      // A payload made before the owner removed this user opens nothing; one made after means they were added again.
      if (await removedUsers.removedSince(storeHash, user, issuedAt * 1000))
        return sendPage(
          res,
          401,
          'Your access to this store was removed',
          paragraph('Ask the store’s owner to give it back, then open the app again.'),
        );
      await removedUsers.readmitted(storeHash, user);
    }
    // The store's own pages, with a session for this store and this control-panel user, for an hour, in this
    // answer: to the payload's first use, or to a repeat from the frame that first used it (a reload). A used Load
    // URL framed in another browser opens no session there (that would be a login CSRF). The frame's secret rides
    // in a cookie partitioned to the control panel's site (CHIPS), which browsers keep for a third-party frame;
    // where a browser keeps none, a reload asks the merchant to open the app again.
    const { use } = verified;
    const sameFrame = !use.again || (kept !== undefined && use.browser === secretHash(kept));
    if (!use.again) res.append('set-cookie', frameCookie(secret));
    sendStandaloneMerchantPage(res, {
      session: sameFrame ? parts.pageTokens.mint(storeHash, user) : undefined,
      frameAncestors: FRAMED_BY,
      whereToSignIn: 'open loyalty-bridge from your BigCommerce control panel, under Apps',
    });
  });

  router.get('/uninstall', async (req: Request, res: Response) => {
    const verified = await verify(req, 'uninstall');
    if (!verified.ok) return void res.status(401).json({ error: verified.reason });
    const { storeHash, jti } = verified.claims;
    // A replay (or BigCommerce calling twice) must not move the uninstall's time, nor spend the store's API budget on another check.
    if (verified.use.again && verified.use.handled) {
      logger.info(
        { platform: 'bigcommerce', shop: storeHash },
        'a BigCommerce uninstall payload acted on before came again: answered, not acted on',
      );
      return void res.json({
        result: 'already_handled',
        reason: 'this uninstall was acted on when its payload first came',
      });
    }
    const outcome = await uninstalls.confirm(storeHash);
    await payloads.handled(jti);
    if (outcome.kind === 'uninstalled') {
      logger.info(
        { platform: 'bigcommerce', shop: storeHash, why: outcome.why },
        'BigCommerce app uninstalled; the store’s token is forgotten',
      );
      return void res.json({ result: 'uninstalled' });
    }
    if (outcome.kind === 'app_forgotten') {
      logger.info(
        { platform: 'bigcommerce', shop: storeHash, why: outcome.why },
        'BigCommerce app uninstalled from the store configured by hand: the app’s token is forgotten, and the store is served through BIGCOMMERCE_ACCESS_TOKEN still',
      );
      return void res.json({ result: 'uninstalled' });
    }
    if (outcome.kind === 'superseded') {
      logger.info(
        { platform: 'bigcommerce', shop: storeHash },
        'a BigCommerce uninstall callback found the app installed again meanwhile: the new install stays',
      );
      return void res.json({ result: 'superseded', reason: 'the app was installed again meanwhile' });
    }
    // BigCommerce only needs an answer; the uninstall is confirmed (or not) later.
    res.json({
      result: 'pending',
      reason: 'BigCommerce still accepts the store’s token; the uninstall is checked again later',
    });
  });

  router.get('/remove_user', async (req: Request, res: Response) => {
    const verified = await verify(req, 'remove_user');
    if (!verified.ok) return void res.status(401).json({ error: verified.reason });
    const { storeHash, userId } = verified.claims;
    if (userId === null) return void res.json({ result: 'ignored', reason: 'the payload names no user' });
    // The store's pages name the user who opened them: theirs open nothing from now on.
    await removedUsers.remove(storeHash, String(userId));
    logger.info({ platform: 'bigcommerce', shop: storeHash, user: userId }, 'a BigCommerce user’s access was removed');
    res.json({ result: 'removed', reason: 'the user’s sessions on this store’s pages end now' });
  });

  return {
    routes: router,
    start: () => uninstalls.start(),
    stop: () => uninstalls.stop(),
  };
}
