// Where each call to the loyalty service is told: its account's own count (for its merchant's page), the
// bridge's health, the activity chart and the metrics.
import type { AccountCalls } from '../accounts/account-calls.ts';
import type { Activity } from '../activity.ts';
import { DEFAULT_ACCOUNT } from '../core/accounts.ts';
import type { AttemptReport } from '../loyalty/client.ts';
import type { UpstreamHealth } from '../loyalty/health.ts';
import type { Metrics } from '../metrics.ts';

export function upstreamReports(parts: {
  accountCalls: AccountCalls;
  health: UpstreamHealth;
  activity: Activity;
  metrics: Metrics;
}): (report: AttemptReport & { account?: string }) => void {
  const { accountCalls, health, activity, metrics } = parts;
  return (report) => {
    accountCalls.record(report.account ?? DEFAULT_ACCOUNT);
    // Refused credentials in the bridge's own health (/readyz, the status banner) are the environment's account's:
    // a merchant's account whose key the service refuses is paused on its own, and must not take the instance out
    // of its load balancer. Reachability (last success, failures in a row) counts every account's calls.
    health.record(report, { ownCredentials: (report.account ?? DEFAULT_ACCOUNT) === DEFAULT_ACCOUNT });
    activity.recordCall(report.outcome);
    metrics.upstreamCalls.inc({ operation: report.operation, outcome: report.outcome });
    metrics.upstreamLatency.observe({ operation: report.operation }, report.durationMs / 1000);
    if (report.outcome === 'invalid_auth') metrics.authFailures.inc();
  };
}
