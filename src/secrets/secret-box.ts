// Secrets at rest: strings sealed with AES-256-GCM under SECRETS_KEY, opened with it or, during a rotation,
// with SECRETS_KEY_PREVIOUS. A sealed value (sealed:v1:<key id>:<iv>:<tag>:<ciphertext>) names its key by a
// short digest, never the key, so a reader tells a plain value from a sealed one and a missing key from
// tampering; its place is bound in as additional data, so a value moved elsewhere does not open. Errors name
// key ids and places, never a value. A library of its own: node:crypto and the errors' base.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { BridgeError } from '../errors.ts';

const PREFIX = 'sealed:v1:';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** How a person makes a key: the line every message about a missing key ends with. */
export const MAKE_KEY = `node -e "console.log(require('crypto').randomBytes(32).toString('base64'))"`;

export const isSealed = (value: string): boolean => value.startsWith(PREFIX);

/** The key id of a sealed value, or undefined for a plain one. */
export const sealedKeyId = (value: string): string | undefined =>
  isSealed(value) ? value.slice(PREFIX.length).split(':')[0] : undefined;

/** A short digest of a key: tells keys apart in sealed values and messages, and reveals nothing of the key. */
export const keyIdOf = (key: Buffer): string =>
  createHmac('sha256', key).update('loyalty-bridge secrets key id').digest('hex').slice(0, 12);

/** Why a text is not a key (32 bytes, base64), or undefined. Never quotes the text. */
export function secretsKeyProblem(text: string): string | undefined {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(trimmed) || trimmed.length % 4 !== 0)
    return `must be base64 (32 random bytes); make one with: ${MAKE_KEY}`;
  const bytes = Buffer.from(trimmed, 'base64').length;
  if (bytes !== KEY_BYTES)
    return `must be 32 bytes in base64 (44 characters), not ${bytes} bytes; make one with: ${MAKE_KEY}`;
  return undefined;
}

/** A key from its base64 text, checked as the configuration checks it. */
export function secretsKeyFrom(text: string): Buffer {
  const problem = secretsKeyProblem(text);
  if (problem) throw new Error(`the key ${problem}`);
  return Buffer.from(text.trim(), 'base64');
}

/** A sealed value under a key this box does not hold: another release's key, or the new key of a rotation. */
export class SecretKeyUnknownError extends BridgeError<'secret_key_unknown'> {
  readonly keyId: string | undefined;
  constructor(where: string, keyId: string | undefined, held: string[]) {
    const fix =
      held.length === 0
        ? 'Set SECRETS_KEY to the key that sealed it (the one the other instances, or the last start, had)'
        : 'Give this instance the key that sealed it: during a rotation, the new key as SECRETS_KEY and the old one as SECRETS_KEY_PREVIOUS, as on the instances already restarted';
    super(
      'secret_key_unknown',
      `${where} is sealed with key ${keyId ?? '(unreadable)'}, which this instance does not hold (${
        held.length === 0 ? 'SECRETS_KEY is not set' : `it holds ${held.join(' and ')}`
      }): it cannot be read. ${fix}.`,
      { fix },
    );
    this.keyId = keyId;
  }
}

/** A sealed value that does not open under the key it names: changed after it was sealed, moved, or damaged. */
export class SecretDamagedError extends BridgeError<'secret_damaged'> {
  constructor(where: string, keyId: string) {
    const fix =
      'It cannot be used: have it made again (install or connect the store again, or enter the key again); if many are, check that SECRETS_KEY is the key that sealed them';
    super(
      'secret_damaged',
      `${where} does not open under key ${keyId}: it was changed after it was sealed, or is damaged. ${fix}.`,
      { fix },
    );
  }
}

const b64 = (bytes: Buffer) => bytes.toString('base64url');

export class SecretBox {
  readonly #keys = new Map<string, Buffer>();
  /** The id of the key new values are sealed with (SECRETS_KEY). */
  readonly keyId: string;
  /** The id of the key kept for reading only during a rotation (SECRETS_KEY_PREVIOUS). */
  readonly previousKeyId: string | undefined;

  constructor(key: Buffer, previous?: Buffer) {
    if (key.length !== KEY_BYTES || (previous && previous.length !== KEY_BYTES))
      throw new Error('a secrets key is 32 bytes');
    this.keyId = keyIdOf(key);
    this.#keys.set(this.keyId, Buffer.from(key));
    this.previousKeyId = previous && !previous.equals(key) ? keyIdOf(previous) : undefined;
    if (previous && this.previousKeyId) this.#keys.set(this.previousKeyId, Buffer.from(previous));
  }

  /** Whether a value sealed under this key id opens here. */
  holds(keyId: string | undefined): boolean {
    return keyId !== undefined && this.#keys.has(keyId);
  }

  /** Seals under SECRETS_KEY, with a fresh IV each time. `context` must be the same when it is opened. */
  seal(plain: string, context = ''): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#keys.get(this.keyId)!, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${PREFIX}${this.keyId}:${b64(iv)}:${b64(cipher.getAuthTag())}:${b64(ciphertext)}`;
  }

  /**
   * The plain value of a sealed one, under whichever key sealed it.
   * `where` names the value in errors (a record and field, never the value).
   */
  open(sealed: string, context = '', where = 'a secret'): string {
    const [keyId, iv, tag, ciphertext, ...rest] = isSealed(sealed) ? sealed.slice(PREFIX.length).split(':') : [];
    const key = keyId === undefined ? undefined : this.#keys.get(keyId);
    if (!key) throw new SecretKeyUnknownError(where, keyId, this.heldKeyIds());
    if (iv === undefined || tag === undefined || ciphertext === undefined || rest.length > 0)
      throw new SecretDamagedError(where, keyId!);
    try {
      const ivBytes = Buffer.from(iv, 'base64url');
      const tagBytes = Buffer.from(tag, 'base64url');
      if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES) throw new Error('wrong length');
      const decipher = createDecipheriv('aes-256-gcm', key, ivBytes, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(tagBytes);
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      // node's message says only "Unsupported state or unable to authenticate data": nothing of the value.
      throw new SecretDamagedError(where, keyId!);
    }
  }

  heldKeyIds(): string[] {
    return [this.keyId, ...(this.previousKeyId ? [this.previousKeyId] : [])];
  }
}
