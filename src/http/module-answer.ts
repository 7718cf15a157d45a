// A platform module's route in Fetch terms, served by Express (platform-routes.ts mounts it): the Request it is
// handed, built once the body is read within its limits, and its Response served as the bridge serves each kind.
// JSON, text and a redirect as they are; the bridge's own pages, scripts and downloads (core/platform-answers.ts)
// rendered here. Anything else, HTML above all, is a module's fault: a module never serves a page around the CSP.
import type { Request as ExpressRequest, Response as ExpressResponse } from 'express';
import { BridgeAnswer, type BridgeRendered } from '../core/platform-answers.ts';
import type { PlatformParts, PlatformRoute } from '../core/platform-module.ts';
import type { BridgeShopTokens } from './bridge-shop-token.ts';
import { sendEmbeddedPage, sendStandaloneMerchantPage, type StandalonePage } from './merchant-page.ts';
import { plainPage } from './plain-page.ts';

/** The route's Request: http://<host>/<name><path>?<query>, the headers as they came, a POST's bytes as read. */
export function moduleRequest(req: ExpressRequest, name: string, route: PlatformRoute, body: Buffer): Request {
  const url = new URL('http://localhost');
  // A Host header that is no host leaves the placeholder: the address is read for its path and query.
  if (req.headers.host) url.host = req.headers.host;
  // The route's own path (Express matches it in any case); a view's segment as the request named it.
  url.pathname = `/${name}${route.path.replace(/:(\w+)$/, (_, param: string) => String(req.params[param] ?? ''))}`;
  const at = req.originalUrl.indexOf('?');
  url.search = at === -1 ? '' : req.originalUrl.slice(at + 1);
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers))
    if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
  // The route's method: Express hands a GET route a HEAD too, answered as the GET without its body.
  return new Request(url, { method: route.method, headers, ...(route.method === 'POST' ? { body } : {}) });
}

/** What the module's pages are rendered with. */
export interface ModulePages {
  name: string;
  door: PlatformParts['door'];
  tokens: BridgeShopTokens;
  /** The standalone merchant page of this module, without a session. */
  pageOf: StandalonePage;
  /** Why its page is off though it has a door: its merchant page answers this instead, 503. */
  pageOff: string | undefined;
  /** Who may frame its plain pages, unless the answer says. */
  frameAncestors: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** The content types a module answers itself, each as the bridge serves it. */
const SERVED_AS: Readonly<Record<string, string>> = {
  'application/json': 'application/json; charset=utf-8',
  'text/plain': 'text/plain; charset=utf-8',
};
/** Set by the kind of answer, never copied from the module's. */
const NOT_COPIED = new Set(['content-type', 'content-length', 'location', 'set-cookie']);

export async function sendModuleAnswer(res: ExpressResponse, answer: Response, pages: ModulePages): Promise<void> {
  const type = answer.headers.get('content-type');
  const location = answer.headers.get('location');
  const servedAs = type === null ? undefined : SERVED_AS[type.split(';')[0]!.trim().toLowerCase()];
  const redirect = REDIRECTS.has(answer.status) && location !== null;
  if (!(answer instanceof BridgeAnswer) && !redirect && !servedAs)
    throw new Error(
      `the ${pages.name} module answered ${answer.status} with content type ${type ?? 'none'}, which the bridge does not serve for a module`,
    );
  copyHeaders(res, answer.headers);
  if (answer instanceof BridgeAnswer) return sendBridgeAnswer(res, answer, pages);
  if (redirect) return res.redirect(answer.status, location);
  // The answer's kind is its type, whatever headers the module added: nothing it echoes is ever read as a page.
  res.status(answer.status).set({ 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  res.set('content-type', servedAs).send(Buffer.from(await answer.arrayBuffer()));
}

function copyHeaders(res: ExpressResponse, headers: Headers): void {
  for (const cookie of headers.getSetCookie()) res.append('set-cookie', cookie);
  for (const [name, value] of headers) if (!NOT_COPIED.has(name)) res.set(name, value);
}

async function sendBridgeAnswer(res: ExpressResponse, answer: BridgeAnswer, pages: ModulePages): Promise<void> {
  const { rendered } = answer;
  if (rendered.kind !== 'script' && rendered.kind !== 'download')
    return renderPage(res, answer.status, rendered, pages);
  res.status(answer.status).set('x-content-type-options', 'nosniff');
  // Its headers are the bridge's, set where it was made (cache-control copied above).
  if (rendered.kind === 'download')
    res.type(answer.headers.get('content-type') ?? 'application/octet-stream').attachment(rendered.fileName);
  // A script is served as JavaScript, whatever headers were set on it since: never a page.
  else res.type('application/javascript; charset=utf-8');
  res.send(Buffer.from(await answer.arrayBuffer()));
}

function renderPage(
  res: ExpressResponse,
  status: number,
  rendered: Exclude<BridgeRendered, { kind: 'script' | 'download' }>,
  { name, door, tokens, pageOf, pageOff, frameAncestors }: ModulePages,
): void {
  if (rendered.kind === 'plain-page') {
    const { title, paragraphs, link, form } = rendered.page;
    return plainPage(res, status, title, paragraphs, {
      frameAncestors: rendered.frameAncestors ?? frameAncestors,
      ...(link ? { link } : {}),
      ...(form ? { form } : {}),
    });
  }
  // Signed in by the platform's own scripts, whose tokens only its door takes.
  if (rendered.kind === 'embedded-page') {
    if (!door?.platformSessions)
      throw new Error(`the ${name} module answered with an embedded page, but its door takes no session of its own`);
    return sendEmbeddedPage(res, rendered.head, rendered.merchantPage);
  }
  const { opened } = rendered;
  if (opened === 'no-session') return sendStandaloneMerchantPage(res, pageOf);
  if (pageOff) return plainPage(res, 503, 'Not available yet', pageOff, { frameAncestors });
  // A session only where a door will take it back: a page that could never call the API is no page.
  if (!door) throw new Error(`the ${name} module answered with its merchant page, but has no door`);
  const { shop, user, mayConnectPlugin } = opened;
  if (typeof shop !== 'string' || shop === '')
    throw new Error(`the ${name} module answered with its merchant page for no shop`);
  const session = tokens.mint(shop, user ?? undefined, mayConnectPlugin ?? undefined);
  return sendStandaloneMerchantPage(res, { ...pageOf, session });
}
