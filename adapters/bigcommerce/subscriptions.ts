// Keeping a store's hooks alive. BigCommerce deactivates a hook after 48 hours of failed deliveries (and
// after 90 days without events), so at each check the bridge turns its own back on (PUT is_active: true)
// and creates the missing ones where it can tell their deliveries are its own (stores.ts). A token without
// the scope to change hooks only reports, with what a person must do.
import type { SubscriptionProblem } from '../../src/core/order-source.ts';
import { BIGCOMMERCE_SCOPES } from './adapter.ts';
import { BigCommerceApiError, type BigCommerceApi, type BigCommerceHook } from './admin-api.ts';
import type { DeliveryProof } from './stores.ts';
import { BC_SECRET_HEADER } from './verify.ts';
import { trimTrailing } from '../../src/trim-trailing.ts';

export const BC_WEBHOOK_PATH = '/webhooks/bigcommerce';

const ours = (hook: BigCommerceHook) => trimTrailing(hook.destination ?? '', '/').endsWith(BC_WEBHOOK_PATH);
const sameScope = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

export interface HookUpkeep {
  /** The bridge's own destination (PUBLIC_URL/webhooks/bigcommerce); unknown: nothing is created. */
  destination: string | undefined;
  /** How the store's deliveries are checked: a header secret new hooks must carry (unknown: nothing is created), or the app's signature. */
  proof: DeliveryProof;
}

export interface HookUpkeepResult {
  healthy: number;
  repaired: string[];
  problems: SubscriptionProblem[];
}

/** A refusal that means the token may not change hooks: report, do not fail the check. */
const refusedChange = (error: unknown) => error instanceof BigCommerceApiError && !error.transient;

export async function keepBigCommerceHooks(api: BigCommerceApi, upkeep: HookUpkeep): Promise<HookUpkeepResult> {
  const hooks = (await api.hooks()).filter(ours);
  const result: HookUpkeepResult = { healthy: 0, repaired: [], problems: [] };
  for (const hook of hooks) {
    if (hook.is_active) {
      result.healthy++;
      continue;
    }
    try {
      await api.updateHook(hook.id, { is_active: true });
      result.repaired.push(`${hook.scope}: reactivated hook ${hook.id}`);
      result.healthy++;
    } catch (error) {
      if (!refusedChange(error)) throw error;
      result.problems.push({
        kind: 'deactivated',
        topic: hook.scope,
        detail: `BigCommerce deactivated the ${hook.scope} hook (id ${hook.id}) to ${hook.destination}, and the bridge could not turn it back on (${(error as Error).message})`,
        fix: 'Give the token the scope that manages hooks, or run `loyalty-bridge register --platform bigcommerce` with one that has it',
      });
    }
  }
  const { proof } = upkeep;
  const headers =
    proof.by === 'header' && proof.secret !== undefined ? { [BC_SECRET_HEADER]: proof.secret } : undefined;
  const canCreate = upkeep.destination !== undefined && (proof.by === 'signature' || headers !== undefined);
  for (const scope of BIGCOMMERCE_SCOPES) {
    if (hooks.some((hook) => sameScope(hook.scope, scope))) continue;
    if (canCreate) {
      try {
        const created = await api.createHook({
          scope,
          destination: upkeep.destination!,
          is_active: true,
          ...(headers ? { headers } : {}),
        });
        result.repaired.push(`${scope}: created hook ${created.id}`);
        result.healthy++;
        continue;
      } catch (error) {
        if (!refusedChange(error)) throw error;
      }
    }
    result.problems.push({
      kind: 'missing',
      topic: scope,
      detail: `no ${scope} hook points to ${BC_WEBHOOK_PATH}`,
      fix: canCreate
        ? 'Give the token the scope that manages hooks, then the next check creates it'
        : proof.by === 'signature'
          ? 'Set PUBLIC_URL, then the next check creates it'
          : 'Set PUBLIC_URL and BIGCOMMERCE_WEBHOOK_SECRET, then run `loyalty-bridge register --platform bigcommerce`',
    });
  }
  return result;
}

export interface HookRegistration {
  destination: string;
  created: string[];
  reactivated: string[];
  alreadyThere: string[];
}

/** Creates (or turns back on, with the secret header) the hooks the bridge needs: `register --platform bigcommerce`. */
export async function registerBigCommerceHooks(
  api: BigCommerceApi,
  appUrl: string,
  headerSecret: string,
): Promise<HookRegistration> {
  const destination = `${trimTrailing(appUrl, '/')}${BC_WEBHOOK_PATH}`;
  const hooks = await api.hooks();
  const result: HookRegistration = { destination, created: [], reactivated: [], alreadyThere: [] };
  for (const scope of BIGCOMMERCE_SCOPES) {
    const existing = hooks.find((hook) => sameScope(hook.scope, scope) && hook.destination === destination);
    if (!existing) {
      await api.createHook({ scope, destination, is_active: true, headers: { [BC_SECRET_HEADER]: headerSecret } });
      result.created.push(scope);
    } else if (!existing.is_active || existing.headers?.[BC_SECRET_HEADER] !== headerSecret) {
      await api.updateHook(existing.id, { is_active: true, headers: { [BC_SECRET_HEADER]: headerSecret } });
      result.reactivated.push(scope);
    } else {
      result.alreadyThere.push(scope);
    }
  }
  return result;
}
