// What became of a manual adjustment, as the operator is answered: taken by the service, refused by it (for good),
// or not known to have reached it (a dead letter keeps it).
import type { AdjustmentResult } from '../../core/adjustments.ts';
import { LoyaltyError } from '../../loyalty/errors.ts';

export type Adjusted =
  | { taken: true; adjustment: AdjustmentResult['adjustment'] }
  | {
      taken: false;
      /** The service said no (a request it will never take); else it could not be reached. */
      refused: boolean;
      adjustment: AdjustmentResult['adjustment'];
      deadLetter: string | null;
    };

export function adjusted({ adjustment, error, deadLetter }: AdjustmentResult): Adjusted {
  if (adjustment.outcome === 'success') return { taken: true, adjustment };
  const refused = error instanceof LoyaltyError && !error.retryable;
  return { taken: false, refused, adjustment, deadLetter: deadLetter?.id ?? null };
}
