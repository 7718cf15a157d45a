// The flow charts' series in words: each call's outcome and each delivery's result, as the dashboard's legend
// names them (the codes stay the keys of /activity's minutes).
import type { LoyaltyError } from '../loyalty/errors.ts';
import type { WebhookResult } from './webhook-route.ts';

/** How a call to the loyalty service went; one entry per outcome, so a new one does not type-check without words. */
export const CALL_OUTCOME_WORDS: Record<'success' | LoyaltyError['kind'], string> = {
  success: 'done',
  invalid_source: 'refused: a detail missing or malformed',
  invalid_auth: 'refused: credentials',
  invalid_url: 'refused: unknown address or activity',
  not_found: 'nothing to approve or reject',
  rejected: 'refused',
  unknown_failure: 'failed, in words not known',
  redirected: 'sent elsewhere: the address is not the service’s',
  refused_address: 'not sent: the address is refused',
  rate_limited: 'too many calls',
  unavailable: 'the service was unavailable',
  network: 'could not reach the service',
};

/** What became of a delivery from a store. */
export const DELIVERY_RESULT_WORDS: Record<WebhookResult, string> = {
  accepted: 'received',
  duplicate: 'received again (already had)',
  ignored: 'ignored (nothing for the bridge)',
  mislabelled: 'ignored (sent under the wrong topic)',
};

const resultWords = (result: string) =>
  DELIVERY_RESULT_WORDS[result as WebhookResult] ??
  (/^rejected_(\d+)$/.exec(result) ? `refused (HTTP ${result.slice('rejected_'.length)})` : result);

/** The words of every series in these minutes: calls by outcome, deliveries by "platform:result". */
export function activityWords(
  minutes: ReadonlyArray<{ calls: Record<string, number>; deliveries: Record<string, number> }>,
  platformName: (platform: string) => string,
) {
  const calls = new Set(minutes.flatMap((minute) => Object.keys(minute.calls)));
  const deliveries = new Set(minutes.flatMap((minute) => Object.keys(minute.deliveries)));
  return {
    calls: Object.fromEntries(
      [...calls].map((outcome) => [outcome, CALL_OUTCOME_WORDS[outcome as keyof typeof CALL_OUTCOME_WORDS] ?? outcome]),
    ),
    deliveries: Object.fromEntries(
      [...deliveries].map((key) => {
        const [platform = '', result = ''] = key.split(':');
        return [key, `${platformName(platform)}: ${resultWords(result)}`];
      }),
    ),
  };
}
