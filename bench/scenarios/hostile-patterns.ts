// A merchant's discount-code pattern against the longest code a platform
// sends (255 characters), on the engine patterns run on (RE2, re2js: see
// src/core/code-pattern.ts), beside JavaScript's own engine on the same
// pattern with a code of only 20 characters: the backtracking the bridge no
// longer does (each added character doubles it, issue 46: 33.6 s at 33).
import { performance } from 'node:perf_hooks';
import { codePattern } from '../../src/core/code-pattern.ts';

export interface HostilePatternRun {
  pattern: string;
  /** RE2, a 255-character code that does not match: microseconds a match, the median of runs. */
  re2MicrosPerMatch: number;
  /** JavaScript's engine, a 20-character code: milliseconds for one match. */
  backtrackingMsAt20: number;
}

export const HOSTILE_PATTERNS = ['^(a|a)*$', '.*.*.*.*.*.*=', '^(a+)+$', '^(([a-z])+.)+[A-Z]([a-z])+$'];

export function hostilePatternsScenario(matches: number): HostilePatternRun[] {
  const code = `${'a'.repeat(254)}!`;
  return HOSTILE_PATTERNS.map((source) => {
    const pattern = codePattern(source);
    const runs: number[] = [];
    for (let run = 0; run < 5; run++) {
      const started = performance.now();
      for (let n = 0; n < matches; n++) pattern.test(code);
      runs.push(((performance.now() - started) * 1000) / matches);
    }
    runs.sort((a, b) => a - b);
    const backtracking = new RegExp(source, 'i');
    const started = performance.now();
    backtracking.test(`${'a'.repeat(19)}!`);
    return {
      pattern: source,
      re2MicrosPerMatch: Number(runs[2]!.toFixed(1)),
      backtrackingMsAt20: Number((performance.now() - started).toFixed(1)),
    };
  });
}
