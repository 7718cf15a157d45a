// BigCommerce's Scripts API on the fake BigCommerce's store API (fake-bigcommerce.ts), from BigCommerce's docs
// (reference/scripts.v3.yml, docs/integrations/scripts.mdx):
//   GET /v3/content/scripts?page&limit   {data: script_Full[], meta: {pagination}}: only the scripts the calling
//     API account created
//   POST /v3/content/scripts             script_Post -> 200 {data: script_Full, meta: {}}; a uuid of its own
//   GET, PUT, DELETE /v3/content/scripts/<uuid>   200 {data, meta}, DELETE 204; 404 for none the account created
//   422 {status, title, type, errors} for a missing name, a src script without src (or with html), a value not in
//     the enums; each app holds at most 10 scripts (the docs give no status: 422 here)
//   channels: scripts are channel-aware ("Scripts are channel-aware": docs/integrations/scripts.mdx): channel_id
//     (integer, minimum 1) names the channel a script renders on, 1 when none is given ("If you do not supply a
//     site_id when you create a script, it will be assigned to the default site ... If you want a particular script
//     to show up on several sites, you must create that script separately on each site": Multi-Storefront guide,
//     https://developer.bigcommerce.com/docs/storefront/multi-storefront/guide#scripts); GET filters by
//     channel_id:in. A channel the store does not have is refused with 422 (the docs name no status). A shopper's
//     page (scriptsRunFor) runs only its own channel's scripts, and only on a storefront that renders the Scripts
//     API's scripts: Stencil (platform bigcommerce, which names Blueprint too: the fake has no Blueprint theme) and
//     Catalyst ("Script support was added to Catalyst in version 1.1"); Blueprint and the other headless platforms
//     render none (docs/integrations/scripts.mdx)
//   scopes: Content (store_v2_content) to write, or its read-only to read; all_pages and checkout visibility also
//     need Checkout Content (store_content_checkout); else 403
//   auto_uninstall: the script goes when the app is uninstalled or its token revoked (revokeApp)
//   Script Manager: a control panel user may delete any script, the API's included (deleteScriptAsMerchant)
//   consent (scriptsRunFor): on a store with its cookie consent banner on, a shopper's page runs an essential
//     script always, a functional, analytics or targeting one only once the shopper allowed that category ("It is
//     assumed the shopper has not consented to anything until a value is explicitly set": Storefront Cookie
//     Consent, https://developer.bigcommerce.com/docs/rest-storefront/consent; shoppers cannot opt out of
//     essential: Help Center, "Using Script Manager"), and an unknown one never ("Scripts with an `unknown` consent
//     category do not display on stores with customer cookie consent banners enabled": consent_category in
//     https://developer.bigcommerce.com/docs/rest-management/scripts). The fake cannot know a store's banner nor a
//     shopper's choice, so by default it takes the documented worst case: the banner on, and a shopper who allowed
//     nothing (declined, or never answered).
import { pageOf } from './fake-bigcommerce-pages.ts';
import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { fakeScopeOf, fakeStoreOf, type FakeBigCommerce, type FakeStore } from './fake-bigcommerce.ts';

/** BigCommerce's consent categories: essential always runs; the others need the shopper's consent. */
export type ConsentCategory = 'essential' | 'functional' | 'analytics' | 'targeting';

export interface FakeScript {
  uuid: string;
  name: string;
  description: string;
  src?: string;
  html?: string;
  kind: 'src' | 'script_tag';
  auto_uninstall: boolean;
  load_method: 'default' | 'async' | 'defer';
  location: 'head' | 'footer';
  visibility: 'storefront' | 'all_pages' | 'checkout' | 'order_confirmation';
  consent_category: ConsentCategory | 'unknown';
  enabled: boolean;
  channel_id: number;
  date_created: string;
  date_modified: string;
}

/** A script and the client secret of the API account that created it (who alone may see and change it). */
interface Held {
  script: FakeScript;
  owner: string;
}

const APP_LIMIT = 10;
const ENUMS = {
  kind: ['src', 'script_tag'],
  load_method: ['default', 'async', 'defer'],
  location: ['head', 'footer'],
  visibility: ['storefront', 'all_pages', 'checkout', 'order_confirmation'],
  consent_category: ['essential', 'functional', 'analytics', 'targeting'],
} as const;
const STATUS_DOCS = 'https://developer.bigcommerce.com/api-docs/getting-started/api-status-codes';

const held = new WeakMap<FakeStore, Held[]>();
function heldOf(store: FakeStore): Held[] {
  let list = held.get(store);
  if (!list) {
    const made: Held[] = [];
    held.set(store, made);
    // Uninstalling the app (or revoking its token) removes its auto_uninstall scripts.
    (store.revoked ??= []).push((secret) => {
      made.splice(0, made.length, ...made.filter((each) => each.owner !== secret || !each.script.auto_uninstall));
    });
    list = made;
  }
  return list;
}

const hasScope = (scope: string | undefined, ...names: string[]) =>
  scope === undefined || names.some((name) => new RegExp(`(^|\\s)${name}(\\s|$)`).test(scope));
const ownerOf = (res: Response) => String(res.locals.secret);

function refuse(res: Response) {
  res.status(403).json([{ status: 403, message: "You don't have a required scope to access the endpoint" }]);
}
function notFound(res: Response) {
  res.status(404).json({ status: 404, title: 'Script not found', type: STATUS_DOCS, errors: {} });
}
function invalid(res: Response, errors: Record<string, string>) {
  res.status(422).json({ status: 422, title: 'JSON data is missing or invalid', type: STATUS_DOCS, errors });
}

/** What is wrong with a script's fields as POST or PUT sends them (PUT: the script they change). */
function problems(body: Record<string, unknown>, before?: FakeScript): Record<string, string> {
  const errors: Record<string, string> = {};
  const merged = { ...before, ...body };
  if (typeof merged.name !== 'string' || merged.name.length < 1 || merged.name.length > 255)
    errors.name = 'name is required (1 to 255 characters)';
  for (const [field, allowed] of Object.entries(ENUMS)) {
    const value = body[field];
    if (value !== undefined && !(allowed as readonly string[]).includes(String(value)))
      errors[field] = `${field} must be one of ${allowed.join(', ')}`;
  }
  if (body.channel_id !== undefined && !(Number.isInteger(body.channel_id) && Number(body.channel_id) >= 1))
    errors.channel_id = 'channel_id must be an integer of at least 1';
  const kind = merged.kind ?? 'src';
  if (kind === 'src' && (typeof merged.src !== 'string' || merged.src === '')) errors.src = 'src is required';
  if (kind === 'src' && body.html !== undefined) errors.html = 'html must not be given for a src script';
  if (kind === 'script_tag' && merged.load_method !== undefined && merged.load_method !== 'default')
    errors.load_method = 'a script_tag script loads by default';
  return errors;
}

const answerOf = (script: FakeScript) => ({ data: script, meta: {} });

/** Why the channel a script names is not one of the store's, or undefined. */
function unknownChannel(store: FakeStore, body: Record<string, unknown>): string | undefined {
  if (body.channel_id === undefined || store.channels.some((channel) => channel.id === body.channel_id)) return;
  return `the store has no channel ${String(body.channel_id)}`;
}

/** Storefront platforms whose pages render the Scripts API's scripts. */
const RENDERS_SCRIPTS = new Set(['bigcommerce', 'catalyst']);

/** A script as POST makes it from a body that passed problems(): BigCommerce's defaults for what it leaves out. */
function newScript(body: Record<string, unknown>): FakeScript {
  const now = new Date().toISOString();
  return {
    uuid: randomUUID(),
    name: String(body.name),
    description: typeof body.description === 'string' ? body.description : '',
    ...(typeof body.src === 'string' ? { src: body.src } : {}),
    ...(typeof body.html === 'string' ? { html: body.html } : {}),
    kind: (body.kind as FakeScript['kind'] | undefined) ?? 'src',
    auto_uninstall: body.auto_uninstall === true,
    load_method: (body.load_method as FakeScript['load_method'] | undefined) ?? 'default',
    location: (body.location as FakeScript['location'] | undefined) ?? 'head',
    visibility: (body.visibility as FakeScript['visibility'] | undefined) ?? 'storefront',
    // The docs: "Defaults to unknown when not specified".
    consent_category: (body.consent_category as FakeScript['consent_category'] | undefined) ?? 'unknown',
    enabled: body.enabled !== false,
    channel_id: typeof body.channel_id === 'number' ? body.channel_id : 1,
    date_created: now,
    date_modified: now,
  };
}

/** Serves the Scripts API on the fake's store API; call once per fake. */
export function addFakeScripts(fake: FakeBigCommerce): void {
  const router = fake.storeApi;
  const visible = (res: Response) => heldOf(fakeStoreOf(res)).filter((each) => each.owner === ownerOf(res));
  const writable = (req: Request, res: Response) => {
    const scope = fakeScopeOf(res);
    if (!hasScope(scope, 'store_v2_content')) return false;
    const visibility = (req.body as Record<string, unknown> | undefined)?.visibility;
    return !((visibility === 'all_pages' || visibility === 'checkout') && !hasScope(scope, 'store_content_checkout'));
  };

  router.get('/v3/content/scripts', (req, res) => {
    if (!hasScope(fakeScopeOf(res), 'store_v2_content', 'store_v2_content_read_only')) return refuse(res);
    const query = req.query as Record<string, string>;
    const limit = Math.max(1, Number(query.limit ?? 50) || 50);
    const page = Math.max(1, Number(query.page ?? 1) || 1);
    const channels = typeof query['channel_id:in'] === 'string' ? query['channel_id:in'].split(',').map(Number) : [];
    const all = visible(res)
      .map((each) => each.script)
      .filter((script) => channels.length === 0 || channels.includes(script.channel_id));
    res.json(pageOf(all, page, limit));
  });

  router.post('/v3/content/scripts', (req, res) => {
    if (!writable(req, res)) return refuse(res);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const errors = problems(body);
    if (Object.keys(errors).length > 0) return invalid(res, errors);
    const channel = unknownChannel(fakeStoreOf(res), body);
    if (channel) return invalid(res, { channel_id: channel });
    if (visible(res).length >= APP_LIMIT) return invalid(res, { scripts: `an app can have ${APP_LIMIT} scripts` });
    const script = newScript(body);
    heldOf(fakeStoreOf(res)).push({ script, owner: ownerOf(res) });
    res.json(answerOf(script));
  });

  router.get('/v3/content/scripts/:uuid', (req, res) => {
    if (!hasScope(fakeScopeOf(res), 'store_v2_content', 'store_v2_content_read_only')) return refuse(res);
    const found = visible(res).find((each) => each.script.uuid === req.params.uuid);
    if (!found) return notFound(res);
    res.json(answerOf(found.script));
  });

  router.put('/v3/content/scripts/:uuid', (req, res) => {
    if (!writable(req, res)) return refuse(res);
    const found = visible(res).find((each) => each.script.uuid === req.params.uuid);
    if (!found) return notFound(res);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const errors = problems(body, found.script);
    if (Object.keys(errors).length > 0) return invalid(res, errors);
    const channel = unknownChannel(fakeStoreOf(res), body);
    if (channel) return invalid(res, { channel_id: channel });
    const { uuid: _uuid, date_created: _created, date_modified: _modified, ...change } = body;
    found.script = { ...found.script, ...(change as Partial<FakeScript>), date_modified: new Date().toISOString() };
    res.json(answerOf(found.script));
  });

  router.delete('/v3/content/scripts/:uuid', (req, res) => {
    if (!hasScope(fakeScopeOf(res), 'store_v2_content')) return refuse(res);
    const list = heldOf(fakeStoreOf(res));
    const index = list.findIndex((each) => each.owner === ownerOf(res) && each.script.uuid === req.params.uuid);
    if (index < 0) return notFound(res);
    list.splice(index, 1);
    res.status(204).end();
  });
}

/** Every script on the store, whoever created it, as Script Manager lists them. */
export function scriptsOf(fake: FakeBigCommerce, hash: string): FakeScript[] {
  const store = fake.stores.get(hash);
  return store ? heldOf(store).map((each) => each.script) : [];
}

/** A control panel user deletes a script in Script Manager (any script, an app's included); false if none. */
export function deleteScriptAsMerchant(fake: FakeBigCommerce, hash: string, uuid: string): boolean {
  const store = fake.stores.get(hash);
  if (!store) return false;
  const list = heldOf(store);
  const index = list.findIndex((each) => each.script.uuid === uuid);
  if (index < 0) return false;
  list.splice(index, 1);
  return true;
}

/**
 * A shopper's page on the store: the storefront channel it is on, whether the store shows its cookie consent
 * banner, and what the shopper allowed.
 */
export interface ShopperConsent {
  /** The channel whose storefront the page is on. Default 1, the default storefront. */
  channel?: number;
  /** The store's cookie consent banner is on. Default true: the worst case. */
  banner?: boolean;
  /** The non-essential categories the shopper allowed. Default none: one who declined, or never answered. */
  allowed?: readonly Exclude<ConsentCategory, 'essential'>[];
}

/** The scripts a shopper's page on the store runs: its channel's, given the banner and what the shopper allowed. */
export function scriptsRunFor(fake: FakeBigCommerce, hash: string, shopper: ShopperConsent = {}): FakeScript[] {
  const banner = shopper.banner ?? true;
  const allowed = new Set<string>(shopper.allowed ?? []);
  const channelId = shopper.channel ?? 1;
  const channel = fake.stores.get(hash)?.channels.find((each) => each.id === channelId);
  if (!channel || channel.type !== 'storefront' || !RENDERS_SCRIPTS.has(channel.platform)) return [];
  return scriptsOf(fake, hash).filter((script) => {
    if (!script.enabled || script.channel_id !== channelId) return false;
    if (!banner) return true;
    if (script.consent_category === 'essential') return true;
    if (script.consent_category === 'unknown') return false;
    return allowed.has(script.consent_category);
  });
}
