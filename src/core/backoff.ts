// Exponential backoff with full jitter, never shorter than what the other
// side asked for (Retry-After): for loyalty calls and for platform reads alike.
export interface BackoffOptions {
  minDelayMs: number;
  maxDelayMs: number;
  random?: () => number;
}

export function backoffDelay(
  attempts: number,
  { minDelayMs, maxDelayMs, random = Math.random }: BackoffOptions,
  retryAfterMs?: number,
): number {
  const ceiling = Math.min(maxDelayMs, minDelayMs * 2 ** Math.max(0, attempts - 1));
  const jittered = minDelayMs / 2 + random() * (ceiling - minDelayMs / 2);
  return Math.max(Math.round(jittered), retryAfterMs ?? 0);
}
