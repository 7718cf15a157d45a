// Small collections as lowdb files (records/<kind>.json), each rewritten whole through the group commit:
// sessions, settings, jobs and requests, never one entry per order (dead letters have files of their own).
// Memory holds each record as it is kept, secrets sealed (record-secrets.ts): opened as it is read, sealed
// as it is written.
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { RecordChange, RecordKind, SecretCounts } from '../ledger-store.ts';
import { type RecordSecrets, type ResealReport } from '../record-secrets.ts';
import { loadDurable, openDurable, type DurableLow } from './durable-file.ts';
import type { GroupCommit } from './group-commit.ts';
import { upgradeRecord } from '../format/upgrade-records.ts';
import { isPlainRecord } from '../../../plain-record.ts';

interface RecordFile {
  records: Record<string, unknown>;
}

const isObject = isPlainRecord;

export class RecordFiles {
  readonly #dataDir: string;
  readonly #commit: GroupCommit;
  readonly #backupOf: (path: string) => string | undefined;
  readonly #secrets: RecordSecrets;
  readonly #files = new Map<RecordKind, DurableLow<RecordFile>>();

  constructor(
    dataDir: string,
    commit: GroupCommit,
    backupOf: (path: string) => string | undefined,
    secrets: RecordSecrets,
  ) {
    this.#dataDir = dataDir;
    this.#commit = commit;
    this.#backupOf = backupOf;
    this.#secrets = secrets;
  }

  async open(readOnly: boolean): Promise<void> {
    if (!readOnly) await mkdir(join(this.#dataDir, 'records'), { recursive: true, mode: 0o700 });
    const names = existsSync(join(this.#dataDir, 'records'))
      ? await this.#commit.io.readdir(join(this.#dataDir, 'records'))
      : [];
    for (const name of names.filter((file) => /^[a-z-]+\.json$/.test(file))) {
      const file = openDurable<RecordFile>(this.#commit.io, join(this.#dataDir, 'records', name), { records: {} }, [
        'records',
      ]);
      await loadDurable(file, (data) => isObject(data.records), this.#backupOf);
      const kind = name.slice(0, -'.json'.length) as RecordKind;
      for (const [id, value] of Object.entries(file.data.records)) file.data.records[id] = upgradeRecord(kind, value);
      this.#files.set(kind, file);
    }
  }

  #file(kind: RecordKind): DurableLow<RecordFile> {
    let file = this.#files.get(kind);
    if (!file) {
      file = openDurable<RecordFile>(this.#commit.io, join(this.#dataDir, 'records', `${kind}.json`), { records: {} }, [
        'records',
      ]);
      this.#files.set(kind, file);
    }
    return file;
  }

  get<T>(kind: RecordKind, id: string): T | undefined {
    const kept = this.#file(kind).data.records[id];
    return kept === undefined ? undefined : this.#secrets.open(kind, id, structuredClone(kept) as T);
  }

  list<T>(kind: RecordKind): Array<{ id: string; value: T }> {
    return Object.entries(this.#file(kind).data.records).map(([id, value]) => ({
      id,
      value: this.#secrets.open(kind, id, structuredClone(value) as T),
    }));
  }

  /**
   * Durable with the next flush. `copied`: the value comes from another
   * ledger (a migration), so its secrets are not new ones, and are kept plain
   * where no key is set.
   */
  put(kind: RecordKind, id: string, value: unknown, { copied = false }: { copied?: boolean } = {}): void {
    const file = this.#file(kind);
    const stored = copied ? value : file.data.records[id];
    file.data.records[id] = this.#secrets.seal(kind, id, structuredClone(value), stored);
    this.#commit.markDirty(file as DurableLow<unknown>);
  }

  delete(kind: RecordKind, id: string): void {
    const file = this.#file(kind);
    if (!(id in file.data.records)) return;
    delete file.data.records[id];
    this.#commit.markDirty(file as DurableLow<unknown>);
  }

  /**
   * A compare-and-set: read, decide and write with no turn of the event loop
   * between them, and one process holds the data directory, so nothing else
   * writes the record meanwhile. Durable with the next flush.
   */
  change<T>(
    kind: RecordKind,
    id: string,
    change: (current: T | undefined) => RecordChange<T>,
  ): { changed: boolean; value: T | undefined } {
    const current = this.get<T>(kind, id);
    const decided = change(current);
    if (decided === undefined) return { changed: false, value: current };
    if ('delete' in decided) {
      if (current === undefined) return { changed: false, value: undefined };
      this.delete(kind, id);
      return { changed: true, value: undefined };
    }
    this.put(kind, id, decided.put);
    return { changed: true, value: structuredClone(decided.put) };
  }

  kinds(): RecordKind[] {
    return [...this.#files.keys()];
  }

  /**
   * Seals the plain secrets of the kinds that hold them, and re-seals those
   * under the previous key (record-secrets.ts). Durable with the next flush;
   * returns the files changed, whose backups must follow.
   */
  reseal(): ResealReport & { files: string[] } {
    const report = { sealed: 0, resealed: 0, files: [] as string[] };
    for (const kind of this.#secrets.kinds) {
      const file = this.#files.get(kind);
      if (!file) continue;
      let changed = false;
      for (const [id, kept] of Object.entries(file.data.records)) {
        const resealed = this.#secrets.reseal(kind, id, kept);
        if (!resealed) continue;
        file.data.records[id] = resealed.value;
        report.sealed += resealed.sealed;
        report.resealed += resealed.resealed;
        changed = true;
      }
      if (!changed) continue;
      this.#commit.markDirty(file as DurableLow<unknown>);
      report.files.push(join('records', `${kind}.json`));
    }
    return report;
  }

  countSecrets(counts: SecretCounts): SecretCounts {
    for (const kind of this.#secrets.kinds)
      for (const kept of Object.values(this.#files.get(kind)?.data.records ?? {}))
        this.#secrets.count(kind, kept, counts);
    return counts;
  }

  /**
   * Ledgers written before records existed kept shops.json,
   * reconciliation.json and adjustments.json: moved into records once.
   */
  async upgradeOldFiles(): Promise<string[]> {
    const moved: string[] = [];
    const old = async <T>(name: string, isValid: (data: T) => boolean, each: (data: T) => void) => {
      const path = join(this.#dataDir, name);
      if (!existsSync(path)) return;
      const file = openDurable<T>(this.#commit.io, path, {} as T);
      await loadDurable(file, isValid, this.#backupOf);
      each(file.data);
      moved.push(name);
    };
    await old<{ shops: Record<string, { uninstalledAt: string | null }> }>(
      'shops.json',
      (data) => isObject(data.shops),
      (data) => {
        for (const [id, state] of Object.entries(data.shops)) {
          const [platform = '', ...shop] = id.split(':');
          this.put('shop', id, { platform, shop: shop.join(':'), uninstalledAt: state.uninstalledAt });
        }
      },
    );
    await old<{ platforms: Record<string, unknown> }>(
      'reconciliation.json',
      (data) => isObject(data.platforms),
      (data) => {
        for (const [platform, state] of Object.entries(data.platforms)) this.put('reconciliation', platform, state);
      },
    );
    await old<{ adjustments: Array<{ id: string }> }>(
      'adjustments.json',
      (data) => Array.isArray(data.adjustments),
      (data) => {
        for (const adjustment of data.adjustments) this.put('adjustment', adjustment.id, adjustment);
      },
    );
    if (moved.length > 0) {
      await this.#commit.flush();
      for (const name of moved) await this.#commit.io.remove(join(this.#dataDir, name));
    }
    return moved;
  }
}
