// A fence checked at the last moment before a call leaves. A caller whose
// right to make a call can run out while the call waits for its turn (the
// worker: its lease on the order, which another instance takes over once it
// expires) runs the call inside withCallFence(check, ...). The client binds
// that check to each attempt it hands to the rate limiter, and the limiter
// runs it after its wait, which a 429's Retry-After can stretch to minutes.
// A check that throws stops the attempt before anything is sent.
import { AsyncLocalStorage } from 'node:async_hooks';

const fences = new AsyncLocalStorage<() => void>();

export function withCallFence<T>(check: () => void, run: () => Promise<T>): Promise<T> {
  return fences.run(check, run);
}

/**
 * The attempt, bound to the fence of the caller now: the limiter runs it
 * later from its own context, where the caller's is gone.
 */
export function fenced<T>(attempt: () => Promise<T>): () => Promise<T> {
  const check = fences.getStore();
  if (!check) return attempt;
  return () => {
    check();
    return attempt();
  };
}
