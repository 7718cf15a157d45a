// A journal for files lowdb would otherwise rewrite whole on every change: the active orders' partitions and
// the lp_orderid registry's buckets. A worker changes an order two or three times per call, and rewriting
// its 100-order partition each time made those writes the drain's limit. Each group commit appends one batch
// closed by a line with its count ({"c":n}), with one fdatasync; a batch without that line was cut by a
// crash before it was acknowledged, and is ignored. Replaying over a base that holds some of it is safe.
import { dirname } from 'node:path';
import { LedgerDamagedError } from '../ledger-store.ts';
import { replaceFile, unreadable } from './durable-file.ts';
import type { CommitFile, GroupCommit } from './group-commit.ts';
import type { AppendFile } from './ledger-io.ts';

export const JOURNAL_FILE = 'journal.jsonl';

export type JournalEntry<V> = { key: string; value: V } | { key: string; gone: true };

/** A batch's text: each key's value now (`current`), or that it is gone, then the closing line. */
export function encodeBatch<V>(keys: Iterable<string>, current: (key: string) => V | undefined): string {
  let text = '';
  let count = 0;
  for (const key of keys) {
    const value = current(key);
    text += value === undefined ? `${JSON.stringify({ d: key })}\n` : `${JSON.stringify({ k: key, v: value })}\n`;
    count++;
  }
  return count === 0 ? '' : `${text}{"c":${count}}\n`;
}

export class JournalDamage extends Error {}

/**
 * The entries of every whole batch, in order. The cut-short last batch of a
 * crash is left out; a line that does not read followed by a later whole
 * batch throws JournalDamage.
 */
export function readBatches<V>(text: string): Array<JournalEntry<V>> {
  const entries: Array<JournalEntry<V>> = [];
  let batch: Array<JournalEntry<V>> = [];
  const lines = text.split('\n');
  // What follows the last newline is a line the crash cut short.
  lines.pop();
  for (const [index, line] of lines.entries()) {
    const entry = parseLine<V>(line);
    if (entry === undefined) {
      if (lines.slice(index + 1).some((later) => closes(parseLine(later))))
        throw new JournalDamage(`line ${index + 1} is not one loyalty-bridge writes, and whole batches follow it`);
      return entries;
    }
    if ('close' in entry) {
      if (entry.close !== batch.length) throw new JournalDamage(`the batch closed at line ${index + 1} is not whole`);
      entries.push(...batch);
      batch = [];
    } else {
      batch.push(entry);
    }
  }
  return entries;
}

const closes = (entry: unknown) => typeof entry === 'object' && entry !== null && 'close' in entry;

function parseLine<V>(line: string): JournalEntry<V> | { close: number } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { k, v, d, c } = value as { k?: unknown; v?: unknown; d?: unknown; c?: unknown };
  if (typeof k === 'string' && v !== undefined) return { key: k, value: v as V };
  if (typeof d === 'string') return { key: d, gone: true };
  if (typeof c === 'number' && Number.isInteger(c) && c > 0) return { close: c };
  return undefined;
}

export interface ChangeJournalOptions<V> {
  /** The journal file; its directory is the base's, synced before the journal is emptied. */
  path: string;
  /** Characters from which the next round writes the base and empties the journal. */
  limit: number;
  /** A key's value now, or undefined when it is gone: what the next batch records. */
  current(key: string): V | undefined;
  /**
   * Writes every base file changed since the base was last written (restoring what it took on failure), and
   * returns how to mark them changed again should what follows fail (their renames not synced).
   */
  writeBase(sync: boolean): Promise<() => void>;
  /** After the journal was emptied: what the base no longer needs (emptied partitions) may go. */
  afterCompaction?(): Promise<void>;
}

/** The journal as the group commit writes it: a batch per round, or the base and an empty journal. */
export class ChangeJournal<V> implements CommitFile {
  readonly path: string;
  /** An append changes no directory: only a journal made new (the first, or an emptied one) needs its directory synced. */
  readonly syncsOwnDirectory = true;
  /** The journal file is known to be in its directory durably. */
  #inDirectory = false;
  readonly #commit: GroupCommit;
  readonly #o: ChangeJournalOptions<V>;
  /** Keys changed since the last batch. */
  #unjournaled = new Set<string>();
  /** Keys of the round under way, not durable until it ends. */
  #writing = new Set<string>();
  #size = 0;
  /** The next round writes the base and empties the journal (it grew, an append failed, or someone asked). */
  #compactDue = false;
  /**
   * The journal file, held open between rounds (opening and closing it each round was 7% of a drain). Only a
   * round uses it, one at a time; it is closed before the journal is replaced by an empty one, and after an
   * append fails (the round after begins the journal afresh).
   */
  #file: AppendFile | undefined;

  constructor(commit: GroupCommit, options: ChangeJournalOptions<V>) {
    this.#commit = commit;
    this.#o = options;
    this.path = options.path;
  }

  /** Nothing to mark: what a round writes is taken from `current` when it runs. */
  changed(): void {}

  /** The key changed: the next round records it. */
  note(key: string): void {
    this.#unjournaled.add(key);
    this.#commit.markDirty(this);
  }

  /** The next round writes the base and empties the journal. */
  compactSoon(): void {
    this.#compactDue = true;
    this.#commit.markDirty(this);
  }

  /** Whether a change to the key may not be durable yet (not written, or its round not ended). */
  isPending(key: string): boolean {
    return this.#unjournaled.has(key) || this.#writing.has(key);
  }

  /** Whether the journal holds, or is about to hold, anything the base does not. */
  get holdsChanges(): boolean {
    return this.#size > 0 || this.#unjournaled.size > 0;
  }

  /**
   * Applies the journal's whole batches over the base just read, in order;
   * then, unless read-only, writes them into the base and empties the
   * journal, so that no batch is ever appended after one a crash cut short.
   */
  async replay(apply: (entry: JournalEntry<V>) => void | Promise<void>, readOnly: boolean): Promise<void> {
    let text: string;
    try {
      text = await this.#commit.io.readFile(this.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw unreadable(this.path, error);
    }
    // Found at a start: a crash could not take it away any more.
    this.#inDirectory = true;
    if (text.length === 0) return;
    let entries: Array<JournalEntry<V>>;
    try {
      entries = readBatches<V>(text);
    } catch (error) {
      if (error instanceof JournalDamage) throw new LedgerDamagedError(this.path, error.message);
      throw error;
    }
    for (const entry of entries) await apply(entry);
    this.#size = text.length;
    if (readOnly) return;
    this.compactSoon();
    await this.#commit.flush();
  }

  /** The group commit's write. What it writes is taken before its first await: later changes go to the next round. */
  async write(sync: boolean): Promise<void> {
    const keys = this.#unjournaled;
    this.#unjournaled = new Set();
    this.#writing = keys;
    try {
      if (this.#compactDue || this.#size >= this.#o.limit) {
        await this.#compact(sync);
      } else {
        const text = encodeBatch(keys, (key) => this.#o.current(key));
        if (text.length === 0) return;
        this.#file ??= await this.#commit.io.openAppend(this.path);
        await this.#file.append(text, sync);
        if (sync && !this.#inDirectory) await this.#syncDirectory();
        this.#size += text.length;
      }
    } catch (error) {
      for (const key of keys) this.#unjournaled.add(key);
      // A failed append may have left part of its batch: only a journal begun afresh is safe to add to.
      this.#compactDue = true;
      await this.#closeFile();
      throw error;
    } finally {
      this.#writing = new Set();
    }
  }

  /**
   * Closes the journal file held open; the next append opens it again. For the store's close, once its last
   * round has ended (a round under way would find its file closed).
   */
  async release(): Promise<void> {
    await this.#closeFile();
  }

  async #closeFile(): Promise<void> {
    const file = this.#file;
    this.#file = undefined;
    // A close that fails loses nothing: what was appended was fdatasynced, or its round failed.
    await file?.close().catch(() => undefined);
  }

  async #syncDirectory(): Promise<void> {
    await this.#commit.io.syncDirectory(dirname(this.path));
    this.#inDirectory = true;
  }

  /** The base durable (its renames synced), and only then the journal emptied. */
  async #compact(sync: boolean): Promise<void> {
    // The journal is about to be replaced by a new, empty file: a handle on this one would append to the old, so
    // it is closed meanwhile. writeBase is called first, in the same turn as write() took its keys: what it writes
    // is taken when it is called, and a change noted in between would be journaled as gone from the files after.
    const [writeAgain] = await Promise.all([this.#o.writeBase(sync), this.#closeFile()]);
    try {
      if (sync) await this.#commit.io.syncDirectory(dirname(this.path));
      this.#inDirectory = false;
      await replaceFile(this.#commit.io, this.path, '', sync);
      if (sync) await this.#syncDirectory();
    } catch (error) {
      // A rename whose directory sync failed may not survive a crash: those files are written again next time.
      writeAgain();
      throw error;
    }
    this.#size = 0;
    this.#compactDue = false;
    await this.#o.afterCompaction?.();
  }
}
