// The dead letters role: what could not be used or was refused for good, kept with its reason to be read and tried again.
import type { StoredDelivery } from '../../delivery.ts';

export interface DeadLetter {
  id: string;
  createdAt: string;
  /** delivery: an authentic delivery we could not use. call: a call the service refused for good. */
  kind: 'delivery' | 'call';
  reason: string;
  platform?: string | undefined;
  topic?: string | undefined;
  shop?: string | undefined;
  /** For deliveries: the dedupe key it arrived under. */
  deliveryKey?: string | undefined;
  orderKey?: string | undefined;
  operation?: string | undefined;
  httpStatus?: number | undefined;
  /** For deliveries: the delivery as received, so nothing is lost and it can be read again. */
  delivery?: StoredDelivery | undefined;
  /** For a manual earn or redeem whose outcome is unknown: the adjustment to send again. */
  adjustmentId?: string | undefined;
  retries: number;
}

export type NewDeadLetter = Omit<DeadLetter, 'createdAt' | 'retries'> & { createdAt?: string };

export interface DeadLetterRole {
  addDeadLetter(letter: NewDeadLetter): Promise<DeadLetter>;
  updateDeadLetter(letter: DeadLetter): Promise<void>;
  removeDeadLetter(id: string): Promise<DeadLetter | undefined>;
  /** One dead letter, whole: with the delivery it keeps. */
  getDeadLetter(id: string): Promise<DeadLetter | undefined>;
  /** Every dead letter, oldest first; a store may leave the deliveries' bodies out (getDeadLetter has them). */
  listDeadLetters(): Promise<DeadLetter[]>;
  countDeadLetters(): Promise<number>;
}
