// Dead letters on lowdb, one small file each (dead-letters/<id>.json): they can pile up over months and hold
// raw bodies, so memory keeps each without its body, a change writes only its letter's file, and the body is
// read when someone asks. Changes run one at a time (they are rare), so two writes of one letter's file
// never land out of order.
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import PQueue from 'p-queue';
import type { DeadLetter, NewDeadLetter } from '../ledger-store.ts';
import { LedgerDamagedError } from '../ledger-store.ts';
import { replaceFile, unreadable } from './durable-file.ts';
import type { GroupCommit } from './group-commit.ts';
import { upgradeDeadLetter } from '../format/upgrade-records.ts';

/** What memory keeps of a letter: all but the delivery's body. */
type LetterSummary = Omit<DeadLetter, 'delivery'> & { hasDelivery: boolean };

const FOLDER = 'dead-letters';
/** The file ledgers before one file per letter kept them all in. */
const OLD_FILE = 'dead-letters.json';
const safeName = (id: string) => `${Buffer.from(id).toString('base64url')}.json`;

const summaryOf = ({ delivery, ...rest }: DeadLetter): LetterSummary => ({
  ...rest,
  hasDelivery: delivery !== undefined,
});
const withoutFlag = ({ hasDelivery: _hasDelivery, ...letter }: LetterSummary): DeadLetter => letter;

export class DeadLetterFiles {
  readonly #dataDir: string;
  readonly #commit: GroupCommit;
  readonly #now: () => Date;
  /** Every letter, without its body, oldest first. */
  readonly #letters = new Map<string, LetterSummary>();
  readonly #changes = new PQueue({ concurrency: 1 });

  constructor(dataDir: string, commit: GroupCommit, now: () => Date) {
    this.#dataDir = dataDir;
    this.#commit = commit;
    this.#now = now;
  }

  get folder(): string {
    return join(this.#dataDir, FOLDER);
  }

  #path(id: string): string {
    return join(this.folder, safeName(id));
  }

  async open(readOnly: boolean): Promise<string | undefined> {
    if (!readOnly) await mkdir(this.folder, { recursive: true, mode: 0o700 });
    const names = existsSync(this.folder)
      ? (await this.#commit.io.readdir(this.folder)).filter((name) => /^[\w-]+\.json$/.test(name))
      : [];
    const letters: DeadLetter[] = [];
    for (const name of names) letters.push(await this.#read(join(this.folder, name)));
    for (const letter of letters.sort((a, b) => a.createdAt.localeCompare(b.createdAt)))
      this.#letters.set(letter.id, summaryOf(letter));
    return readOnly ? undefined : this.#upgrade();
  }

  async #read(path: string): Promise<DeadLetter> {
    let text: string;
    try {
      text = await this.#commit.io.readFile(path);
    } catch (error) {
      throw unreadable(path, error);
    }
    let letter: DeadLetter;
    try {
      letter = JSON.parse(text) as DeadLetter;
    } catch {
      throw new LedgerDamagedError(path, 'not valid JSON: empty or cut short');
    }
    if (typeof letter?.id !== 'string' || typeof letter.reason !== 'string')
      throw new LedgerDamagedError(path, 'not the shape loyalty-bridge writes');
    return upgradeDeadLetter(letter);
  }

  /** A ledger that kept every letter in one dead-letters.json: one file per letter from now on. */
  async #upgrade(): Promise<string | undefined> {
    const old = join(this.#dataDir, OLD_FILE);
    if (!existsSync(old)) return undefined;
    let text: string;
    try {
      text = await this.#commit.io.readFile(old);
    } catch (error) {
      throw unreadable(old, error);
    }
    let data: { deadLetters?: unknown };
    try {
      data = JSON.parse(text) as { deadLetters?: unknown };
    } catch {
      throw new LedgerDamagedError(old, 'not valid JSON: empty or cut short');
    }
    if (!Array.isArray(data.deadLetters)) throw new LedgerDamagedError(old, 'not the shape loyalty-bridge writes');
    for (const letter of data.deadLetters as DeadLetter[]) {
      if (this.#letters.has(letter.id)) continue;
      await this.#write(letter);
    }
    await this.#commit.flush();
    await this.#commit.io.remove(old);
    return `moved ${data.deadLetters.length} dead letters from ${OLD_FILE} into ${FOLDER}/`;
  }

  /** Writes a letter's file; durable with the next flush (which syncs the folder). */
  async #write(letter: DeadLetter): Promise<void> {
    await replaceFile(this.#commit.io, this.#path(letter.id), JSON.stringify(letter), this.#commit.sync);
    this.#commit.markDirectory(this.folder);
    this.#letters.delete(letter.id);
    this.#letters.set(letter.id, summaryOf(letter));
  }

  /** Adds a letter unless one with its id exists (a repeat makes no second one); durable with the next flush. */
  upsert(letter: NewDeadLetter): Promise<DeadLetter> {
    return this.#changes.add(async () => {
      const existing = this.#letters.get(letter.id);
      if (existing) return withoutFlag(existing);
      const created: DeadLetter = { retries: 0, ...letter, createdAt: letter.createdAt ?? this.#now().toISOString() };
      await this.#write(created);
      return created;
    }) as Promise<DeadLetter>;
  }

  /** Replaces a letter that exists; durable with the next flush. */
  update(letter: DeadLetter): Promise<void> {
    return this.#changes.add(async () => {
      if (!this.#letters.has(letter.id)) return;
      // A letter listed without its body keeps the body it has.
      const delivery = letter.delivery ?? (await this.get(letter.id))?.delivery;
      await this.#write({ ...letter, ...(delivery ? { delivery } : {}) });
    }) as Promise<void>;
  }

  /** Removes a letter; durable with the next flush. */
  remove(id: string): Promise<DeadLetter | undefined> {
    return this.#changes.add(async () => {
      if (!this.#letters.has(id)) return undefined;
      const letter = await this.get(id);
      await this.#commit.io.remove(this.#path(id));
      this.#commit.markDirectory(this.folder);
      this.#letters.delete(id);
      return letter;
    }) as Promise<DeadLetter | undefined>;
  }

  /** One letter, with its delivery read from its file. */
  async get(id: string): Promise<DeadLetter | undefined> {
    const summary = this.#letters.get(id);
    if (!summary) return undefined;
    return summary.hasDelivery ? this.#read(this.#path(id)) : withoutFlag(structuredClone(summary));
  }

  /** Every letter, oldest first, without the deliveries' bodies. */
  list(): DeadLetter[] {
    return [...this.#letters.values()].map((summary) => withoutFlag(structuredClone(summary)));
  }

  get size(): number {
    return this.#letters.size;
  }

  /** Every letter whole, one file at a time: for privacy and for moving a ledger, never on a hot path. */
  async *all(): AsyncGenerator<DeadLetter> {
    for (const id of [...this.#letters.keys()]) {
      const letter = await this.get(id);
      if (letter) yield letter;
    }
  }

  /** Rewrites or removes letters (erasure): `change` answers the letter to keep, null to remove it, or undefined for no change. */
  async rewrite(change: (letter: DeadLetter) => DeadLetter | null | undefined): Promise<number> {
    let changed = 0;
    for await (const letter of this.all()) {
      const result = change(letter);
      if (result === undefined) continue;
      changed++;
      if (result === null) await this.remove(letter.id);
      else await this.#changes.add(() => this.#write(result));
    }
    return changed;
  }

  /** Waits for changes under way. */
  idle(): Promise<void> {
    return this.#changes.onIdle();
  }
}
