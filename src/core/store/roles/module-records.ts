// The record role a platform's module receives: its own kinds, whatever their ids, and the bridge's shared kinds
// (a platform's access, allowed shops, migrations...) only under ids that start with its name. One module cannot
// read, list, change or erase another's records, nor the core's; a mistake says which kind and why.
import type { RecordKind, RecordRole, RecordType } from './records.ts';

export interface ModuleRecordScope {
  /** The module's name: the start of the ids it keeps under shared kinds ("<name>:…" or "<name>-…"). */
  name: string;
  /** Its own kinds (PlatformRecordKinds), any id. */
  own: readonly string[];
  /** The bridge's kinds it keeps records of, under its name. */
  shared: readonly RecordKind[];
}

/** A module reached for what is not its own: another platform's records or orders, or the core's. */
export class OutsideModuleError extends Error {
  constructor(module: string, what: string) {
    super(`the ${module} module may not reach ${what}`);
  }
}

/** Whether an id (of a record under a shared kind, of a lock) is the module's: "<name>:…" or "<name>-…". */
export const isModulesId = (name: string, id: string): boolean =>
  id.startsWith(`${name}:`) || id.startsWith(`${name}-`);

/** The records role limited to the scope's kinds, over the whole one. */
export function moduleRecords(records: RecordRole, scope: ModuleRecordScope): RecordRole {
  const mine = (id: string) => isModulesId(scope.name, id);
  const check = <T>(type: RecordType<T>, id: string | undefined): RecordType<T> => {
    if (scope.own.includes(type.kind)) return type;
    if (!scope.shared.includes(type.kind)) throw new OutsideModuleError(scope.name, `${type.kind} records`);
    if (!mine(id ?? type.under)) throw new OutsideModuleError(scope.name, `${type.kind} records outside its own ids`);
    return type;
  };
  // Async, so that a refusal is a rejected promise like any failed read, never a throw at the call.
  return {
    getRecord: async (type, id) => records.getRecord(check(type, id), id),
    putRecord: async (type, id, value) => records.putRecord(check(type, id), id, value),
    addRecord: async (type, id, value) => records.addRecord(check(type, id), id, value),
    changeRecord: async (type, id, change) => records.changeRecord(check(type, id), id, change),
    deleteRecord: async (type, id) => records.deleteRecord(check(type, id), id),
    listRecords: async (type) => records.listRecords(check(type, undefined)),
  };
}
