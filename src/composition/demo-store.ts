// The demo store: on a first run (sandbox mode, no platform configured) it plays a shop of each platform whose
// module has a demo (PlatformModule.demo), sending signed deliveries through the bridge's real webhook routes
// (orders paid, fulfilled, refunded, cancelled, referred, a test order, one without a phone), so that within a
// minute the dashboard shows earnings. It never runs against a real loyalty service or beside a real store.
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
  demo: PlatformDemo;
  secret: string;
}

export interface DemoStoreOptions {
  /** The bridge's own address. */
  url: string;
  players: readonly DemoPlayer[];
  logger: Logger;
  /** Between two deliveries. */
  paceMs?: number;
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
  readonly #o: Required<DemoStoreOptions>;
  readonly #orders: Array<{ player: DemoPlayer; order: DemoOrder }>;
  #timer: NodeJS.Timeout | undefined;
  #queue: Array<() => Promise<void>> = [];
  #round = 0;
  #sent = 0;
  /** New for each delivery, and above any of an earlier run's. */
  #deliveries = Math.floor(Date.now() / 1000);

  constructor(options: DemoStoreOptions) {
    this.#o = { paceMs: 2_500, ...options };
    this.#orders = inTurn(options.players);
  }

  get sent(): number {
    return this.#sent;
  }

  start(): void {
    this.#tick();
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#queue = [];
  }

  #tick = (): void => {
    if (this.#queue.length === 0) this.#queue = this.#nextRound();
    const send = this.#queue.shift();
    void send?.().catch((error: unknown) => this.#o.logger.debug({ err: error }, 'the demo store could not deliver'));
    this.#timer = setTimeout(this.#tick, this.#o.paceMs);
    this.#timer.unref();
  };

  /** The orders of a round, their steps interleaved as a shop's day would have them. */
  #nextRound(): Array<() => Promise<void>> {
    const round = this.#round++;
    const orders = this.#orders.map((each, i) => ({ ...each, id: 9_000_000 + round * 100 + i }));
    const sends: Array<() => Promise<void>> = [];
    const longest = Math.max(0, ...orders.map(({ order }) => order.steps.length));
    for (let stepIndex = 0; stepIndex < longest; stepIndex++) {
      for (const { player, order, id } of orders) {
        const step = order.steps[stepIndex];
        if (step !== undefined) sends.push(() => this.#deliver(player, id, order, step));
      }
    }
    return sends;
  }

  async #deliver(player: DemoPlayer, id: number, order: DemoOrder, step: unknown): Promise<void> {
    const at = new Date().toISOString();
    const { headers, body } = player.demo.delivery({
      id,
      order,
      step,
      at,
      secret: player.secret,
      sequence: ++this.#deliveries,
    });
    const response = await fetch(`${this.#o.url}/webhooks/${player.platform}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
      signal: AbortSignal.timeout(5_000),
    });
    if (response.ok) this.#sent++;
  }
}
