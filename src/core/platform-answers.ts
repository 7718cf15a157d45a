// The answers a module's route gives that the bridge itself renders (a page, its merchant page, a script it serves,
// a file to download): each a Fetch Response a module makes here, since it never imports the bridge's HTTP layer.
// Everything else a route answers is a plain Response (JSON, text, a redirect). src/http/module-answer.ts serves them.
import type { PlatformHead } from './platform-routes.ts';

/** Who the merchant page opens for: never an empty shop. null: the platform does not say (a user, a right). */
export interface MerchantPageFor {
  shop: string;
  user: string | null;
  /** What the platform signed of the user's right to connect its plugin (pluginCode), where it signs one. */
  mayConnectPlugin: boolean | null;
}

/** A page for a person who followed a link: a title, what to do in plain words, and a link onwards. */
export interface PlainPage {
  title: string;
  paragraphs: readonly string[];
  link: { href: string; text: string } | null;
  /** One field asked for, sent by GET to `action` (a path of the bridge's): a store's address. */
  form: { action: string; name: string; label: string; placeholder: string; button: string } | null;
}

/** What the bridge renders of an answer of its own (BridgeAnswer). */
export type BridgeRendered =
  | { kind: 'merchant-page'; opened: MerchantPageFor | 'no-session' }
  | { kind: 'embedded-page'; head: PlatformHead; merchantPage: boolean }
  | { kind: 'plain-page'; page: PlainPage; frameAncestors: string | null }
  | { kind: 'script' }
  | { kind: 'download'; fileName: string };

// The Fetch types' parts, which Node declares on its globals alone (no DOM library here).
type AnswerBody = ConstructorParameters<typeof Response>[0];
type AnswerInit = NonNullable<ConstructorParameters<typeof Response>[1]>;

// Only the constructors below make a BridgeAnswer: an answer a module made up itself is never served as a page.
const MADE_HERE = Symbol('platform-answers');

/** An answer the bridge renders: a page from `rendered`, or a file of the body's bytes with the bridge's headers. */
export class BridgeAnswer extends Response {
  readonly rendered: BridgeRendered;
  constructor(made: typeof MADE_HERE, rendered: BridgeRendered, body: AnswerBody, init: AnswerInit) {
    if (made !== MADE_HERE) throw new Error('a BridgeAnswer is made by platform-answers.ts alone');
    super(body, init);
    this.rendered = rendered;
  }
}

/**
 * The shared merchant page, signed in for this shop (and user, where the platform says). Only in answer to a
 * request that proved who the merchant is: the session it carries opens that shop's page for an hour.
 * 'no-session': the page alone, which asks the merchant to sign in again unless the tab holds a session of its own.
 */
export const merchantPageAnswer = (opened: MerchantPageFor | 'no-session'): BridgeAnswer =>
  new BridgeAnswer(MADE_HERE, { kind: 'merchant-page', opened }, null, { status: 200 });

/**
 * A page inside the platform's own admin, which signs the merchant in itself (its scripts hand the page the
 * platform's session tokens, which the door's `platformSessions` takes): the shared merchant page, or with
 * `merchantPage: false` the platform's head alone (a page whose scripts fetch a fresh token and reload).
 */
export const embeddedPageAnswer = ({ merchantPage, ...head }: PlatformHead & { merchantPage: boolean }): BridgeAnswer =>
  new BridgeAnswer(MADE_HERE, { kind: 'embedded-page', head, merchantPage }, null, { status: 200 });

/**
 * A plain page: nothing on it runs. `frameAncestors`: who may frame it where that depends on the shop (its own
 * admin); null: where the module's door says, or nowhere.
 */
export const plainPageAnswer = (
  status: number,
  page: PlainPage,
  { frameAncestors }: { frameAncestors: string | null },
): BridgeAnswer => new BridgeAnswer(MADE_HERE, { kind: 'plain-page', page, frameAncestors }, null, { status });

/**
 * A script the platform's pages load from the bridge (a widget registered with the platform): served as
 * JavaScript, which browsers and the CDN in front may keep for maxAgeSeconds. Nothing else is served so.
 */
export const scriptAnswer = (script: string, maxAgeSeconds: number, status = 200): BridgeAnswer =>
  new BridgeAnswer(MADE_HERE, { kind: 'script' }, script, {
    status,
    headers: {
      'content-type': 'application/javascript; charset=utf-8',
      'cache-control': `public, max-age=${maxAgeSeconds}`,
    },
  });

/** A file a person downloads (a plugin's zip): saved under its name, never shown as a page. */
export const downloadAnswer = (
  { fileName, contentType, bytes }: { fileName: string; contentType: string; bytes: Uint8Array },
  status = 200,
): BridgeAnswer =>
  new BridgeAnswer(MADE_HERE, { kind: 'download', fileName }, new Uint8Array(bytes), {
    status,
    headers: { 'content-type': contentType, 'cache-control': 'no-cache' },
  });

/** A request's query, each parameter given once: a repeated one is nothing a platform signed, and is left out. */
export type RouteQuery = Readonly<Record<string, string>>;

export function routeQuery(request: Request): RouteQuery {
  const params = new URL(request.url).searchParams;
  const query: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const name of new Set(params.keys())) {
    const values = params.getAll(name);
    if (values.length === 1) query[name] = values[0]!;
  }
  return query;
}

/**
 * Whether a name is given twice in the query. routeQuery leaves such a name out, but a library handed the whole
 * request may read either copy where a signature covered the other: a signed request repeats no name.
 */
export const repeatsAName = (request: Request): boolean => {
  const params = new URL(request.url).searchParams;
  return new Set(params.keys()).size !== [...params.keys()].length;
};

/** A text answer, as the bridge answers text. */
export const textAnswer = (status: number, text: string): Response =>
  new Response(text, { status, headers: { 'content-type': 'text/plain; charset=utf-8' } });

/**
 * A redirect to `location` as it is, where Response.redirect takes only an absolute address (a path of the
 * bridge's stays relative); 302 unless 303 (after a POST).
 */
export const redirectAnswer = (location: string, status: 302 | 303 = 302): Response =>
  new Response(null, { status, headers: { location } });

/** The answer with these headers set and these cookies (each a whole Set-Cookie value) added. */
export function withHeaders<T extends Response>(
  answer: T,
  headers: Readonly<Record<string, string>>,
  setCookies: readonly string[] = [],
): T {
  for (const [name, value] of Object.entries(headers)) answer.headers.set(name, value);
  for (const cookie of setCookies) answer.headers.append('set-cookie', cookie);
  return answer;
}
