// The pieces of the lowdb store that its operations share: the files by
// kind, the group commit they are all written through, and the one queue
// that orders changes touching several files (fold, settle, erase).
import type PQueue from 'p-queue';
import type { ActiveOrders } from './active-orders.ts';
import type { DeadLetterFiles } from './dead-letters.ts';
import type { GroupCommit } from './group-commit.ts';
import type { HashedMap } from './hashed-map.ts';
import type { Inbox } from './inbox.ts';
import type { RecordFiles } from './record-files.ts';
import type { SettledOrders } from './settled-orders.ts';

export interface LowdbParts {
  readonly dir: string;
  readonly readOnly: boolean;
  readonly now: () => Date;
  readonly commit: GroupCommit;
  readonly inbox: Inbox;
  readonly active: ActiveOrders;
  readonly settled: SettledOrders;
  readonly lpOrderIds: HashedMap;
  readonly records: RecordFiles;
  readonly deadLetters: DeadLetterFiles;
  /** Changes that touch several files in an order that matters (fold, settle, erase) run one at a time. */
  readonly serial: PQueue;
  /** Resolves when every change made before the call is durable. */
  flush(): Promise<void>;
  /** Wakes the loops: something became due. */
  notify(): void;
}
