// Control-panel users a BigCommerce store's owner removed (the remove_user callback). A load payload lives
// a day, so once the owner removes a user, neither their session nor a payload made before opens anything;
// a load made after the removal means the owner added them again. Records name the store, so the store's
// erasure takes them.
import { z } from 'zod';
import { recordType } from '../../src/core/store/roles/record-types.ts';
import type { RecordRole } from '../../src/core/store/roles/records.ts';

interface RemovedUser {
  platform: 'bigcommerce';
  shop: string;
  user: string;
  removedAt: string;
}

const KIND = recordType<RemovedUser>(
  'removed-user',
  z.looseObject({ platform: z.literal('bigcommerce'), shop: z.string(), user: z.string(), removedAt: z.string() }),
);

export class RemovedUsers {
  readonly #store: Pick<RecordRole, 'getRecord' | 'putRecord' | 'deleteRecord'>;

  constructor(store: Pick<RecordRole, 'getRecord' | 'putRecord' | 'deleteRecord'>) {
    this.#store = store;
  }

  async remove(shop: string, user: string, at: Date = new Date()): Promise<void> {
    await this.#store.putRecord(KIND, `${shop}:${user}`, {
      platform: 'bigcommerce',
      shop,
      user,
      removedAt: at.toISOString(),
    });
  }

  /** Whether the user was removed at or after `since` (ms): what was made before then opens nothing. */
  async removedSince(shop: string, user: string, since: number): Promise<boolean> {
    const removed = await this.#store.getRecord(KIND, `${shop}:${user}`);
    return removed !== undefined && Date.parse(removed.removedAt) >= since;
  }

  /** A load made after the removal: the owner gave the user access again, and the record goes. */
  async readmitted(shop: string, user: string): Promise<void> {
    await this.#store.deleteRecord(KIND, `${shop}:${user}`);
  }
}
