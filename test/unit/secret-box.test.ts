// The box that seals secrets at rest: a round trip, a fresh IV each time,
// values that say which key sealed them (by a digest, never the key), either
// key of a rotation opening, a key not held and a tampered value refused
// with errors that quote nothing secret; and SECRETS_KEY checked per key.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import {
  isSealed,
  keyIdOf,
  MAKE_KEY,
  SecretBox,
  SecretDamagedError,
  SecretKeyUnknownError,
  sealedKeyId,
  secretsKeyProblem,
} from '../../src/secrets/secret-box.ts';

const OLD = randomBytes(32);
const NEW = randomBytes(32);
const PLAIN = 'shpat_PLAIN-token-0123456789abcdef';
const CONTEXT = 'session:accessToken:shopify:a.myshopify.com';

/** A sealed value with one of its parts changed: [key id, iv, tag, ciphertext] are parts 2 to 5. */
function withPart(sealed: string, part: number, change: (text: string) => string): string {
  const parts = sealed.split(':');
  parts[part] = change(parts[part]!);
  return parts.join(':');
}
const flipFirst = (text: string) => (text[0] === 'A' ? 'B' : 'A') + text.slice(1);

describe('SecretBox', () => {
  it('opens what it sealed, and seals the same value differently each time (a fresh IV)', () => {
    const box = new SecretBox(NEW);
    const sealed = box.seal(PLAIN, CONTEXT);
    expect(isSealed(sealed)).toBe(true);
    expect(sealed).toMatch(new RegExp(`^sealed:v1:${box.keyId}:[\\w-]{16}:[\\w-]{22}:[\\w-]+$`));
    expect(sealed).not.toContain(PLAIN);
    expect(box.open(sealed, CONTEXT)).toBe(PLAIN);
    expect(box.seal(PLAIN, CONTEXT)).not.toBe(sealed);
    expect(box.open(box.seal('ünïcödé ✓', ''), '')).toBe('ünïcödé ✓');
  });

  it('names its key by a short digest, never the key', () => {
    const box = new SecretBox(NEW);
    expect(box.keyId).toBe(keyIdOf(NEW));
    expect(box.keyId).toMatch(/^[0-9a-f]{12}$/);
    expect(sealedKeyId(box.seal(PLAIN))).toBe(box.keyId);
    for (const form of [NEW.toString('base64'), NEW.toString('hex'), NEW.toString('base64url')])
      expect(box.seal(PLAIN)).not.toContain(form.slice(0, 12));
    expect(keyIdOf(OLD)).not.toBe(box.keyId);
  });

  it('opens values of the previous key during a rotation, and seals only under the new one', () => {
    const sealedOld = new SecretBox(OLD).seal(PLAIN, CONTEXT);
    const rotating = new SecretBox(NEW, OLD);
    expect(rotating.open(sealedOld, CONTEXT)).toBe(PLAIN);
    expect(sealedKeyId(rotating.seal(PLAIN, CONTEXT))).toBe(keyIdOf(NEW));
    expect(rotating.previousKeyId).toBe(keyIdOf(OLD));
  });

  it('refuses a value under a key it does not hold, naming key ids and the place, never a value', () => {
    const sealedNew = new SecretBox(NEW).seal(PLAIN, CONTEXT);
    const old = new SecretBox(OLD);
    const error = (() => {
      try {
        old.open(sealedNew, CONTEXT, "the accessToken of the 'session' record shopify:a");
      } catch (caught) {
        return caught as SecretKeyUnknownError;
      }
    })();
    expect(error).toBeInstanceOf(SecretKeyUnknownError);
    expect(error?.code).toBe('secret_key_unknown');
    expect(error?.message).toContain(`sealed with key ${keyIdOf(NEW)}`);
    expect(error?.message).toContain(`it holds ${keyIdOf(OLD)}`);
    expect(error?.message).toContain("the accessToken of the 'session' record shopify:a");
    expect(error?.message).not.toContain(PLAIN);
    expect(error?.message).not.toContain(sealedNew.split(':').at(-1));
  });

  it.each<[string, (sealed: string) => string]>([
    ['a changed ciphertext', (sealed) => withPart(sealed, 5, flipFirst)],
    ['a changed tag', (sealed) => withPart(sealed, 4, flipFirst)],
    ['a changed IV', (sealed) => withPart(sealed, 3, flipFirst)],
    ['a cut ciphertext', (sealed) => sealed.slice(0, -2)],
    ['a missing part', (sealed) => sealed.split(':').slice(0, 5).join(':')],
    ['an extra part', (sealed) => `${sealed}:AAAA`],
  ])('refuses %s as damaged', (_what, tamper) => {
    const box = new SecretBox(NEW);
    const tampered = tamper(box.seal(PLAIN, CONTEXT));
    expect(() => box.open(tampered, CONTEXT)).toThrow(SecretDamagedError);
    try {
      box.open(tampered, CONTEXT);
    } catch (error) {
      expect((error as Error).message).not.toContain(PLAIN);
    }
  });

  it('refuses a value moved to another place (its context is bound in)', () => {
    const box = new SecretBox(NEW);
    const sealed = box.seal(PLAIN, CONTEXT);
    expect(() => box.open(sealed, 'session:accessToken:shopify:b.myshopify.com')).toThrow(SecretDamagedError);
  });
});

describe('SECRETS_KEY and SECRETS_KEY_PREVIOUS', () => {
  const KEY = NEW.toString('base64');
  const errorsOf = (env: Record<string, string>) => {
    const result = loadConfig({ env });
    return result.ok ? [] : result.errors;
  };

  it('take 32 bytes in base64', () => {
    const result = loadConfig({ env: { SECRETS_KEY: KEY, SECRETS_KEY_PREVIOUS: OLD.toString('base64') } });
    expect(result.ok).toBe(true);
  });

  it.each<[string, Record<string, string>, string]>([
    ['not base64', { SECRETS_KEY: 'not base64 at all!' }, 'SECRETS_KEY (environment): must be base64'],
    [
      '16 bytes',
      { SECRETS_KEY: randomBytes(16).toString('base64') },
      'SECRETS_KEY (environment): must be 32 bytes in base64 (44 characters), not 16 bytes',
    ],
    [
      'a previous key of the wrong length',
      { SECRETS_KEY: KEY, SECRETS_KEY_PREVIOUS: randomBytes(33).toString('base64') },
      'SECRETS_KEY_PREVIOUS (environment): must be 32 bytes in base64 (44 characters), not 33 bytes',
    ],
    [
      'a previous key without a key',
      { SECRETS_KEY_PREVIOUS: KEY },
      'SECRETS_KEY: is required when SECRETS_KEY_PREVIOUS is set',
    ],
    [
      'the same key twice',
      { SECRETS_KEY: KEY, SECRETS_KEY_PREVIOUS: KEY },
      'SECRETS_KEY_PREVIOUS (environment): is the same key as SECRETS_KEY',
    ],
  ])('refuse %s, per key, with the line that makes one, and never the value', (_what, env, expected) => {
    const errors = errorsOf(env);
    expect(errors.some((line) => line.startsWith(expected))).toBe(true);
    for (const value of Object.values(env)) expect(errors.join('\n')).not.toContain(value);
    if (!expected.includes('required') && !expected.includes('same')) expect(errors.join('\n')).toContain(MAKE_KEY);
  });

  it('are checked by one function, which quotes nothing of the text', () => {
    expect(secretsKeyProblem(KEY)).toBeUndefined();
    expect(secretsKeyProblem('secret-ish text')).not.toContain('secret-ish');
  });
});
