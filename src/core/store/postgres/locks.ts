// Advisory lock numbers of loyalty-bridge: (class, id) pairs in a class of
// their own, away from other applications' numbers.
import { createHash } from 'node:crypto';

export const LOCK_CLASS = 1_819_435;

export const lockId = (name: string): number => createHash('sha256').update(name).digest().readInt32BE(0);
