// Discount-code patterns (REDEEM_CODE_PATTERN, REFERRAL_REFERRER_DISCOUNT_PATTERN)
// come from the environment or from an account's settings, which a merchant
// (a stranger, with an open install) may write. JavaScript's own engine
// backtracks: a pattern such as ^(a|a)*$ takes seconds on a code of 32
// characters, and every merchant's webhooks wait on that one event loop.
// Patterns run on re2js instead, a port of RE2: matching takes time linear in
// the code whatever the pattern, and RE2's syntax has no lookaround and no
// backreference, the features that need backtracking.
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

/** The pattern on RE2, or why RE2 cannot run it, in words for whoever wrote it. */
export function compileCodePattern(source: string): CompiledPattern {
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(source, RE2JS.CASE_INSENSITIVE);
  } catch (error) {
    return { ok: false, reason: whyNot(error) };
  }
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
