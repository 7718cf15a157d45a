// The storefront's widget on platforms where the bridge puts it on the store itself (capabilities/widget.ts: a
// script it registers): put on when the merchant turns the storefront on, taken off when they turn it off, and
// checked now and then while it is on. A widget someone removed (a person in the platform's admin) is put back,
// and the merchant's page says so, with how to take it off for good. What the last attempt came to is kept per
// shop (a record naming the platform and shop, so the shop's erasure takes it): the page reads it, and a put that
// failed (the platform down, a scope missing) is tried again at the next check.
import type { Logger } from '../../logger.ts';
import type { StoreWidget } from '../capabilities/widget.ts';
import type { RecordRole, LedgerLifecycle } from '../store/ledger-store.ts';
import { STOREFRONT_KIND, type StorefrontSetting } from './storefront-switch.ts';
import { z } from 'zod';
import { recordType } from '../store/roles/record-types.ts';

export interface WidgetState {
  platform: string;
  shop: string;
  /** Whether the widget was on the store at the last put or check. */
  onStore: boolean;
  checkedAt: string;
  /** When the bridge last put back a widget someone had removed while the storefront was on. */
  putBackAt?: string | undefined;
  /** Why the last put or check failed, in the merchant's words (no key, no address). */
  problem?: string | undefined;
}

export const WIDGET_KIND = recordType<WidgetState>(
  'storefront-widget',
  z.looseObject({
    platform: z.string(),
    shop: z.string(),
    onStore: z.boolean(),
    checkedAt: z.string(),
    putBackAt: z.string().optional(),
    problem: z.string().optional(),
  }),
);

/** What the merchant's page shows of the widget: the state, without the platform and shop it already knows. */
export type WidgetView = Omit<WidgetState, 'platform' | 'shop'>;

export interface WidgetKeeperOptions {
  store: Pick<RecordRole & LedgerLifecycle, 'getRecord' | 'putRecord' | 'deleteRecord' | 'listRecords' | 'exclusive'>;
  widgetOf: (platform: string) => StoreWidget | undefined;
  /** The bridge's address of the platform's widget script for a shop, as the platform loads it. */
  scriptUrl: (platform: string, shop: string) => string | undefined;
  logger: Logger;
  now?: () => Date;
}

const idOf = (platform: string, shop: string) => `${platform}:${shop}`;

/** A failure in the merchant's words: the platform's own message names no secret, but its status says enough. */
const PUT_FAILED =
  'The points launcher could not be added to your store just now. The bridge tries again every few minutes; if this stays, open the app again from your store’s admin and approve what it asks for.';

export class WidgetKeeper {
  readonly #o: WidgetKeeperOptions;

  constructor(options: WidgetKeeperOptions) {
    this.#o = options;
  }

  #now(): Date {
    return this.#o.now?.() ?? new Date();
  }

  /** Whether the platform has a widget the bridge puts on the store. */
  offered(platform: string): boolean {
    return this.#o.widgetOf(platform) !== undefined;
  }

  async view(platform: string, shop: string): Promise<WidgetView | undefined> {
    if (!this.offered(platform)) return undefined;
    const state = await this.#o.store.getRecord(WIDGET_KIND, idOf(platform, shop));
    if (!state) return undefined;
    const { platform: _platform, shop: _shop, ...view } = state;
    return view;
  }

  /** The merchant turned the storefront on: the widget goes on the store now (a failure is kept, and tried again). */
  async turnedOn(platform: string, shop: string): Promise<WidgetView | undefined> {
    if (!this.offered(platform)) return undefined;
    // A new start: what an earlier time on said (a widget put back then) is not this one's.
    await this.#o.store.deleteRecord(WIDGET_KIND, idOf(platform, shop));
    await this.#put(platform, shop, undefined);
    return this.view(platform, shop);
  }

  /** The merchant turned the storefront off: the widget comes off the store, while the bridge still has access. */
  async turnedOff(platform: string, shop: string): Promise<void> {
    const widget = this.#o.widgetOf(platform);
    if (!widget) return;
    await this.#o.store.deleteRecord(WIDGET_KIND, idOf(platform, shop));
    await widget.remove(shop).catch((error: unknown) =>
      // Left on the store, it shows nothing: the storefront's routes answer 404 once it is off.
      this.#o.logger.warn(
        { platform, shop, kind: (error as Error)?.name },
        'the storefront widget could not be removed from the store; it shows nothing while the storefront is off',
      ),
    );
  }

  /**
   * Every shop whose storefront is on, on a platform with a widget: the widget is checked, and put back where it
   * is missing. On one instance at a time (LedgerLifecycle.exclusive). What it did, per shop.
   */
  async check(): Promise<Array<{ platform: string; shop: string; outcome: 'present' | 'put-back' | 'failed' }>> {
    const ran = await this.#o.store.exclusive('storefront-widget-check', async () => {
      const done: Array<{ platform: string; shop: string; outcome: 'present' | 'put-back' | 'failed' }> = [];
      for (const { value } of await this.#o.store.listRecords(STOREFRONT_KIND)) {
        if (!value.on || !this.offered(value.platform)) continue;
        done.push({ platform: value.platform, shop: value.shop, outcome: await this.#checkOne(value) });
      }
      return done;
    });
    return ran.ran ? ran.value : [];
  }

  async #checkOne({ platform, shop }: StorefrontSetting): Promise<'present' | 'put-back' | 'failed'> {
    const widget = this.#o.widgetOf(platform)!;
    const before = await this.#o.store.getRecord(WIDGET_KIND, idOf(platform, shop));
    let present: boolean;
    try {
      present = await widget.present(shop);
    } catch (error) {
      await this.#keep(platform, shop, { onStore: before?.onStore ?? false, problem: PUT_FAILED }, before, error);
      return 'failed';
    }
    if (present) {
      await this.#keep(platform, shop, { onStore: true }, before);
      return 'present';
    }
    // Missing while on: removed by someone, or never put (a put that failed). Only the first is "put back".
    const removed = before?.onStore === true;
    return (await this.#put(platform, shop, removed ? this.#now().toISOString() : undefined)) ? 'put-back' : 'failed';
  }

  async #put(platform: string, shop: string, putBackAt: string | undefined): Promise<boolean> {
    const widget = this.#o.widgetOf(platform);
    const url = this.#o.scriptUrl(platform, shop);
    if (!widget || !url) return false;
    const before = await this.#o.store.getRecord(WIDGET_KIND, idOf(platform, shop));
    try {
      await widget.put(shop, url);
    } catch (error) {
      await this.#keep(platform, shop, { onStore: false, problem: PUT_FAILED }, before, error);
      return false;
    }
    // Turned off while the put was on its way (another instance's switch, whose removal may have come first): taken
    // off again, or it would stay on a store whose storefront is off, where no check looks any more.
    if (!(await this.#stillOn(platform, shop))) {
      await widget.remove(shop).catch(() => undefined);
      return false;
    }
    await this.#keep(platform, shop, { onStore: true, ...(putBackAt ? { putBackAt } : {}) }, before);
    if (putBackAt)
      this.#o.logger.info({ platform, shop }, 'the storefront widget was missing from the store and was put back');
    return true;
  }

  async #stillOn(platform: string, shop: string): Promise<boolean> {
    return (await this.#o.store.getRecord(STOREFRONT_KIND, idOf(platform, shop)))?.on === true;
  }

  async #keep(
    platform: string,
    shop: string,
    now: Pick<WidgetState, 'onStore' | 'putBackAt' | 'problem'>,
    before: WidgetState | undefined,
    error?: unknown,
  ): Promise<void> {
    if (error !== undefined)
      this.#o.logger.warn(
        { platform, shop, kind: (error as Error)?.name, status: (error as { status?: number })?.status },
        'the storefront widget could not be put on or checked on the store; tried again at the next check',
      );
    // The storefront may have been turned off (and the record removed) while the platform answered.
    if (!(await this.#stillOn(platform, shop))) return;
    const putBackAt = now.putBackAt ?? before?.putBackAt;
    await this.#o.store.putRecord(WIDGET_KIND, idOf(platform, shop), {
      platform,
      shop,
      onStore: now.onStore,
      checkedAt: this.#now().toISOString(),
      ...(putBackAt ? { putBackAt } : {}),
      ...(now.problem ? { problem: now.problem } : {}),
    });
  }
}
