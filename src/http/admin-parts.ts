// What every group of the admin API's routes is handed (AdminApiParts), reading a request's input (read, BadInput),
// and the helpers more than one group shares. No route of its own; admin-api.ts mounts the groups.
import type { Response } from 'express';
import type { z } from 'zod';
import type { Activity } from '../activity.ts';
import type { Engine } from '../core/engine.ts';
import type { WordsParts } from './order-words-view.ts';
import type { Reconciler } from '../core/reconciler.ts';
import type { ResyncJobs } from '../core/resync-jobs.ts';
import type { LoyaltyClient } from '../loyalty/client.ts';
import { LoyaltyError } from '../loyalty/errors.ts';
import type { UpstreamHealth } from '../loyalty/health.ts';
import type { Logger } from '../logger.ts';
import type { Platforms } from '../core/platforms.ts';
import type { AccountView } from '../accounts/account-view.ts';
import type { AccountRegistry } from '../accounts/registry.ts';
import type { BridgeSandbox } from '../accounts/sandbox-trials.ts';
import { accountLoads, operatorView } from '../accounts/account-load.ts';
import { BadInput } from '../services/refused.ts';

export interface AdminApiParts {
  token: string | undefined;
  /** The loyalty service is the built-in sandbox. */
  sandbox?: boolean;
  /** The bridge's own sandbox, in sandbox mode: the operator may make an account on it. */
  bridgeSandbox?: BridgeSandbox | undefined;
  /** A first run: whether the built-in demo store sends orders now (until a store of the merchant's own is connected). */
  demo?: () => boolean;
  /** Recorded as "who asked" on manual adjustments, privacy requests and changes to accounts. */
  tokenLabel: string;
  /** The loyalty accounts and which shop earns on which (admin-accounts.ts). */
  accounts: AccountRegistry;
  /** The environment's account as it may be shown: its key as a hint. */
  defaultAccount: () => AccountView;
  engine: Engine;
  platforms: Platforms;
  reconciler: Reconciler;
  resyncJobs: ResyncJobs;
  client: LoyaltyClient;
  health: UpstreamHealth;
  activity: Activity;
  logger: Logger;
}

export { BadInput };

export function read<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.join('.') || 'body';
  throw new BadInput(field, issue?.message ?? 'is invalid');
}

/** How an order's words are looked up for the operator: the store, the accounts, and each platform's own parts. */
export const wordsPartsOf = ({ engine, platforms }: AdminApiParts): WordsParts => ({
  store: engine.store,
  accounts: engine.accounts,
  partsOf: (platform) => platforms.modules.find(({ module }) => module.name === platform)?.parts,
  audience: 'operator',
});

/** Each account's calls against its limit, its budget, and its due work per lane (account-load.ts). */
export const accountLoadsNow = ({ accounts, engine }: AdminApiParts) =>
  accountLoads({
    accounts,
    store: engine.store,
    view: operatorView(
      () => engine.worker.spentBudgets,
      () => engine.worker.spentBudgetsSince,
    ),
  });

/** An adjustment's answer: 201 when the service took it; 422 when it refused, 502 when it could not be reached. */
export function adjusted(
  res: Response,
  { adjustment, error, deadLetter }: Awaited<ReturnType<Engine['adjustments']['earn']>>,
) {
  if (adjustment.outcome === 'success') return void res.status(201).json({ adjustment });
  const refused = error instanceof LoyaltyError && !error.retryable;
  res
    .status(refused ? 422 : 502)
    .json({ error: adjustment.message, adjustment, ...(deadLetter ? { deadLetter: deadLetter.id } : {}) });
}
