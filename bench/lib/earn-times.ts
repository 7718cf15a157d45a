// How long orders take from acceptance to their earn being recorded, for the
// scenarios that drain work while orders arrive (lanes, accounts).
import type { Engine } from '../../src/core/engine.ts';

/** Watches orders until each has earned; resolves with each one's milliseconds from acceptance. */
export function earnTimes(engine: Engine) {
  const pending = new Map<string, number>();
  const times: number[] = [];
  const timer = setInterval(() => {
    for (const [key, at] of [...pending]) {
      void engine.store.getOrder(key).then((record) => {
        if (record?.upstream.points === 'earned' && pending.delete(key)) times.push(performance.now() - at);
      });
    }
  }, 20);
  return {
    watch: (key: string) => pending.set(key, performance.now()),
    async done(): Promise<number[]> {
      while (pending.size > 0) await new Promise((resolve) => setTimeout(resolve, 20));
      clearInterval(timer);
      return times;
    },
  };
}
