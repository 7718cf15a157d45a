// Discount-code patterns come from the environment or from an account's settings, which a merchant (a
// stranger, with an open install) may write. JavaScript's own engine backtracks (^(a|a)*$ takes seconds on
// 32 characters), and every merchant's webhooks wait on one event loop. So patterns run on re2js, a port of
// RE2: time linear in the code whatever the pattern, and no lookaround or backreference.
import { RE2JS } from 're2js';

/** A compiled pattern; matching is case-insensitive, as the settings always were. */
export interface CodePattern {
  /** The pattern as written. */
  readonly source: string;
  /** Whether the pattern matches somewhere in the code. */
  test(code: string): boolean;
  /** On a match, its first group (undefined when the pattern has none); null when it does not match. */
  firstGroup(code: string): string | undefined | null;
}

export type CompiledPattern = { ok: true; pattern: CodePattern } | { ok: false; reason: string };

/**
 * RE2's time is linear in the code, and in the size of the compiled pattern
 * too: `.{0,1000}` twenty times over compiles to 42,000 instructions (in
 * about a second) and takes 0.2 s a match on a 255-character code. Counted
 * repetitions are bounded before compiling, and the program's size after
 * (programSize); a discount-code pattern is far smaller (^LOYALTY-\d+$: 14,
 * ^GIFT-(\w{1,40})$: 135). At the bound a match takes about a millisecond.
 */
const MAX_REPEATS = 100;
const MAX_SIZE = 200;
/** The configuration's own limit, checked here too: what is longer is neither compiled nor kept. */
const MAX_LENGTH = 200;

/** Compiled patterns by their text: a view or a plan reads a pattern often, and compiles it once. */
const compiledCache = new Map<string, CompiledPattern>();
const CACHE_SIZE = 500;

/** The pattern on RE2, or why RE2 cannot run it, in words for whoever wrote it. */
export function compileCodePattern(source: string): CompiledPattern {
  if (source.length > MAX_LENGTH) return { ok: false, reason: `must be at most ${MAX_LENGTH} characters` };
  const cached = compiledCache.get(source);
  if (cached) return cached;
  const compiled = compileAnew(source);
  if (compiledCache.size >= CACHE_SIZE) compiledCache.delete(compiledCache.keys().next().value!);
  compiledCache.set(source, compiled);
  return compiled;
}

function compileAnew(source: string): CompiledPattern {
  let repeats = 0;
  for (const [, low, high] of source.matchAll(/\{(\d+)(?:,(\d*))?\}/g)) repeats += Number(high || low);
  if (repeats > MAX_REPEATS)
    return { ok: false, reason: `repeats too much: counted repetitions such as {0,100} may add up to ${MAX_REPEATS}` };
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(source, RE2JS.CASE_INSENSITIVE);
  } catch (error) {
    return { ok: false, reason: whyNot(error) };
  }
  if (programSize(compiled) > MAX_SIZE)
    return { ok: false, reason: 'is too large once compiled: repeat less, or split it into a simpler pattern' };
  return {
    ok: true,
    pattern: {
      source,
      test: (code) => compiled.matcher(code).find(),
      firstGroup: (code) => {
        const matcher = compiled.matcher(code);
        if (!matcher.find()) return null;
        return matcher.groupCount() >= 1 ? (matcher.group(1) ?? undefined) : undefined;
      },
    },
  };
}

/** A pattern known to compile (the configuration checked it). */
export function codePattern(source: string): CodePattern {
  const compiled = compileCodePattern(source);
  if (!compiled.ok) throw new Error(`a discount-code pattern does not compile: ${compiled.reason}`);
  return compiled.pattern;
}

/**
 * The compiled program's size, as matching pays for it: an instruction each,
 * and a class's ranges besides (\pL holds 1,370, searched for every
 * character: \pL{0,40} was 40 instructions and took 4 ms a match). re2js
 * keeps the program on its RE2 object; the version is pinned in package.json.
 */
function programSize(compiled: RE2JS): number {
  const inner = (compiled as unknown as { re2Input?: { prog?: { inst?: Array<{ runes?: unknown[] }> } } }).re2Input
    ?.prog?.inst;
  // Should a new re2js keep them elsewhere, no pattern passes: code-pattern.test.ts fails, not production quietly.
  if (!Array.isArray(inner)) return Infinity;
  return inner.reduce((size, inst) => size + 1 + Math.ceil((inst.runes?.length ?? 0) / 32), 0);
}

function whyNot(error: unknown): string {
  // RE2JS names the pattern with its case flag before it ((?i)): the merchant did not write that.
  const detail = (error instanceof Error ? error.message : String(error))
    .replace(/^error parsing regexp: /, '')
    .replaceAll('`(?i)', '`');
  // The features RE2 leaves out on purpose, named so that whoever wrote the pattern knows what to take out.
  if (/\(\?[=!<]/.test(detail)) return 'uses lookaround, such as (?=…) or (?!…), which this bridge cannot run';
  if (/\\[1-9]/.test(detail)) return 'uses a backreference, such as \\1, which this bridge cannot run';
  return `must be a valid regular expression (RE2's syntax): ${detail}`;
}
