// The demo store: on a first run (sandbox mode, no platform configured) it plays a shop of each platform whose
// module has a demo (PlatformModule.demo), sending signed deliveries through the bridge's real webhook routes
// (orders paid, fulfilled, refunded, cancelled, referred, a test order, one without a phone). First a handful:
// each shop's orders once, a second or two apart, so that within a minute the dashboard shows earnings; then a
// trickle, one order a minute, so that the terminal stays readable and the links printed there stay in sight.
// Each order is one line of the log, once the bridge has it. A delivery that does not get through (no answer in
// time, the connection dropped, an answer other than 2xx: a loaded machine) is sent again as it was a few seconds
// later, as a platform sends again one it was not acknowledged, so that the handful still shows within its minute;
// an order whose delivery never gets through is given up, told in the log, and the next one goes on. It never runs
// against a real loyalty service or beside a real store, and it stops for good when a store of the merchant's is
// connected.
import { randomBytes } from 'node:crypto';
import type { DemoOrder, PlatformDemo } from '../core/platform-module.ts';
import type { Logger } from '../logger.ts';

/** The secrets each platform's demo shop signs with and the bridge checks with, by platform: for this run only. */
export type DemoSecrets = Readonly<Record<string, string>>;

export const demoSecrets = (platforms: readonly string[]): DemoSecrets =>
  Object.fromEntries(platforms.map((name) => [name, randomBytes(24).toString('base64url')]));

/** A platform's demo shop, playing with this run's secret. */
export interface DemoPlayer {
  platform: string;
  /** As a person reads the platform's name: "TinyShop". */
  platformName: string;
  /** The shop as the bridge names it (the ledger's, the log's). */
  shop: string;
  demo: PlatformDemo;
  secret: string;
}

/** One order the demo sent: whose, its id and number, and each delivery of it as sent (the demo's shop remembers it). */
export interface SentOrder {
  player: DemoPlayer;
  order: DemoOrder;
  id: number;
  number: number;
  /** Its deliveries in the order sent; the last says how the order stands now. */
  deliveries: Array<{ headers: Record<string, string>; body: string; at: string; step: unknown }>;
}

/** What the order's shop calls it, as its merchant reads it in Orders: "#1001". */
export const orderName = ({ player, id, number }: SentOrder): string =>
  player.demo.orderName?.({ id, number }) ?? `#${number}`;

/** Waits `ms`, then runs `next`; what the store's timers are made with (tests count the waits instead). */
export type Schedule = (ms: number, next: () => void) => { cancel(): void };

/** Orders the demo's shops remember, for resync. */
const KEPT_ORDERS = 500;

/**
 * The waits before a delivery that did not get through is sent again, then it is given up: seconds, not the
 * trickle's minute, and 15 s in all, so that an order of the handful refused once still shows within the minute.
 */
export const DEMO_RETRY_MS: readonly number[] = [1_000, 2_000, 4_000, 8_000];

const timers: Schedule = (ms, next) => {
  const timer = setTimeout(next, ms);
  // The demo never keeps the process alive.
  timer.unref();
  return { cancel: () => clearTimeout(timer) };
};

/** The trickle's orders after the handful: an hour at one a minute, then the demo sends no more. */
const TRICKLE_ORDERS = 60;

export interface DemoStoreOptions {
  /** The bridge's own address. */
  url: string;
  players: readonly DemoPlayer[];
  logger: Logger;
  /** Between two orders of the first handful. */
  paceMs?: number;
  /** Between two orders after it: a trickle. */
  trickleMs?: number;
  /** How many orders the trickle sends before it ends: a demo left running sends no more for ever. */
  trickleOrders?: number;
  schedule?: Schedule;
  /** What became of an order in the bridge (its total, its facts, its points), in a few words, for its line. */
  outcome?: (sent: SentOrder) => Promise<string>;
  /** Told once the handful is sent (the links are printed again below it). */
  onHandfulSent?: () => void;
  /**
   * This run's first order id, and told each next one as it is used (first-run.ts keeps it in the ledger, so a later
   * run's orders are new ones): small, as a store's own (one platform's run from 100). Without: one from the clock.
   */
  ids?: { first: number; used(next: number): void };
}

/** The players' orders taken in turn, one of each at a time, as shops' days would mix them. */
function inTurn(players: readonly DemoPlayer[]): Array<{ player: DemoPlayer; order: DemoOrder }> {
  const longest = Math.max(0, ...players.map(({ demo }) => demo.orders.length));
  return Array.from({ length: longest }, (_, i) =>
    players.flatMap((player) => {
      const order = player.demo.orders[i];
      return order ? [{ player, order }] : [];
    }),
  ).flat();
}

export class DemoStore {
  readonly #o: Required<Omit<DemoStoreOptions, 'outcome' | 'onHandfulSent' | 'ids'>> &
    Pick<DemoStoreOptions, 'outcome' | 'onHandfulSent' | 'ids'>;
  readonly #orders: Array<{ player: DemoPlayer; order: DemoOrder }>;
  #timer: { cancel(): void } | undefined;
  /** Waits before a delivery is sent again: cut short when the demo stops. */
  readonly #pauses = new Set<{ cancel(): void }>();
  #running = false;
  #turn = 0;
  /** Orders made so far, the rotation's and the checkouts': the next one's id and number. */
  #made = 0;
  #sent = 0;
  #played = 0;
  /** Order ids new to this run (a later run's orders are new orders, not the same ones again), like a platform's. */
  readonly #firstId: number;
  /** New for each delivery, and above any of an earlier run's. */
  #deliveries = Math.floor(Date.now() / 1000);
  /** The orders sent, by platform and shop, newest last: what the demo's shops answer resync from. */
  readonly #sentOrders: SentOrder[] = [];
  /** The lines of the orders, written in the order they were sent. */
  #lines: Promise<void> = Promise.resolve();

  constructor(options: DemoStoreOptions) {
    this.#o = { paceMs: 1_500, trickleMs: 60_000, trickleOrders: TRICKLE_ORDERS, schedule: timers, ...options };
    this.#orders = inTurn(options.players);
    this.#firstId = options.ids?.first ?? Math.floor(Date.now() / 1000) * 1000;
  }

  /** Deliveries the bridge took. */
  get sent(): number {
    return this.#sent;
  }

  /** Orders whose every step was delivered. */
  get played(): number {
    return this.#played;
  }

  /** Whether it is still sending: from start until a store of the merchant's is connected or the bridge stops. */
  get running(): boolean {
    return this.#running;
  }

  /** How many orders the first handful has: each shop's orders once. */
  get handful(): number {
    return this.#orders.length;
  }

  get players(): readonly DemoPlayer[] {
    return this.#o.players;
  }

  /** The orders sent to this shop so far, oldest first. */
  sentTo(platform: string, shop: string): readonly SentOrder[] {
    return this.#sentOrders.filter(({ player }) => player.platform === platform && player.shop === shop);
  }

  start(): void {
    if (this.#running || this.#orders.length === 0) return;
    this.#running = true;
    this.#next();
  }

  stop(): void {
    this.#running = false;
    this.#timer?.cancel();
    this.#timer = undefined;
    for (const pause of this.#pauses) pause.cancel();
  }

  #next = (): void => {
    this.#timer = undefined;
    if (!this.#running) return;
    const turn = this.#turn++;
    void this.#play(turn)
      .catch((error: unknown) =>
        this.#o.logger.warn(
          { err: error },
          'the demo store could not deliver one of its orders to the bridge; it goes on with the next',
        ),
      )
      .finally(() => {
        // Once the handful's last line is written: what is told then comes below it.
        if (turn + 1 === this.#orders.length) void this.#lines.then(() => this.#o.onHandfulSent?.());
        if (this.#running && turn + 1 >= this.#orders.length + this.#o.trickleOrders)
          this.#o.logger.info(
            { orders: turn + 1 },
            `the demo store has sent its orders (${turn + 1}) and sends no more; its pages stay until a store is connected or the bridge restarts`,
          );
        else if (this.#running)
          this.#timer = this.#o.schedule(
            turn + 1 < this.#orders.length ? this.#o.paceMs : this.#o.trickleMs,
            this.#next,
          );
      });
  };

  /** One order of the rotation: its steps delivered one after the other, as its shop's day would have them, then its line. */
  async #play(turn: number): Promise<void> {
    const { player, order } = this.#orders[turn % this.#orders.length]!;
    await this.#playOrder(player, order);
  }

  /**
   * An order paid now at the demo store page's checkout (demo-storefront.ts): delivered as the shop's others are,
   * through the webhook route, and told in its line. Undefined once the demo stopped; throws when not delivered.
   */
  async checkout(player: DemoPlayer, order: DemoOrder): Promise<SentOrder | undefined> {
    if (!this.#running) return undefined;
    return this.#playOrder(player, order);
  }

  /**
   * A delivery other than an order's (a customer's data request), sent once as the platform sends it: undefined once
   * the bridge took it, else what came instead.
   */
  async deliverOnce(player: DemoPlayer, delivery: { headers: Record<string, string>; body: string }) {
    if (!this.#running) return 'the demo has stopped';
    return this.#send(player.platform, delivery.headers, delivery.body);
  }

  /** The order's steps delivered, then its line: the order as sent, or undefined when the demo stopped meanwhile. */
  async #playOrder(player: DemoPlayer, order: DemoOrder): Promise<SentOrder | undefined> {
    // The rotation's and the checkouts' orders share one count: each has its own id and number.
    const made = this.#made++;
    this.#o.ids?.used(this.#firstId + made + 1);
    const sent: SentOrder = { player, order, id: this.#firstId + made, number: 1001 + made, deliveries: [] };
    this.#sentOrders.push(sent);
    // A day of the trickle is 1,440 orders: the shops remember the newest.
    if (this.#sentOrders.length > KEPT_ORDERS) this.#sentOrders.shift();
    for (const step of order.steps) {
      if (!this.#running) return undefined;
      // Stopped while it waited to send a step again: the order stays unplayed, and untold.
      if (!(await this.#deliver(sent, step))) return undefined;
    }
    this.#played++;
    const line = async () => {
      const outcome = this.#o.outcome ? await this.#o.outcome(sent) : '';
      this.#o.logger.info(`demo: ${player.platformName} order ${orderName(sent)}, ${outcome || order.total}`);
    };
    this.#lines = this.#lines.then(line).catch(() => undefined);
    return sent;
  }

  /** One step delivered, sent again while it does not get through; false once the demo stopped meanwhile. */
  async #deliver(sent: SentOrder, step: unknown): Promise<boolean> {
    const { player, order, id, number } = sent;
    const at = new Date().toISOString();
    const { headers, body } = player.demo.delivery({
      id,
      number,
      order,
      step,
      at,
      secret: player.secret,
      sequence: ++this.#deliveries,
    });
    sent.deliveries.push({ headers, body, at, step });
    for (let attempt = 0; ; attempt++) {
      // The same bytes each time, as a platform sends one again: one that got through unanswered is a duplicate.
      const failed = await this.#send(player.platform, headers, body);
      if (failed === undefined) {
        this.#sent++;
        return true;
      }
      const wait = DEMO_RETRY_MS[attempt];
      if (wait === undefined)
        throw new Error(`order #${number} (${player.platform} order ${id}) was not delivered: ${failed}`);
      this.#o.logger.debug(
        { platform: player.platform, order: number, wait },
        `a demo delivery was not delivered (${failed}); sent again in ${wait} ms`,
      );
      await this.#pause(wait);
      if (!this.#running) return false;
    }
  }

  /** One attempt: undefined once the bridge took it (2xx), else what came instead. */
  async #send(platform: string, headers: Record<string, string>, body: string): Promise<string | undefined> {
    try {
      const response = await fetch(`${this.#o.url}/webhooks/${platform}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
        signal: AbortSignal.timeout(5_000),
      });
      await response.body?.cancel().catch(() => undefined);
      return response.ok ? undefined : `answered ${response.status}`;
    } catch (error) {
      return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    }
  }

  /** Waits `ms` through the schedule, or until the demo stops. */
  #pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      let timer: { cancel(): void } | undefined;
      const pause = {
        cancel: () => {
          timer?.cancel();
          done();
        },
      };
      const done = () => {
        this.#pauses.delete(pause);
        resolve();
      };
      this.#pauses.add(pause);
      timer = this.#o.schedule(ms, done);
    });
  }
}
