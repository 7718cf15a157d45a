// The single-click app's signed callbacks under /bigcommerce: /load (the store's own page, in the control
// panel's frame only), /uninstall (confirmed with BigCommerce before the token is forgotten, uninstall-checks.ts)
// and /remove_user. Each carries a signed_payload_jwt, kept to the callback that used it first
// (callback-payloads.ts), so the load payload a browser holds for a day cannot uninstall, and loads again only
// for a few minutes, and only in the frame that first used it.
import { stringifySetCookie } from 'cookie';
import { merchantPageAnswer, routeQuery, withHeaders } from '../../src/core/platform-answers.ts';
import type { PlatformRoute } from '../../src/core/platform-module.ts';
import { keptSecret, newSecret, secretHash } from '../shared/browser-secret.ts';
import { page, type BigCommerceAppParts } from './flow-parts.ts';
import {
  CallbackPayloads,
  LOAD_REPEAT_WITHIN_MS,
  type BigCommerceCallback,
  type PayloadUse,
} from './callback-payloads.ts';
import { SIGNED_PAYLOAD_LEEWAY_SECONDS, verifySignedPayload, type SignedPayloadClaims } from './signed-payload.ts';
import type { UninstallChecks } from './uninstall-checks.ts';

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

type Verified =
  { ok: true; claims: SignedPayloadClaims; use: Extract<PayloadUse, { ok: true }> } | { ok: false; reason: string };

/** What each callback reads: the app's parts, and the record of each payload's first use. */
interface Callbacks {
  parts: BigCommerceAppParts;
  payloads: CallbackPayloads;
}

export function appRoutes(parts: BigCommerceAppParts, uninstalls: UninstallChecks): PlatformRoute[] {
  const payloads = new CallbackPayloads({ store: parts.store, leewaySeconds: SIGNED_PAYLOAD_LEEWAY_SECONDS });
  const callbacks: Callbacks = { parts, payloads };
  return [
    { method: 'GET', path: '/load', handle: (request) => load(callbacks, request) },
    { method: 'GET', path: '/uninstall', handle: (request) => uninstall(callbacks, uninstalls, request) },
    { method: 'GET', path: '/remove_user', handle: (request) => removeUser(callbacks, request) },
  ];
}

/** The payload checked, and kept to this callback (and to `browser`, at its first use). Nothing of the token is logged or answered. */
async function verify(
  { parts, payloads }: Callbacks,
  request: Request,
  callback: BigCommerceCallback,
  browser?: string,
): Promise<Verified> {
  const { logger } = parts;
  const verified = await verifySignedPayload(routeQuery(request).signed_payload_jwt, {
    clientId: parts.clientId,
    clientSecret: parts.clientSecret,
  });
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
}

async function load(callbacks: Callbacks, request: Request): Promise<Response> {
  const { logger, removedUsers, stores, allowed } = callbacks.parts;
  // BigCommerce opens the app in its control panel's frame, and nowhere else: a Load URL opened at the top level
  // was handed over (copied from a frame, from history). Refused before its payload is used, which stays good for
  // the frame it was made for. A browser says what it is loading for; one that does not say is let through.
  const loadingFor = request.headers.get('sec-fetch-dest') ?? undefined;
  if (loadingFor !== undefined && loadingFor !== 'iframe' && loadingFor !== 'frame') {
    logger.warn({ platform: 'bigcommerce', loadingFor }, 'a BigCommerce Load URL was opened outside a frame');
    return page(
      403,
      'Open the app from your BigCommerce control panel',
      'This page opens inside your store’s control panel, which signs each opening of the app: open loyalty-bridge from your BigCommerce control panel, under Apps.',
    );
  }
  const kept = keptSecret(request.headers, FRAME_COOKIE);
  const secret = kept ?? newSecret();
  const verified = await verify(callbacks, request, 'load', secretHash(secret));
  if (!verified.ok)
    return page(
      401,
      'This link could not be verified',
      `${verified.reason}.`,
      'Open the app again from the BigCommerce control panel.',
    );
  const { storeHash, userId, issuedAt } = verified.claims;
  // The app's own install: a store served only through BIGCOMMERCE_ACCESS_TOKEN has no app to open.
  if (!(await stores.existing(storeHash)))
    return page(
      404,
      'The app is not installed on this store',
      'Install it again from the BigCommerce control panel (Apps).',
    );
  const allowance = await allowed.check(storeHash);
  if (!allowance.allowed) return page(403, 'This store is not served here', `${allowance.reason}.`);
  const user = userId === null ? undefined : String(userId);
  if (user !== undefined) {
    // A payload made before the owner removed this user opens nothing; one made after means they were added again.
    if (await removedUsers.removedSince(storeHash, user, issuedAt * 1000))
      return page(
        401,
        'Your access to this store was removed',
        'Ask the store’s owner to give it back, then open the app again.',
      );
    await removedUsers.readmitted(storeHash, user);
  }
  // The store's own page, with a session for this store and this control-panel user, for an hour, in this
  // answer: to the payload's first use, or to a repeat from the frame that first used it (a reload). A used Load
  // URL framed in another browser opens no session there (that would be a login CSRF). The frame's secret rides
  // in a cookie partitioned to the control panel's site (CHIPS), which browsers keep for a third-party frame;
  // where a browser keeps none, a reload asks the merchant to open the app again.
  const { use } = verified;
  const sameFrame = !use.again || (kept !== undefined && use.browser === secretHash(kept));
  const opened = merchantPageAnswer(
    sameFrame ? { shop: storeHash, user: user ?? null, mayConnectPlugin: null } : 'no-session',
  );
  return use.again ? opened : withHeaders(opened, {}, [frameCookie(secret)]);
}

async function uninstall(callbacks: Callbacks, uninstalls: UninstallChecks, request: Request): Promise<Response> {
  const { logger } = callbacks.parts;
  const verified = await verify(callbacks, request, 'uninstall');
  if (!verified.ok) return Response.json({ error: verified.reason }, { status: 401 });
  const { storeHash, jti } = verified.claims;
  // A replay (or BigCommerce calling twice) must not move the uninstall's time, nor spend the store's API budget on another check.
  if (verified.use.again && verified.use.handled) {
    logger.info(
      { platform: 'bigcommerce', shop: storeHash },
      'a BigCommerce uninstall payload acted on before came again: answered, not acted on',
    );
    return Response.json(
      { result: 'already_handled', reason: 'this uninstall was acted on when its payload first came' },
      { status: 200 },
    );
  }
  const outcome = await uninstalls.confirm(storeHash);
  await callbacks.payloads.handled(jti);
  if (outcome.kind === 'uninstalled') {
    logger.info(
      { platform: 'bigcommerce', shop: storeHash, why: outcome.why },
      'BigCommerce app uninstalled; the store’s token is forgotten',
    );
    return Response.json({ result: 'uninstalled' }, { status: 200 });
  }
  if (outcome.kind === 'app_forgotten') {
    logger.info(
      { platform: 'bigcommerce', shop: storeHash, why: outcome.why },
      'BigCommerce app uninstalled from the store configured by hand: the app’s token is forgotten, and the store is served through BIGCOMMERCE_ACCESS_TOKEN still',
    );
    return Response.json({ result: 'uninstalled' }, { status: 200 });
  }
  if (outcome.kind === 'superseded') {
    logger.info(
      { platform: 'bigcommerce', shop: storeHash },
      'a BigCommerce uninstall callback found the app installed again meanwhile: the new install stays',
    );
    return Response.json({ result: 'superseded', reason: 'the app was installed again meanwhile' }, { status: 200 });
  }
  // BigCommerce only needs an answer; the uninstall is confirmed (or not) later.
  return Response.json(
    { result: 'pending', reason: 'BigCommerce still accepts the store’s token; the uninstall is checked again later' },
    { status: 200 },
  );
}

async function removeUser(callbacks: Callbacks, request: Request): Promise<Response> {
  const { logger, removedUsers } = callbacks.parts;
  const verified = await verify(callbacks, request, 'remove_user');
  if (!verified.ok) return Response.json({ error: verified.reason }, { status: 401 });
  const { storeHash, userId } = verified.claims;
  if (userId === null)
    return Response.json({ result: 'ignored', reason: 'the payload names no user' }, { status: 200 });
  // The store's pages name the user who opened them: theirs open nothing from now on.
  await removedUsers.remove(storeHash, String(userId));
  logger.info({ platform: 'bigcommerce', shop: storeHash, user: userId }, 'a BigCommerce user’s access was removed');
  return Response.json(
    { result: 'removed', reason: 'the user’s sessions on this store’s pages end now' },
    { status: 200 },
  );
}
