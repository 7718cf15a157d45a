// The demo's shops earn on trial accounts of their own on the bridge's sandbox, each made as a merchant's "Try it
// with the sandbox first" makes one (issue 68): on the operator's account a shop's merchant may change nothing, so
// the demo shop's page refused every form it showed. Made once; a restart finds each shop linked already.
import { trialAccountInput, type BridgeSandbox } from '../accounts/sandbox-trials.ts';
import type { AccountRegistry } from '../accounts/registry.ts';
import type { LedgerStore } from '../core/store/ledger-store.ts';
import type { Logger } from '../logger.ts';
import { DATA_REQUEST_KIND } from '../core/privacy.ts';
import type { DemoPlayer } from './demo-store.ts';

/** Who the audit says made the demo's accounts and links. */
export const DEMO_BY = 'the demo store';

/** Each demo shop on a trial account of its own, unless it is linked to an account already. */
export async function giveDemoShopsTheirAccounts(
  players: readonly Pick<DemoPlayer, 'platform' | 'platformName' | 'shop'>[],
  registry: Pick<AccountRegistry, 'links' | 'create' | 'link'>,
  sandbox: BridgeSandbox,
  logger: Logger,
): Promise<void> {
  const links = await registry.links();
  for (const { platform, platformName, shop } of players) {
    const ref = { platform, shop };
    if (links.some((link) => link.platform === platform && link.shop === shop)) continue;
    const trial = trialAccountInput(sandbox, { sandbox: true, name: `${platformName} demo shop` });
    const created = trial.ok ? await registry.create(trial.input, DEMO_BY, ref, { onBridgeSandbox: true }) : trial;
    if (!created.ok) {
      if (trial.ok) sandbox.removeAccount(String(trial.input.brandId));
      // The shop earns on the operator's account then, as before: its page shows what it may not change.
      logger.warn({ platform, shop, errors: created.errors }, 'the demo shop could not have a trial account');
      continue;
    }
    await registry.link(ref, created.value.id, DEMO_BY);
  }
}

/**
 * Once a store of the merchant's is connected the demo never plays again: its shops, linked by the demo, go with their
 * trial accounts and audit lines (as an erased shop's link does), and the data requests its store page sent (the
 * demo customer's contact, open in the operator's list for no one to answer), so the operator's lists name the real
 * stores alone.
 */
export async function forgetDemoShops(
  registry: Pick<AccountRegistry, 'links' | 'forgetShop'>,
  store: Pick<LedgerStore, 'listRecords' | 'deleteRecord'>,
  logger: Logger,
): Promise<void> {
  const demo = (await registry.links()).filter((link) => link.by === DEMO_BY);
  for (const { platform, shop } of demo) await registry.forgetShop(platform, shop);
  const asked = await store.listRecords(DATA_REQUEST_KIND);
  for (const { id, value } of asked)
    if (demo.some((link) => link.platform === value.platform && link.shop === value.shop))
      await store.deleteRecord(DATA_REQUEST_KIND, id);
  if (demo.length > 0) logger.info({ shops: demo.length }, "the demo's shops and their trial accounts were removed");
}
