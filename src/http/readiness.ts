// /readyz: ready when the ledger can be written and the bridge is not
// stopping. The loyalty service being down is not a reason to be unready
// (deliveries are kept and sent later), but refused credentials are: nothing
// will get through until someone fixes them.
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { OperatorQueries } from '../core/store/ledger-store.ts';
import type { UpstreamHealth } from '../loyalty/health.ts';
import type { Readiness } from './app.ts';

export interface ReadinessParts {
  store: OperatorQueries;
  /** For the lowdb store: the folder whose writability is the ledger's. */
  dataDir: string | undefined;
  health: UpstreamHealth;
  gate: { open: boolean; draining?: boolean };
}

async function ledgerCheck({ store, dataDir }: ReadinessParts): Promise<Readiness['checks'][string]> {
  try {
    if (dataDir) {
      const probe = join(dataDir, '.ready-probe');
      await writeFile(probe, String(Date.now()), { mode: 0o600 });
      await rm(probe, { force: true });
    } else {
      await store.stats();
    }
    return { ok: true };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    return {
      ok: false,
      detail: dataDir ? `DATA_DIR is not writable (${code})` : `the database does not answer (${code})`,
    };
  }
}

export async function readiness(parts: ReadinessParts): Promise<Readiness> {
  const upstream = parts.health.snapshot();
  const checks: Readiness['checks'] = {
    ledger: await ledgerCheck(parts),
    upstream: upstream.credentialsRefused
      ? { ok: false, detail: 'the loyalty service refuses our credentials: check LOYALTY_API_KEY and LOYALTY_BRAND_ID' }
      : {
          ok: true,
          detail:
            upstream.consecutiveFailures > 0
              ? `in backoff after ${upstream.consecutiveFailures} failed calls`
              : 'reachable',
        },
    // Draining: still accepting, but a load balancer should send elsewhere before we stop.
    accepting: parts.gate.open && !parts.gate.draining ? { ok: true } : { ok: false, detail: 'stopping' },
  };
  return { ready: Object.values(checks).every((check) => check.ok), checks };
}
