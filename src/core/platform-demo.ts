// A platform's shop in the first run's demo store (src/composition/demo-store.ts): its orders, its storefront and
// its API, played in its own terms.
import type { PlatformAdapter } from './platform-adapter.ts';
import type { StorefrontAsker } from './platform-shapes.ts';
import type { BenefitKind } from './reward-benefit.ts';

/** One order of the demo store's, and the steps of its life: each a delivery, in its platform's own terms. */
export interface DemoOrder<Step = unknown> {
  customer: { first: string; last: string; email: string; phone: string | null };
  total: string;
  test?: boolean;
  /** A referred order: its campaign, with a referrer's code, where the platform carries them. */
  campaign?: string;
  /** Paid at the demo store page's checkout with a reward's code: the code, the money it took off, and its kind. */
  code?: { code: string; amount: string; kind: BenefitKind };
  steps: readonly Step[];
}

/**
 * The demo shop's store page (issue 68): the platform's own storefront widget, served by the bridge, reaching the
 * bridge's storefront routes signed as the platform signs them, with this run's secret. The demo stands in for the
 * platform's side alone (its pages, its sign-in, its checkout, its codes); the bridge's side is the real one.
 */
export interface DemoStorefront {
  /** The customer who signs in: one of the demo's orders' customers (their points), by the platform's id for them. */
  customer: { id: string; of: DemoOrder['customer'] };
  /** The step of a checkout paid now: one delivery, as the platform sends a paid order. */
  paidStep: unknown;
  /** The demo shop's currency, as its orders name it ("USD"). */
  currency: string;
  /** Who asks, read from the request by the platform's own check (its signature), with this run's secret. */
  asker(request: Request, secret: string): Promise<StorefrontAsker>;
  /**
   * Below the page, where the store's own server answers the widget (an app proxy's path, a plugin's routes at the
   * site's root): the page hands every call there to `serve`. Undefined: the widget asks its page's origin alone.
   */
  sidePath: string | undefined;
  /**
   * Paths at the origin's root that the widget asks of its store's own server, where its script names them so (a
   * current-customer token's path): while the demo plays, the bridge's origin hands them to `serve` as they are,
   * and the page's sign-in reaches them.
   */
  originPaths: readonly string[];
  /**
   * The widget's HTML for the page's head and body: its files below `assetBase`, the store's side at `side`. Made
   * for who is signed in (`customerId`, undefined for a guest), as a store's page is.
   */
  widget(at: { assetBase: string; side: string; signInUrl: string; customerId: string | undefined; secret: string }): {
    head: string;
    body: string;
  };
  /** One of the widget's files, by name, as the page loads it. */
  asset(name: string): { contentType: string; body: string } | undefined;
  /**
   * A widget's call to the store's side (`path` below sidePath, "/" at least, or one of originPaths), as the
   * platform's server takes it: forwarded to the bridge (the path below /<platform>, with the query, signed as the
   * platform signs), answered there as the platform's plugin or server answers, or sent on to another of the store's
   * pages (`redirect`); undefined for anything that is not one of the widget's calls. `customerId`: the signed-in
   * customer's, or undefined for a guest; `page`: the store page's own path.
   */
  serve(call: {
    method: string;
    path: string;
    query: ReadonlyArray<readonly [string, string]>;
    headers: Readonly<Record<string, string | undefined>>;
    customerId: string | undefined;
    secret: string;
    page: string;
  }): { forward: string } | { status: number; contentType: string; body: string } | { redirect: string } | undefined;
  /**
   * The signed-in customer asking the store what it holds of them, as the platform sends that to the app (a signed
   * delivery to the webhook route), for the merchant's Data requests: `orderIds` are the customer's orders, `id` the
   * request's. Undefined where the platform sends none (its merchants answer such requests in their own admin).
   */
  dataRequest:
    | ((ask: { id: number; orderIds: readonly number[]; secret: string; at: string }) => {
        headers: Record<string, string>;
        body: string;
      })
    | undefined;
}

/** An order of the demo's as it stands now: what a platform's API answers of it. */
export interface DemoOrderState {
  id: number;
  number: number;
  order: DemoOrder;
  /** Its last step delivered. */
  step: unknown;
  /** When its first and its last step were delivered. */
  createdAt: string;
  at: string;
}

/**
 * The demo shop's API, where the platform's deliveries name their order only and its module reads the order from
 * the store (its API): the module's own adapter, reading the demo shop's orders there, and the API's answers to
 * those reads, from the orders the demo sent.
 */
export interface DemoApi {
  /** The module's adapter, checking deliveries with `secret`, reading the demo shop's orders at `url()` (the API's address on the bridge, known once it listens). */
  adapter(at: { url: () => string; secret: string }): PlatformAdapter<unknown>;
  /** One read, `path` below the API's address, as the module's client sends it; undefined for anything else. */
  answer(call: {
    method: string;
    path: string;
    query: ReadonlyArray<readonly [string, string]>;
    headers: Readonly<Record<string, string | undefined>>;
    secret: string;
    orders: readonly DemoOrderState[];
  }): { status: number; body: unknown } | undefined;
}

/** A platform's shop in the first run's demo store: no store of the merchant's, deliveries signed for this run. */
export interface PlatformDemo<Step = unknown> {
  /** Its shop, as its settings name it (the bridge's name for it is the module's shopName of this). */
  shop: string;
  /** The settings that serve its shop, checking deliveries with `secret` (made for this run only). */
  settings(secret: string): Readonly<Record<string, unknown>>;
  /** The orders it plays each round. */
  orders: readonly DemoOrder<Step>[];
  /**
   * A step as the platform delivers it: signed with `secret`, `id` the order's (new to the run), `number` what its
   * shop calls it (#1001 on), `sequence` new for each delivery.
   */
  delivery(step: {
    id: number;
    number: number;
    order: DemoOrder<Step>;
    step: Step;
    at: string;
    secret: string;
    sequence: number;
  }): {
    headers: Record<string, string>;
    body: string;
  };
  /** Its store's own page, where the demo's customer sees and spends their points; absent: none. */
  storefront?: DemoStorefront;
  /** Its shop's API, where its deliveries carry no order; absent: they carry the whole order. */
  api?: DemoApi;
  /** What its shop calls an order, where not "#<number>" (a platform that names an order by its id). */
  orderName?(order: { id: number; number: number }): string;
  /**
   * A delivery it sent, signed again as if sent `now`, for a platform whose signatures go stale (a resync reads the
   * demo's deliveries again, minutes later); absent: its signatures do not age.
   */
  resigned?(
    delivery: { headers: Record<string, string>; body: string },
    secret: string,
    now: Date,
  ): Record<string, string>;
}

/** A module of any settings, as lists of modules hold them. */
