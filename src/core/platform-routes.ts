// A platform module's routes, each a Fetch handler, Request in and Response out, as the web's own server libraries
// take them: src/http mounts them (platform-routes.ts there), so a module never imports the bridge's HTTP
// layer. A route reads `new URL(request.url)` (http://<host>/<name><path>?<query>; routeQuery for its parameters),
// `request.headers`, and a POST's bytes (`request.arrayBuffer()`), read within its limit before it is called.
// It answers JSON (`Response.json`), text, or a redirect (platform-answers.ts: textAnswer, redirectAnswer), with
// any headers and cookies (`headers.append('set-cookie', …)`); a page, the merchant page, a script or a download
// only through platform-answers.ts, which the bridge renders: any other kind of answer (HTML) is refused, 500.

/** What a platform's admin needs in a page it frames; the bridge renders the page. */
export interface PlatformHead {
  /** Loaded first, in this order, as they are. */
  scripts: readonly string[];
  /** <meta name content> pairs its scripts read. */
  meta: Readonly<Record<string, string>>;
  /** What its scripts may load, show and call, for the content security policy: origins or path prefixes. */
  sources: { script: readonly string[]; image: readonly string[]; connect: readonly string[] };
  /** Its admin for this shop. */
  frameAncestors: string;
  /** What the merchant page's script takes from the platform's scripts, which it names nowhere itself. */
  page?: {
    /** The global object its scripts define (session tokens, toasts). */
    global: string;
    /** The app's address on the bridge, as the admin opens it, under which each view has its own: `/<name>/app`. */
    appPath: string;
    /** The event its nav sends a link that is clicked. */
    navigateEvent: string;
    /** A header whose value 1 on a 401 asks for one more try with a fresh token. */
    retryHeader?: string;
  };
}

/**
 * The last segment of a route's path that stands for any of the merchant page's views (`/app/:view`): a reload of the
 * platform's admin asks for the view it shows. The views are the page's own (its nav in src/http/merchant/index.html),
 * which no list here repeats; the bridge answers only a name of MERCHANT_VIEW_NAME's shape there, 404 otherwise.
 */
export const MERCHANT_VIEW_SEGMENT = '/:view';
export const MERCHANT_VIEW_NAME = /^[a-z][a-z-]{0,30}$/;

/** Who a bearer token the platform itself signed (not one the bridge made) names, or why it opens nothing. */
export type PlatformSession =
  | { ok: true; shop: string; user?: string }
  | {
      ok: false;
      status: 401 | 403 | 502 | 503;
      error: string;
      /** Headers the platform's scripts read on a refusal (a signal to retry with a fresh token). */
      headers?: Readonly<Record<string, string>>;
    };
export interface PlatformRoute {
  method: 'GET' | 'POST';
  /** Exact path below /<name>: "/load". */
  path: string;
  /** A POST's body is refused past this, before more of it is read (at most the bridge's own limit, 64 KiB). */
  maxBodyBytes?: number;
  /**
   * The browser origins whose scripts may call it from their own pages (CORS): the bridge answers their preflight
   * (OPTIONS) and names the origin on every answer of the route. Absent: same-origin only, no preflight answered.
   */
  cors?: RouteCors;
  handle(request: Request): Promise<Response>;
}

/** Who may call a route from another origin's script, and with what. */
export interface RouteCors {
  /**
   * Exact origins (the origin a platform runs its extensions' scripts at). 'any-page': the store's own pages, at
   * whatever domain the merchant gives them, where the bridge cannot know the domains; only for a route whose one
   * credential is a bearer that a page of another origin cannot read (the platform serves it to its own origin, with
   * the customer's cookies), and never with credentials. 'any': answered `Access-Control-Allow-Origin: *`, for any
   * origin, "null" and none included, and never with credentials (no cookie, no Access-Control-Allow-Credentials):
   * only for a route whose one credential is a token the platform signs and its script sends in a header, where the
   * platform documents that its scripts' origin may be null or change (a platform's UI extensions in a web worker).
   */
  origins: readonly string[] | 'any-page' | 'any';
  /** Request headers the script sends beyond the safelisted ones, lower case: ["authorization"]. */
  headers?: readonly string[];
}
