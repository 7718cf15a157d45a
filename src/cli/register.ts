// loyalty-bridge register --platform <p> [--shop <shop>]
// Puts a platform's webhook subscriptions right by hand (its module's
// subscriptions part); the running bridge does the same by itself at start,
// after each install and on each reconciliation.
import type { Config } from '../config.ts';
import type { AnyPlatformModule } from '../core/platform-module.ts';
import { openStore } from '../composition/open-store.ts';
import type { Logger } from '../logger.ts';
import { buildPlatforms, type Platform } from '../composition/platforms.ts';
import { SHIPPED_MODULES } from '../platform-registry.ts';
import { fail, out } from './common.ts';

export async function register(
  config: Config,
  logger: Logger,
  platform: Platform,
  shop: string | undefined,
): Promise<number> {
  const needs = (SHIPPED_MODULES as readonly AnyPlatformModule[]).find(({ name }) => name === platform)?.needs
    .subscriptions;
  if (needs && typeof needs === 'object') return fail(`register: ${needs.instead}`);
  const opened = await openStore(config, logger);
  try {
    await opened.store.open();
    const platforms = buildPlatforms(config, opened.store, {}, { logger });
    const subscriptions = platforms.modules.find(({ module }) => module.name === platform)?.parts.subscriptions;
    if (!subscriptions)
      return fail(`register --platform ${platform}: ${needs ?? 'its subscriptions are not put right by hand'}`);
    const result = await subscriptions.register(shop, out);
    if ('refused' in result) return fail(`register --platform ${platform}: ${result.refused}`);
    return result.failed ? 1 : 0;
  } finally {
    await opened.store.close();
    await opened.release();
  }
}
