// What every command shares: output, usage errors, argument checks, and the
// ledger opened locally (read-only while a bridge runs on it, or with the
// engine for the commands that change it).
import { isSandboxMode, type Config } from '../config.ts';
import type { Engine } from '../core/engine.ts';
import type { LedgerStore } from '../core/store/ledger-store.ts';
import { LowdbStore } from '../core/store/lowdb/lowdb-store.ts';
import { openStore, recordSecretsFromConfig } from '../composition/open-store.ts';
import type { Logger } from '../logger.ts';
import { linkEarlierShops } from '../accounts/earlier-shops.ts';
import type { AccountRegistry } from '../accounts/registry.ts';
import { loyaltyClientFromConfig, openConfiguredEngine } from '../composition/engine-from-config.ts';
import { bridgeSandboxCredentials } from '../composition/kept-sandbox-credentials.ts';
import { buildPlatforms, PLATFORMS, type Platform, type Platforms } from '../composition/platforms.ts';
import type { adminClient } from './admin-client.ts';
import { BridgeError } from '../errors.ts';

/** The command line asks for something the CLI cannot do: shown with the usage text. */
export class UsageError extends BridgeError<'usage'> {
  constructor(message: string) {
    super('usage', message, { fix: 'loyalty-bridge help lists the commands and their options' });
  }
}

export type Remote = ReturnType<typeof adminClient>;

/**
 * What the CLI prints comes from the ledger and from other people (account
 * and shop names, what a service answered): a control character in it is
 * shown as an escape, never sent to the terminal to act on (ESC starts the
 * sequences that erase lines, move the cursor or make links). Line breaks
 * the CLI writes itself stay.
 */
export const printable = (text: string): string =>
  text.replace(/[^\P{Cc}\n]/gu, (character) => `\\u${character.codePointAt(0)!.toString(16).padStart(4, '0')}`);

export const out = (line = '') => process.stdout.write(`${printable(line)}\n`);

export const fail = (message: string): number => {
  process.stderr.write(`loyalty-bridge: ${printable(message)}\n`);
  return 1;
};

export function requirePlatform(platform: string | undefined, allowed: readonly Platform[] = PLATFORMS): Platform {
  if ((allowed as readonly string[]).includes(platform ?? '')) return platform as Platform;
  throw new UsageError(
    platform === undefined
      ? `--platform is required (${allowed.join(', ')})`
      : `--platform ${platform} is not supported here (${allowed.join(', ')})`,
  );
}

export function parseDate(name: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime()))
    throw new UsageError(`--${name} ${value} is not a date (use 2026-11-01 or an ISO time)`);
  return date;
}

/**
 * The ledger for reading while a bridge may be running on it: the lowdb
 * files opened read-only (nothing written or deleted), or the database.
 */
export async function withReadOnlyStore<T>(
  config: Config,
  logger: Logger,
  use: (store: LedgerStore) => Promise<T>,
): Promise<T> {
  if (config.DATABASE_URL) {
    const opened = await openStore(config, logger);
    try {
      await opened.store.open();
      return await use(opened.store);
    } finally {
      await opened.store.close();
      await opened.release();
    }
  }
  const store = new LowdbStore({ dataDir: config.DATA_DIR, readOnly: true, secrets: recordSecretsFromConfig(config) });
  await store.open();
  return use(store);
}

export interface LocalEngine {
  engine: Engine;
  platforms: Platforms;
}

/** The ledger with its engine, for a command that changes it: the lowdb files are locked while it runs. */
export async function withLocalEngine<T>(
  config: Config,
  logger: Logger,
  use: (local: LocalEngine) => Promise<T>,
): Promise<T> {
  const opened = await openStore(config, logger);
  const platforms = buildPlatforms(config, opened.store, {}, { logger });
  let engine: Engine;
  try {
    // Opened before the engine: in sandbox mode the client's credentials are kept in the ledger, as the bridge keeps them.
    const openReport = await opened.store.open();
    const sandbox = isSandboxMode(config) ? await bridgeSandboxCredentials(config, opened.store) : undefined;
    const client = loyaltyClientFromConfig(config, opened, { baseUrl: config.LOYALTY_BASE_URL ?? '', sandbox });
    let accounts: AccountRegistry;
    ({ engine, accounts } = await openConfiguredEngine(config, { opened, openReport, client, logger, platforms }));
    // As at the bridge's start: stores connected before, and a platform's old shop names moved.
    const opening = engine;
    await platforms
      .prepare(() => opening.foldInbox())
      .then(() => linkEarlierShops(opened.store, accounts, logger))
      .catch(async (error: unknown) => {
        await opening.stop();
        throw error;
      });
  } catch (error) {
    await opened.release();
    throw error;
  }
  try {
    return await use({ engine, platforms });
  } finally {
    await engine.stop();
    await opened.release();
  }
}
