// A platform module's routes, on a small request-in, answer-out interface that src/http mounts (platform-routes.ts
// there), so a module never imports the bridge's HTTP layer.
export interface PlatformRequest {
  method: 'GET' | 'POST';
  /** Below the platform's own prefix (/<name>), with its leading slash. */
  path: string;
  query: Readonly<Record<string, string>>;
  /** Lower-case names. */
  headers: Readonly<Record<string, string | undefined>>;
  /** A POST's exact bytes, within the route's limit; empty for a GET. */
  body: Buffer;
}

/** What every answer may carry besides: headers, and cookies (each a whole Set-Cookie value, `cookie`'s stringifySetCookie). */
interface AnswerExtras {
  headers?: Readonly<Record<string, string>>;
  setCookies?: readonly string[];
  /** Who may frame this answer's page where that depends on the shop (its own admin); the door's otherwise. */
  frameAncestors?: string;
}

export type PlatformAnswer = AnswerExtras &
  (
    | { status: number; json: unknown }
    | { status: number; text: string }
    /**
     * A script the platform's pages load from the bridge (a widget registered with the platform): served as
     * JavaScript, which browsers and the CDN in front may keep for maxAgeSeconds. Nothing else is served so.
     */
    | { status: number; script: string; maxAgeSeconds: number }
    /** A file a person downloads (a plugin's zip): saved under its name, never shown as a page. */
    | { status: number; download: { fileName: string; contentType: string; bytes: Uint8Array } }
    /** To another address; 302 unless it says 303 (after a POST). */
    | { redirect: string; status?: 302 | 303 }
    /**
     * A page for a person who followed a link: a title, what to do in plain words, and a link onwards. Nothing on
     * it runs; it may be framed where the module's door says (its admin), or nowhere.
     */
    | {
        status: number;
        page: {
          title: string;
          paragraphs: readonly string[];
          link?: { href: string; text: string };
          /** One field asked for, sent by GET to `action` (a path of the bridge's): a store's address. */
          form?: { action: string; name: string; label: string; placeholder: string; button: string };
        };
      }
    /**
     * The shared merchant page, signed in for this shop (and user, where the platform says). Only in answer to
     * a request that proved who the merchant is: the session it carries opens that shop's page for an hour.
     * `shop` is never empty: the bridge makes no session for no shop. `'no-session'`: the page alone, which asks
     * the merchant to sign in again unless the tab holds a session of its own (a reload). `mayConnectPlugin`: what
     * the platform signed of the user's right to connect its plugin (pluginCode), where it signs one.
     */
    | { merchantPage: { shop: string; user?: string; mayConnectPlugin?: boolean } | 'no-session' }
    /**
     * A page inside the platform's own admin, which signs the merchant in itself (its scripts hand the page the
     * platform's session tokens, which the door's `platformSessions` takes): the shared merchant page, or with
     * `merchantPage: false` the platform's head alone (a page whose scripts fetch a fresh token and reload).
     */
    | { embeddedPage: PlatformHead & { merchantPage: boolean } }
  );

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

/** The merchant page's views, each with an address under a platform's app path (a reload of its admin opens the same one). */
export const MERCHANT_PAGE_VIEWS = ['setup', 'orders', 'privacy'] as const;

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
  handle(request: PlatformRequest): Promise<PlatformAnswer>;
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
