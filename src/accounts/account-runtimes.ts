// What each stored account needs to run (its client, its rate limit, its pause), made when it is first used,
// kept for REFRESH_MS, and made again when the account changes (registry.ts says when it does).
import type { AccountRuntime, PausedRule } from '../core/accounts.ts';
import type { RecordRole } from '../core/store/ledger-store.ts';
import type { Logger } from '../logger.ts';
import { type AccountRecord, ACCOUNT_KIND } from './account-records.ts';
import {
  parseProgramSettings,
  readSavedSettings,
  type ProgramInput,
  type ProgramSettings,
} from './program-settings.ts';

/** How long a link or an account read from the ledger is taken as current (another instance may change it). */
export const REFRESH_MS = 5_000;

/** Makes the runtime of a stored account: its client and pause (the composition root knows how). */
export type RuntimeFactory = (record: AccountRecord, settings: ProgramSettings) => AccountRuntime;

export interface Cached<T> {
  value: T;
  readAt: number;
}

export interface AccountRuntimesOptions {
  store: RecordRole;
  logger: Logger;
  programDefaults: ProgramInput;
  makeRuntime: RuntimeFactory;
}

/** An account's saved settings as they run, and the rules of them that cannot (off until fixed). */
export function settingsOf(
  record: AccountRecord,
  programDefaults: ProgramInput,
  logger: Logger,
): { settings: ProgramSettings; paused: PausedRule[] } {
  const parsed = readSavedSettings(record.settings, programDefaults);
  if (parsed.ok) return { settings: parsed.settings, paused: parsed.paused };
  // Saved settings were valid when saved; a later release that reads one differently keeps the defaults, and says so.
  logger.error(
    { account: record.id, errors: parsed.errors },
    'an account’s saved settings do not read: its defaults are used',
  );
  const defaults = parseProgramSettings({}, programDefaults);
  if (!defaults.ok)
    throw new Error(`config/default.json's program settings do not read: ${defaults.errors.join('; ')}`);
  return { settings: defaults.settings, paused: [] };
}

/** The runtimes of the accounts kept in the ledger (the default account's is the registry's own). */
export class AccountRuntimes {
  readonly #o: AccountRuntimesOptions;
  readonly #runtimes = new Map<string, Cached<{ runtime: AccountRuntime; updatedAt: string } | undefined>>();
  /** Bumped by each change this instance makes to an account: a read begun before it must not be kept. */
  readonly #changes = new Map<string, number>();
  readonly #reading = new Map<string, Promise<AccountRuntime | undefined>>();

  constructor(options: AccountRuntimesOptions) {
    this.#o = options;
  }

  async get(id: string): Promise<AccountRuntime | undefined> {
    const cached = this.#runtimes.get(id);
    if (cached && Date.now() - cached.readAt < REFRESH_MS) return cached.value?.runtime;
    // One read at a time per account: orders asking together would each build a runtime of their own, each
    // with its own limiter and pause, and the account's budget would be handed out once per runtime.
    const reading = this.#reading.get(id);
    if (reading) return reading;
    const read = this.#read(id).finally(() => {
      if (this.#reading.get(id) === read) this.#reading.delete(id);
    });
    this.#reading.set(id, read);
    return read;
  }

  async #read(id: string): Promise<AccountRuntime | undefined> {
    const change = this.#changes.get(id) ?? 0;
    const cached = this.#runtimes.get(id);
    const record = await this.#o.store.getRecord(ACCOUNT_KIND, id);
    // Changed while this read was on its way: what it read may be from before the change. The read the change
    // left to come (joined, not one of its own: one runtime per account) answers instead.
    if ((this.#changes.get(id) ?? 0) !== change) return this.get(id);
    if (!record) {
      cached?.value?.runtime.authPause.stop();
      this.#runtimes.set(id, { value: undefined, readAt: Date.now() });
      return undefined;
    }
    if (cached?.value && cached.value.updatedAt === record.updatedAt) {
      cached.readAt = Date.now();
      return cached.value.runtime;
    }
    cached?.value?.runtime.authPause.stop();
    const { settings, paused } = settingsOf(record, this.#o.programDefaults, this.#o.logger);
    const runtime: AccountRuntime = { ...this.#o.makeRuntime(record, settings), pausedRules: paused };
    for (const { key, why } of paused)
      this.#o.logger.warn(
        { account: id, key },
        `an account’s saved ${key} cannot run (${why}): its rule is off until the setting is fixed`,
      );
    this.#runtimes.set(id, { value: { runtime, updatedAt: record.updatedAt }, readAt: Date.now() });
    return runtime;
  }

  /** The account changed: its runtime is made again at its next use. */
  forget(id: string): void {
    this.#changes.set(id, (this.#changes.get(id) ?? 0) + 1);
    this.#runtimes.get(id)?.value?.runtime.authPause.stop();
    this.#runtimes.delete(id);
    // A read already under way is not handed to the callers that come after the change.
    this.#reading.delete(id);
  }

  stop(): void {
    for (const cached of this.#runtimes.values()) cached.value?.runtime.authPause.stop();
  }
}
