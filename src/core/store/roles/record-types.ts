// A record kind with its schema: a read of it is parsed, so a record of the wrong shape stops at the read that
// finds it, with its kind and id named, instead of travelling on until something breaks far away. Shared by both
// backends, above their seam: each hands back what it keeps, and this says what that is.
import type { z } from 'zod';
import { BridgeError } from '../../../errors.ts';
import type { KindOrType, RecordKind, RecordType } from './records.ts';

export type { KindOrType, RecordType } from './records.ts';

/**
 * Names a kind's schema. Schemas keep fields they do not know (z.looseObject): a record written by a later release
 * is read, changed and written back by this one without losing them.
 */
export const recordType = <T>(kind: RecordKind, schema: z.ZodType<T>): RecordType<T> => ({ kind, schema });

/** A record that is not as its kind's schema says. Names the kind, the id and the fields, never their values. */
export class RecordShapeError extends BridgeError<'record_shape'> {
  readonly kind: RecordKind;
  readonly id: string;
  constructor(kind: RecordKind, id: string, issues: string) {
    super('record_shape', `The ledger's ${kind} record ${id} is not as this release keeps it: ${issues}.`, {
      fix: 'If a newer release wrote it, run that release again; otherwise restore the ledger from a backup.',
    });
    this.kind = kind;
    this.id = id;
  }
}

/** The value as its kind's type, or undefined when there is none. */
export function parseRecord<T>(type: RecordType<T>, id: string, value: unknown): T | undefined {
  if (value === undefined) return undefined;
  const parsed = type.schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join('.') || 'the record'}: ${issue.message}`)
    .join('; ');
  throw new RecordShapeError(type.kind, id, issues);
}

export const kindOf = <T>(kind: KindOrType<T>): RecordKind => (typeof kind === 'string' ? kind : kind.kind);

/** What a backend read, as the kind's type: parsed when the kind has a schema. */
export function asRecord<T>(kind: KindOrType<T>, id: string, value: unknown): T | undefined {
  // Without a schema the caller names the type itself; these reads go as their kinds get schemas.
  return typeof kind === 'string' ? (value as T | undefined) : parseRecord(kind, id, value);
}
