// A record kind as a test reads or writes it: by its name alone, whatever it holds. The bridge reads every kind by
// its schema (record-types.ts); a test looks under it, at what a backend keeps or at what an older release wrote.
import { z } from 'zod';
import type { RecordKind } from '../../src/core/store/ledger-store.ts';
import { recordType, type RecordType } from '../../src/core/store/roles/record-types.ts';

export const raw = <T = any>(kind: RecordKind, under = ''): RecordType<NoInfer<T>> =>
  recordType<T>(kind, z.custom<T>(), under);
