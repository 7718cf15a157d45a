// A record kind with its schema: a read of it is parsed, so a record of the wrong shape stops at the read that
// finds it, with its kind and id named, instead of travelling on until something breaks far away. Shared by both
// backends, above their seam: each hands back what it keeps, and this says what that is.
import type { z } from 'zod';
import { BridgeError } from '../../../errors.ts';
import type { RecordChange, RecordKind, RecordRole, RecordType } from './records.ts';

export type { RecordType } from './records.ts';

/**
 * Names a kind's schema. Schemas keep fields they do not know (z.looseObject): a record written by a later release
 * is read, changed and written back by this one without losing them.
 */
export const recordType = <T>(kind: RecordKind, schema: z.ZodType<T>, under = ''): RecordType<T> => ({
  kind,
  schema,
  under,
});

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

/** What a backend keeps: values by kind and id, as they are, for the typed role above it to parse. */
export interface RawRecords {
  get(kind: RecordKind, id: string): Promise<unknown>;
  put(kind: RecordKind, id: string, value: unknown): Promise<void>;
  add(kind: RecordKind, id: string, value: unknown): Promise<{ added: boolean; value: unknown }>;
  change(
    kind: RecordKind,
    id: string,
    change: (current: unknown) => RecordChange<unknown>,
  ): Promise<{ changed: boolean; value: unknown }>;
  delete(kind: RecordKind, id: string): Promise<void>;
  /** The records of a kind whose ids start with `under`. */
  list(kind: RecordKind, under: string): Promise<Array<{ id: string; value: unknown }>>;
}

/** An id outside the ids its type names: a mistake of the bridge's, found before anything is read or written. */
function within<T>(type: RecordType<T>, id: string): string {
  if (!id.startsWith(type.under)) throw new Error(`a ${type.kind} record's id must start with "${type.under}"`);
  return id;
}

/** A value about to be written, checked by its kind's schema: a wrong shape is refused before it is kept. */
function written<T>(type: RecordType<T>, id: string, value: T): T {
  parseRecord(type, id, value);
  return value;
}

/**
 * The record role, the same over both backends: each keeps values, and this checks what is written and parses what
 * they hand back.
 */
export function typedRecords(raw: RawRecords): RecordRole {
  return {
    getRecord: async (type, id) => parseRecord(type, id, await raw.get(type.kind, within(type, id))),
    putRecord: async (type, id, value) => raw.put(type.kind, within(type, id), written(type, id, value)),
    addRecord: async (type, id, value) => {
      const result = await raw.add(type.kind, within(type, id), written(type, id, value));
      return { added: result.added, value: result.added ? value : parseRecord(type, id, result.value)! };
    },
    changeRecord: async (type, id, change) => {
      const result = await raw.change(type.kind, within(type, id), (current) => {
        const decided = change(parseRecord(type, id, current));
        return decided && 'put' in decided ? { put: written(type, id, decided.put) } : decided;
      });
      return { changed: result.changed, value: parseRecord(type, id, result.value) };
    },
    deleteRecord: (type, id) => raw.delete(type.kind, within(type, id)),
    listRecords: async (type) =>
      (await raw.list(type.kind, type.under)).map(({ id, value }) => ({ id, value: parseRecord(type, id, value)! })),
  };
}

/**
 * The record role of a backend, written once: a backend extends this and says how it keeps raw values. Methods on
 * the prototype, so that a test may wrap one (a kill after a write) as it wraps any other of the store's.
 */
export abstract class TypedRecordStore implements RecordRole {
  #typed: RecordRole | undefined;

  /** The backend's raw values by kind and id; asked once, at the first use of a record. */
  protected abstract rawRecords(): RawRecords;

  get #records(): RecordRole {
    return (this.#typed ??= typedRecords(this.rawRecords()));
  }

  getRecord<T>(type: RecordType<T>, id: string): Promise<T | undefined> {
    return this.#records.getRecord(type, id);
  }
  putRecord<T>(type: RecordType<T>, id: string, value: T): Promise<void> {
    return this.#records.putRecord(type, id, value);
  }
  addRecord<T>(type: RecordType<T>, id: string, value: T): Promise<{ added: boolean; value: T }> {
    return this.#records.addRecord(type, id, value);
  }
  changeRecord<T>(
    type: RecordType<T>,
    id: string,
    change: (current: T | undefined) => RecordChange<T>,
  ): Promise<{ changed: boolean; value: T | undefined }> {
    return this.#records.changeRecord(type, id, change);
  }
  deleteRecord<T>(type: RecordType<T>, id: string): Promise<void> {
    return this.#records.deleteRecord(type, id);
  }
  listRecords<T>(type: RecordType<T>): Promise<Array<{ id: string; value: T }>> {
    return this.#records.listRecords(type);
  }
}
