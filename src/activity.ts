// What went through this bridge, minute by minute, for the dashboard: webhook
// deliveries by platform and result, loyalty calls by outcome, and per
// platform when the last delivery came. Kept in memory for the last hours
// (a restart starts it afresh; the ledger keeps what matters).
export interface MinuteCounts {
  /** The minute, as epoch milliseconds at its start. */
  at: number;
  deliveries: Record<string, number>;
  calls: Record<string, number>;
}

export interface PlatformActivity {
  lastDeliveryAt: string | null;
  deliveriesLastHour: number;
  signatureFailuresLastHour: number;
  /** Authentic deliveries from shops the bridge does not serve (acknowledged, ignored), and those shops. */
  notAllowedLastHour: number;
  notAllowedShops: string[];
}

const MINUTE = 60_000;
/** Refused shops remembered per platform: the shop header is not signed, so the list must not grow with what a sender invents. */
const MAX_REFUSED_SHOPS = 20;

export class Activity {
  readonly #minutes: MinuteCounts[] = [];
  readonly #lastDeliveryAt = new Map<string, number>();
  /** Per platform, each refused shop and when its deliveries were refused (last hour). */
  readonly #refused = new Map<string, Map<string, number[]>>();
  readonly #keepMinutes: number;
  readonly #now: () => number;

  constructor({ keepHours = 6, now = Date.now }: { keepHours?: number; now?: () => number } = {}) {
    this.#keepMinutes = keepHours * 60;
    this.#now = now;
  }

  #bucket(): MinuteCounts {
    const at = Math.floor(this.#now() / MINUTE) * MINUTE;
    const last = this.#minutes.at(-1);
    if (last?.at === at) return last;
    const bucket: MinuteCounts = { at, deliveries: {}, calls: {} };
    this.#minutes.push(bucket);
    while (this.#minutes.length > 0 && (this.#minutes[0]?.at ?? at) <= at - this.#keepMinutes * MINUTE)
      this.#minutes.shift();
    return bucket;
  }

  /** A webhook answered: result is accepted, duplicate, ignored or rejected_<status>. */
  recordDelivery(platform: string, result: string): void {
    const bucket = this.#bucket();
    const key = `${platform}:${result}`;
    bucket.deliveries[key] = (bucket.deliveries[key] ?? 0) + 1;
    if (!result.startsWith('rejected')) this.#lastDeliveryAt.set(platform, this.#now());
  }

  /** A delivery from a shop the bridge does not serve was acknowledged and ignored. */
  recordRefusedShop(platform: string, shop: string): void {
    let shops = this.#refused.get(platform);
    if (!shops) this.#refused.set(platform, (shops = new Map()));
    const since = this.#now() - 60 * MINUTE;
    const times = (shops.get(shop) ?? []).filter((at) => at >= since);
    times.push(this.#now());
    // Most recent last: the oldest goes when the list is full.
    shops.delete(shop);
    shops.set(shop, times);
    for (const oldest of shops.keys()) {
      if (shops.size <= MAX_REFUSED_SHOPS) break;
      shops.delete(oldest);
    }
  }

  /** A loyalty call attempt finished: outcome is success or an error kind. */
  recordCall(outcome: string): void {
    const bucket = this.#bucket();
    bucket.calls[outcome] = (bucket.calls[outcome] ?? 0) + 1;
  }

  /** Minute by minute over the last `minutes`, oldest first, with empty minutes filled in. */
  series(minutes = 180): MinuteCounts[] {
    const end = Math.floor(this.#now() / MINUTE) * MINUTE;
    const byMinute = new Map(this.#minutes.map((bucket) => [bucket.at, bucket]));
    return Array.from({ length: minutes }, (_, i) => {
      const at = end - (minutes - 1 - i) * MINUTE;
      return byMinute.get(at) ?? { at, deliveries: {}, calls: {} };
    });
  }

  platform(platform: string): PlatformActivity {
    let deliveries = 0;
    let signatureFailures = 0;
    const since = this.#now() - 60 * MINUTE;
    for (const bucket of this.#minutes) {
      if (bucket.at < since) continue;
      for (const [key, count] of Object.entries(bucket.deliveries)) {
        const [name, result] = key.split(':');
        if (name !== platform) continue;
        if (result === 'rejected_401') signatureFailures += count;
        else if (!result?.startsWith('rejected')) deliveries += count;
      }
    }
    const last = this.#lastDeliveryAt.get(platform);
    const refused = [...(this.#refused.get(platform) ?? [])]
      .map(([shop, times]) => [shop, times.filter((at) => at >= since).length] as const)
      .filter(([, count]) => count > 0);
    return {
      lastDeliveryAt: last === undefined ? null : new Date(last).toISOString(),
      deliveriesLastHour: deliveries,
      signatureFailuresLastHour: signatureFailures,
      notAllowedLastHour: refused.reduce((sum, [, count]) => sum + count, 0),
      notAllowedShops: refused.map(([shop]) => shop).sort(),
    };
  }
}
