// A first run, for the person trying the bridge: the built-in demo store sending its orders while no store of
// theirs is connected, the demo shop's own page as its merchant sees it, the demo shops answering resync from
// what they sent, and the links for this run (the dashboard's sign-in, the demo shop's page) told at the
// terminal and never logged: when the bridge starts, again below the demo's first handful of orders (the
// start-up lines have scrolled them up by then), and again when the shop's link was used (its next one).
import { randomBytes } from 'node:crypto';
import express, { type RequestHandler } from 'express';
import { z } from 'zod';
import { recordType } from '../core/store/roles/record-types.ts';
import { isSet, runsDemoStore, type Config } from '../config.ts';
import type { Engine } from '../core/engine.ts';
import type { LedgerStore } from '../core/store/ledger-store.ts';
import type { OrderSource } from '../core/order-source.ts';
import type { AnyPlatformModule, DemoStorefront } from '../core/platform-module.ts';
import type { Logger } from '../logger.ts';
import { tellThePersonAtTheTerminal } from '../terminal-notice.ts';
import type { AccountRegistry } from '../accounts/registry.ts';
import type { BridgeSandbox } from '../accounts/sandbox-trials.ts';
import { giveDemoShopsTheirAccounts } from './demo-accounts.ts';
import { demoOutcome } from './demo-outcome.ts';
import { demoPage, type DemoPage } from './demo-page.ts';
import { demoSource } from './demo-source.ts';
import { DemoCodes, demoStorefrontParts, setUpDemoStorefront } from './demo-storefront.ts';
import {
  demoStorefrontChooser,
  demoStorefrontOrigin,
  demoStorefrontPage,
  ownHostOnly,
  STOREFRONT_PATH,
} from './demo-storefront-page.ts';
import { API_PATH, demoApiRoutes, demoReadingAdapter } from './demo-api.ts';
import { DEMO_PAGE_PREFIX } from './demo-page.ts';
import { DemoStore, demoSecrets, type DemoPlayer, type DemoSecrets, type Schedule } from './demo-store.ts';
import { SHIPPED_MODULES } from '../platform-registry.ts';
import type { Platforms } from './platforms.ts';

/** The platforms that play a shop in the demo store. */
const playing = () => (SHIPPED_MODULES as readonly AnyPlatformModule[]).filter(({ demo }) => demo !== undefined);

/**
 * On a first run, the configuration with the demo store's shops and the secrets made for this run to check its
 * deliveries. Not once a store of the merchant's is connected (the ledger holds it, from an earlier run): the demo's
 * shops would stand beside it, and a configured demo site would be the one its platform's secret opens.
 */
export async function firstRunConfig(
  configured: Config,
  storeConnected: () => Promise<boolean>,
): Promise<{ config: Config; secrets: DemoSecrets | undefined }> {
  if (!runsDemoStore(configured) || (await storeConnected())) return { config: configured, secrets: undefined };
  const modules = playing();
  const secrets = demoSecrets(modules.map(({ name }) => name));
  const settings = modules.map(({ name, demo }) => demo?.settings(secrets[name] ?? '') ?? {});
  // The demo's settings fill what is unset only: an operator's setting is never replaced by the demo's.
  const config: Record<string, unknown> = { ...configured };
  for (const [key, value] of settings.flatMap((each) => Object.entries(each)))
    if (!isSet(config[key])) config[key] = value;
  return { config: config as Config, secrets };
}

/** A new store's first order id, as a platform whose ids are its orders' names numbers them ("#100"). */
const FIRST_ORDER_ID = 100;
const IDS = recordType<{ next: number }>('demo-order-ids', z.looseObject({ next: z.number() }));
const IDS_ID = 'next';

/**
 * The demo's order ids, small as a store's own: this run's first is the one after an earlier run's last (kept in the
 * ledger), so a later run's orders are new orders there, never more events of an earlier run's. Kept in turn.
 */
async function demoOrderIds(
  store: Pick<LedgerStore, 'getRecord' | 'putRecord'>,
  logger: Logger,
): Promise<{ first: number; used(next: number): void }> {
  const first = (await store.getRecord(IDS, IDS_ID))?.next ?? FIRST_ORDER_ID;
  let kept = Promise.resolve();
  return {
    first,
    used: (next) => {
      kept = kept
        .then(() => store.putRecord(IDS, IDS_ID, { next }))
        .catch((error: unknown) => logger.warn({ err: error }, 'the demo could not keep its next order id'));
    },
  };
}

/** How the demo is paced (tests hurry it, or count its waits). */
export interface DemoPace {
  /** Between two orders of the first handful. */
  paceMs?: number | undefined;
  /** Between two orders after it. */
  trickleMs?: number | undefined;
  schedule?: Schedule | undefined;
}

export interface FirstRunParts {
  config: Config;
  platforms: Platforms;
  secrets: DemoSecrets;
  engine: Pick<Engine, 'store' | 'accounts' | 'drain'>;
  /** Where the demo's shops get their trial accounts: the accounts, and the bridge's sandbox. */
  registry: Pick<AccountRegistry, 'links' | 'create' | 'link'>;
  /** The dashboard's token: ADMIN_TOKEN, or this run's. */
  adminToken: string | undefined;
  logger: Logger;
  pace: DemoPace;
}

/** A demo shop with a store page, and the codes its store holds. */
interface Shopper {
  player: DemoPlayer;
  storefront: DemoStorefront;
  codes: DemoCodes;
}

export class FirstRun {
  readonly #o: FirstRunParts;
  readonly #players: DemoPlayer[];
  #demo: DemoStore | undefined;
  #page: DemoPage | undefined;
  /** Stopped for good: a store of the merchant's own is connected. */
  #stopped = false;
  #url = '';
  /** The demo customer's sign-in cookie's value for this run (random: a cookie made up elsewhere signs no one in). */
  readonly #session = randomBytes(18).toString('base64url');
  /** The demo shops whose store pages the demo serves (each with one), and the codes each one's store holds. */
  readonly #shoppers: Shopper[];
  /**
   * Those whose storefront was lent to their module (lendStorefront): the ones with a store page. A module that has a
   * storefront of its own (its app or public address configured) would refuse what the demo's page signs.
   */
  readonly #lent: Shopper[] = [];

  constructor(parts: FirstRunParts) {
    this.#o = parts;
    this.#players = parts.platforms.modules.flatMap(({ module }) => {
      const secret = parts.secrets[module.name];
      const { demo } = module;
      if (!demo || !secret) return [];
      const shop = module.shopName?.(demo.shop) ?? demo.shop;
      return [{ platform: module.name, platformName: module.names.platform, shop, demo, secret }];
    });
    this.#shoppers = this.#players.flatMap((player) =>
      player.demo.storefront ? [{ player, storefront: player.demo.storefront, codes: new DemoCodes() }] : [],
    );
  }

  /**
   * Each demo shop's storefront, lent to its platform's module, which has none of its own on a first run (no app or
   * public address of the merchant's is configured): the bridge's storefront routes then serve the demo store
   * page's widget. And where a demo shop's deliveries name their order only, its module's adapter reads the demo
   * shop's orders from the demo's API. Called once the platforms are built, before the routes are.
   */
  lendStorefront(): void {
    for (const player of this.#players) {
      const { api } = player.demo;
      const built = this.#o.platforms.modules.find(({ module }) => module.name === player.platform);
      if (!api || !built) continue;
      const url = () => `${this.#url}${DEMO_PAGE_PREFIX}${API_PATH}/${player.platform}`;
      const reading = api.adapter({ url, secret: player.secret });
      const webhooks = built.parts.webhooks;
      const adapter = demoReadingAdapter(webhooks?.adapter, reading, player.shop);
      built.parts.webhooks = webhooks
        ? { ...webhooks, adapter }
        : // The demo's secret signs for its one shop: a delivery naming another is not the demo's.
          {
            adapter,
            admitShop: async (shop) => (shop === player.shop ? undefined : 'not the demo store'),
            onStored: async () => {},
          };
      this.#o.platforms.adapters[player.platform] = adapter;
    }
    for (const shopper of this.#shoppers) {
      const { player, storefront, codes } = shopper;
      const built = this.#o.platforms.modules.find(({ module }) => module.name === player.platform);
      if (!built || built.parts.storefront) continue;
      this.#lent.push(shopper);
      Object.assign(
        built.parts,
        demoStorefrontParts({
          shop: player.shop,
          storefront,
          secret: player.secret,
          codes,
          playing: () => this.running,
        }),
      );
    }
  }

  /** Present once started (unless a store of the merchant's was connected already). */
  get demo(): DemoStore | undefined {
    return this.#demo;
  }

  get running(): boolean {
    return this.#demo?.running ?? false;
  }

  /** A delivery from one of the demo's shops: its line is the demo's own, one per order. */
  isDemoShop(platform: string, shop: string): boolean {
    return this.#players.some((player) => player.platform === platform && player.shop === shop);
  }

  /**
   * A delivery from a demo shop once the demo stopped (or before it started): refused, though signed with this run's
   * secret, which the configuration still holds; nothing of it is kept.
   */
  refusedShop(platform: string, shop: string): string | undefined {
    return this.isDemoShop(platform, shop) && !this.running ? 'the demo store has stopped' : undefined;
  }

  /** The demo's shops while it plays: stores to the operator's panel, as a platform's own are. */
  get shops(): Array<{ platform: string; shop: string }> {
    if (!this.running) return [];
    return this.#players.map(({ platform, shop }) => ({ platform, shop }));
  }

  /** The demo shops' answers to resync while the demo plays (each platform's only source then). */
  get sources(): OrderSource[] {
    const demo = this.#demo;
    if (!demo?.running) return [];
    return this.#players.flatMap((player) => {
      const adapter = this.#o.platforms.adapterFor(player.platform);
      return adapter ? [demoSource({ player, adapter, sent: () => demo.sentTo(player.platform, player.shop) })] : [];
    });
  }

  /** The demo shops' own pages, their API calls answered by `shopRoutes`, and the demo's store pages. */
  page(shopRoutes: RequestHandler): DemoPage | undefined {
    if (this.#players.length === 0) return undefined;
    this.#page = demoPage({
      shops: this.#players.map(({ platform, shop }) => ({ platform, shop })),
      shopRoutes,
      playing: () => this.running,
      used: (platform) => this.#tellNextLink(platform),
      logger: this.#o.logger,
      adminToken: this.#o.adminToken,
    });
    const ownHost = ownHostOnly(() => this.#ownHosts());
    const routes = express.Router().use(ownHost).use(this.#page.routes);
    for (const player of this.#players) {
      const { api } = player.demo;
      if (!api) continue;
      const sent = () => this.#demo?.sentTo(player.platform, player.shop) ?? [];
      routes.use(`${API_PATH}/${player.platform}`, demoApiRoutes({ player, api, sent, playing: () => this.running }));
    }
    if (this.#lent.length === 0) return { ...this.#page, routes };
    for (const shopper of this.#lent) {
      const { player } = shopper;
      const storefront = demoStorefrontPage({
        ...shopper,
        url: () => this.#url,
        session: this.#session,
        playing: () => this.running,
        checkout: async (order) => this.#demo?.checkout(player, order),
        deliver: async (delivery) => (this.#demo ? this.#demo.deliverOnce(player, delivery) : 'the demo has stopped'),
        sent: () => this.#demo?.sentTo(player.platform, player.shop) ?? [],
        logger: this.#o.logger,
      });
      routes.use(`${STOREFRONT_PATH}/${player.platform}`, storefront);
    }
    const pages = this.#lent.map(({ player }) => player);
    routes.use(
      STOREFRONT_PATH,
      demoStorefrontChooser(pages, () => this.running),
    );
    // What a widget asks of its store's own origin (a current-customer token), the bridge's origin answers.
    const origin = demoStorefrontOrigin(
      this.#lent.map((shopper) => ({
        ...shopper,
        url: () => this.#url,
        session: this.#session,
        page: `${DEMO_PAGE_PREFIX}${STOREFRONT_PATH}/${shopper.player.platform}/`,
      })),
      () => this.running,
    );
    return { ...this.#page, routes, origin: express.Router().use(ownHost).use(origin) };
  }

  /** The bridge's own host names, besides loopback's: its configured HOST, and the address it told. */
  #ownHosts(): string[] {
    const told = URL.canParse(this.#url) ? [new URL(this.#url).host] : [];
    return [this.#o.config.HOST, ...told];
  }

  /** The demo store pages' link (the page that lists them, one for each platform), while the demo plays. */
  storefrontLink(): string | undefined {
    return this.running && this.#lent.length > 0 ? `${this.#url}${DEMO_PAGE_PREFIX}${STOREFRONT_PATH}/` : undefined;
  }

  /** The demo started, unless a store of the merchant's own is connected (through the dashboard). */
  async start(url: string, sandbox: BridgeSandbox): Promise<DemoStore | undefined> {
    const { platforms, logger, pace, engine } = this.#o;
    this.#url = url;
    // A store connected or installed since (the demo's own shops are configured, never connected).
    for (const { parts: built } of platforms.modules)
      if (await built.orders?.storesToRead.connected()) return undefined;
    // A store connected while the check above awaited: stop() came before there was a demo to stop.
    if (this.#stopped) return undefined;
    await giveDemoShopsTheirAccounts(this.#players, this.#o.registry, sandbox, logger);
    for (const { player } of this.#lent) await setUpDemoStorefront(engine.store, player.platform, player.shop);
    const demo = new DemoStore({
      url,
      players: this.#players,
      logger,
      ...(pace.paceMs ? { paceMs: pace.paceMs } : {}),
      ...(pace.trickleMs ? { trickleMs: pace.trickleMs } : {}),
      ...(pace.schedule ? { schedule: pace.schedule } : {}),
      outcome: demoOutcome({ store: engine.store, accounts: engine.accounts, settled: () => engine.drain() }),
      onHandfulSent: () => this.tellLinks(),
      ids: await demoOrderIds(engine.store, logger),
    });
    this.#demo = demo;
    demo.start();
    logger.info(
      { demo: Object.fromEntries(this.#players.map(({ platform, shop }) => [platform, shop])) },
      `no store is connected yet, so a built-in demo store sends a handful of orders (${demo.handful}), then one a minute for an hour, to show the bridge at work. Connect a real store (README.md, Connect your store) and the demo stops`,
    );
    return demo;
  }

  stop(): void {
    this.#stopped = true;
    this.#demo?.stop();
  }

  /**
   * The links for this run, for the person at the terminal: the dashboard's sign-in, and the demo shop's page.
   * Below the lines logged so far: a terminal's log is written by a worker thread, which has them first.
   */
  tellLinks(): void {
    this.#o.logger.flush(() => this.#tellLinks());
  }

  /** A demo shop's page's link as the terminal tells it now (one use), while the demo plays: the first's, or `platform`'s. */
  pageLink(platform?: string): string | undefined {
    const path = this.running ? this.#page?.path(platform) : undefined;
    return path ? `${this.#url}${path}` : undefined;
  }

  /**
   * A shop's link was used: at a terminal, one line with its next one (the others still hold); in the file, every link
   * as it stands now.
   */
  #tellNextLink(platform: string): void {
    const player = this.#players.find((each) => each.platform === platform);
    const link = this.pageLink(platform);
    if (!process.stdout.isTTY || !player || !link) return this.tellLinks();
    const line = `That link to the ${player.platformName} demo shop's page is used; its next one (one use): ${link}`;
    this.#o.logger.flush(() => process.stdout.write(`${line}\n`));
  }

  #tellLinks(): void {
    const { config, adminToken, logger } = this.#o;
    const signIn = signInUrl(config, adminToken, this.#url);
    const page = this.pageLink();
    // Each demo shop's page, on a line of its own: a link wrapped in a terminal opens no more.
    const pages = this.#players.flatMap(({ platform, platformName }) => {
      const link = this.pageLink(platform);
      return link ? [`See what a merchant sees, the ${platformName} demo shop's own page: ${link}`] : [];
    });
    const storefront = this.storefrontLink();
    const stores = this.#lent.map(({ player }) => player.platformName).join(', ');
    if (!signIn && !page) return;
    tellThePersonAtTheTerminal({
      text: [
        ...(signIn ? [`Open the dashboard: ${signIn}`] : []),
        ...(page ? pages : []),
        ...(storefront ? [`See what a customer sees, the demo stores (${stores}): ${storefront}`] : []),
        `(for this run only${page ? '; a shop’s link works once, and a new one is printed when it is used' : ''}${signIn ? '; set ADMIN_TOKEN for a dashboard sign-in that lasts' : ''})`,
      ].join('\n'),
      fileName: 'sign-in-link.txt',
      dataDir: config.DATA_DIR,
      logger,
    });
  }
}

/** In sandbox mode without ADMIN_TOKEN: the dashboard's link with this run's token in its fragment, which never reaches a server. */
export const signInUrl = (config: Config, adminToken: string | undefined, localUrl: string): string | undefined =>
  !config.ADMIN_TOKEN && adminToken ? `${localUrl}/admin/#token=${adminToken}` : undefined;

/** The dashboard's sign-in link for this run, told at the terminal (on a first run, FirstRun tells it with the demo's). */
export function tellSignInLink(
  config: Config,
  adminToken: string | undefined,
  localUrl: string,
  logger: Logger,
): string | undefined {
  const url = signInUrl(config, adminToken, localUrl);
  if (url)
    tellThePersonAtTheTerminal({
      text: `Open the dashboard: ${url}\n(a sign-in for this run only; set ADMIN_TOKEN for one that lasts)`,
      fileName: 'sign-in-link.txt',
      dataDir: config.DATA_DIR,
      logger,
    });
  return url;
}
