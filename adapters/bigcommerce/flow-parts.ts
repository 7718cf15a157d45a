// What the single-click app's callbacks (install.ts, app-routes.ts) are built from.
import { plainPageAnswer } from '../../src/core/platform-answers.ts';
import type { OperatorQueries, RecordRole } from '../../src/core/store/ledger-store.ts';
import type { Logger } from '../../src/logger.ts';
import type { AllowedStores } from './allowed-shops.ts';
import type { RemovedUsers } from './removed-users.ts';
import type { BigCommerceStores } from './stores.ts';

export interface BigCommerceAppParts {
  store: Pick<OperatorQueries, 'listOrders'> & RecordRole;
  stores: BigCommerceStores;
  allowed: AllowedStores;
  removedUsers: RemovedUsers;
  clientId: string;
  clientSecret: string;
  loginUrl: string;
  /** PUBLIC_URL, without a trailing slash. */
  base: string;
  logger: Logger;
  /** After the answer: the store's hooks made and its recent orders read. */
  storeConnected(storeHash: string): void;
}

/** A page of words, framed by the control panel (the module's door) where it opens. */
export const page = (status: number, title: string, ...paragraphs: string[]): Response =>
  plainPageAnswer(status, { title, paragraphs, link: null, form: null }, { frameAncestors: null });
