// /readyz: ready when the ledger can be written and the bridge is not
// stopping. The loyalty service being down is not a reason to be unready
// (deliveries are kept and sent later), but refused credentials are: nothing
// will get through until someone fixes them.
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { UpstreamHealth } from '../loyalty/health.ts';
import type { Readiness } from './app.ts';

export async function readiness(dataDir: string, health: UpstreamHealth, gate: { open: boolean }): Promise<Readiness> {
  const probe = join(dataDir, '.ready-probe');
  let ledger: Readiness['checks'][string];
  try {
    await writeFile(probe, String(Date.now()), { mode: 0o600 });
    await rm(probe, { force: true });
    ledger = { ok: true };
  } catch (error) {
    ledger = { ok: false, detail: `DATA_DIR is not writable (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  const upstream = health.snapshot();
  const checks: Readiness['checks'] = {
    ledger,
    upstream: upstream.credentialsRefused
      ? { ok: false, detail: 'the loyalty service refuses our credentials: check LOYALTY_API_KEY and LOYALTY_BRAND_ID' }
      : { ok: true, detail: upstream.consecutiveFailures > 0 ? `in backoff after ${upstream.consecutiveFailures} failed calls` : 'reachable' },
    accepting: gate.open ? { ok: true } : { ok: false, detail: 'stopping' },
  };
  return { ready: Object.values(checks).every((check) => check.ok), checks };
}
