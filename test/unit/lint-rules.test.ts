// The size and shape rules of eslint.config.js fire where the issue asks (issue 70): an optional member on a
// capability, a file over 400 lines, a function over 80. Each text is linted as if it were a file of src/ that is
// on no exception list (the project's type-aware parser needs a file it knows; the text replaces its content).
import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const AS_CAPABILITY = 'src/core/capabilities/widget.ts';
const AS_SOURCE = 'src/core/platform-name.ts';

// One linter for every text: its type-aware parser is what takes the time.
const eslint = new ESLint({ cwd: ROOT });

async function rulesFired(text: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(text, { filePath });
  return result!.messages.map((message) => message.ruleId ?? `parse: ${message.message}`);
}

describe('the lint rules of issue 70', () => {
  it('refuse an optional member on a capability, a property or a method', async () => {
    const optional =
      'export interface Widget {\n  put(shop: string): Promise<void>;\n  present?: boolean;\n  remove?(shop: string): Promise<void>;\n}\n';
    expect(await rulesFired(optional, AS_CAPABILITY)).toEqual(['no-restricted-syntax', 'no-restricted-syntax']);
    const whole = 'export interface Widget {\n  put(shop: string): Promise<void>;\n  present: boolean;\n}\n';
    expect(await rulesFired(whole, AS_CAPABILITY)).toEqual([]);
  }, 60_000);

  it('refuse a file over 400 lines, and take one of 400', async () => {
    const lines = (n: number) =>
      Array.from({ length: n }, (_, i) => `export const value${i} = ${i};`).join('\n') + '\n';
    expect(await rulesFired(lines(401), AS_SOURCE)).toContain('max-lines');
    expect(await rulesFired(lines(400), AS_SOURCE)).toEqual([]);
  }, 60_000);

  it('refuse a function over 80 lines, blank lines and comments apart', async () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  total += ${i};\n\n  // a comment`).join('\n');
    const fn = (n: number) => `export function long(): number {\n  let total = 0;\n${body(n)}\n  return total;\n}\n`;
    // The signature, the first and last lines and the closing brace are 4 of its lines.
    expect(await rulesFired(fn(77), AS_SOURCE)).toContain('max-lines-per-function');
    expect(await rulesFired(fn(76), AS_SOURCE)).toEqual([]);
  }, 60_000);
});
