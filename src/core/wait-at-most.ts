// A stop waits for work under way, but never longer than its deadline: work
// that waits on another server may not end for as long as that server hangs.

/** Resolves true once `work` settles, or false when `ms` passed first (Infinity: no limit). */
export async function waitAtMost(work: Promise<unknown>, ms: number): Promise<boolean> {
  const settled = work.then(
    () => true,
    () => true,
  );
  if (!Number.isFinite(ms)) return settled;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, ms))));
  try {
    return await Promise.race([settled, late]);
  } finally {
    clearTimeout(timer);
  }
}
