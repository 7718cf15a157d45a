// Resync progress for people: a bar on a terminal, plain lines otherwise
// (logs, CI, pipes), so the output stays readable wherever it goes.
import cliProgress from 'cli-progress';
import type { ResyncProgress } from '../core/resync.ts';

export interface ProgressReporter {
  update(progress: ResyncProgress): void;
  stop(): void;
}

export function progressReporter(stream: NodeJS.WriteStream = process.stdout): ProgressReporter {
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        format: 'resync {bar} fetched {fetched} | changed {changed} | unchanged {unchanged} | failed {failed}',
        hideCursor: true,
        stream,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(1, 0, { fetched: 0, changed: 0, unchanged: 0, failed: 0 });
    return {
      // The total, when the platform counted the orders first; otherwise how far through what has been fetched so far.
      update: (progress) => {
        bar.setTotal(Math.max(1, progress.expected ?? 0, progress.fetched));
        bar.update(progress.changed + progress.unchanged + progress.failed, { ...progress });
      },
      stop: () => bar.stop(),
    };
  }
  let lastLine = '';
  return {
    update: (progress) => {
      const line = `fetched ${progress.fetched}${progress.expected !== undefined ? ` of ${progress.expected}` : ''}, changed ${progress.changed}, unchanged ${progress.unchanged}, failed ${progress.failed}`;
      // One line per 100 orders, and none for a repeat.
      if (line !== lastLine && (progress.fetched % 100 === 0 || progress.failed > 0)) stream.write(`${line}\n`);
      lastLine = line;
    },
    stop: () => undefined,
  };
}
