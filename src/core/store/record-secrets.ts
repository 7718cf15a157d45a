// Secrets at rest, at the store's record boundary: which fields of which record kinds are secrets (the
// bridge's own, and those the platforms' modules declare), sealed as a record is written and opened as it is read, so that callers see plain values and never
// touch crypto. Without SECRETS_KEY, outside sandbox mode, a new secret is refused while a plain one already
// kept is still read; with a key every write seals, and reseal() seals anew the plain values and those under
// SECRETS_KEY_PREVIOUS when a store opens (docs/upgrading.md).
import { BridgeError } from '../../errors.ts';
import {
  isSealed,
  MAKE_KEY,
  sealedKeyId,
  SecretDamagedError,
  SecretKeyUnknownError,
  type SecretBox,
} from '../../secrets/secret-box.ts';
import type { RecordKind, SecretCounts, SecretsNote, SecretsStatus } from './ledger-store.ts';
import { isPlainRecord } from '../../plain-record.ts';

/** Kinds of record and the fields of each that hold a secret: sealed from a field's first write. */
export type SecretFields = Readonly<Partial<Record<RecordKind, readonly string[]>>>;

/**
 * The bridge's own kinds, and a platform's access to a shop ('session': the tokens, keys and webhook secrets
 * the shipped platforms keep there). A platform's own kinds and fields come from its module (PlatformModule.records).
 */
const OWN_SECRET_FIELDS: SecretFields = {
  session: ['accessToken', 'refreshToken', 'consumerKey', 'consumerSecret', 'webhookSecret', 'headerSecret'],
  'sandbox-credentials': ['apiKey'],
  'page-key': ['key'],
  account: ['apiKey'],
};

/** What a store's open did: plain values sealed, values under the previous key sealed under the current one. */
export interface ResealReport {
  sealed: number;
  resealed: number;
}

export const noSecrets = (): SecretCounts => ({ plain: 0, current: 0, previous: 0, unknown: 0 });

export class SecretsKeyMissingError extends BridgeError<'secrets_key_missing'> {
  constructor(where: string, why = 'outside sandbox mode secrets are kept only sealed, and SECRETS_KEY is not set') {
    const fix = `Make a key with ${MAKE_KEY}, set it as SECRETS_KEY, and restart`;
    super('secrets_key_missing', `Refused to store ${where} in plain text: ${why}. ${fix}.`, { fix });
  }
}

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields => isPlainRecord(value);

/** The secret fields a value holds (non-empty strings): a shape with none is left alone. */
function secretsOf(fields: readonly string[] | undefined, value: unknown): Array<[string, string]> {
  if (!fields || !isObject(value)) return [];
  return fields.flatMap((field) => {
    const found = value[field];
    return typeof found === 'string' && found !== '' ? [[field, found] as [string, string]] : [];
  });
}

/** Bound into each sealed value: a value moved to another record or field does not open. */
const contextOf = (kind: RecordKind, id: string, field: string) => `${kind}:${field}:${id}`;
const whereOf = (kind: RecordKind, id: string, field: string) => `the ${field} of the '${kind}' record ${id}`;

export interface RecordSecretsOptions {
  /** Absent: no SECRETS_KEY. */
  box?: SecretBox | undefined;
  /** Without a key, new secrets are kept plain (sandbox mode) rather than refused. */
  plainAllowed: boolean;
  /** The platforms' own kinds and fields (PlatformModule.records), beside the bridge's own. */
  declared?: readonly SecretFields[];
}

export class RecordSecrets {
  readonly #box: SecretBox | undefined;
  readonly plainAllowed: boolean;
  readonly #fields = new Map<RecordKind, readonly string[]>();

  constructor({ box, plainAllowed, declared = [] }: RecordSecretsOptions) {
    this.#box = box;
    this.plainAllowed = plainAllowed;
    for (const fields of [OWN_SECRET_FIELDS, ...declared])
      for (const [kind, names] of Object.entries(fields) as Array<[RecordKind, readonly string[]]>)
        this.#fields.set(kind, [...new Set([...(this.#fields.get(kind) ?? []), ...names])]);
  }

  /** Every kind of record that may hold a secret. */
  get kinds(): RecordKind[] {
    return [...this.#fields.keys()];
  }

  /** No key, plain values: what a store is given when nobody says otherwise (tests, benchmarks). */
  static plain(): RecordSecrets {
    return new RecordSecrets({ plainAllowed: true });
  }

  get sealing(): boolean {
    return this.#box !== undefined;
  }

  /**
   * Refusing new secrets needs what the record holds now: whether a write
   * needs it read first (no key, outside sandbox mode, a secret in the value).
   */
  needsStored(kind: RecordKind, value: unknown): boolean {
    return !this.#box && !this.plainAllowed && secretsOf(this.#fields.get(kind), value).length > 0;
  }

  /** The record as it is kept: each secret sealed. `stored` is what the record holds now, as kept (for refusing only new secrets). */
  seal<T>(kind: RecordKind, id: string, value: T, stored?: unknown): T {
    const secrets = secretsOf(this.#fields.get(kind), value);
    if (secrets.length === 0) return value;
    const kept: Fields = { ...(value as Fields) };
    for (const [field, plain] of secrets) {
      if (this.#box) {
        kept[field] = this.#box.seal(plain, contextOf(kind, id, field));
        continue;
      }
      // Kept plain, it would be read back as a sealed value.
      if (isSealed(plain))
        throw new SecretsKeyMissingError(
          whereOf(kind, id, field),
          'it looks like a sealed value, and SECRETS_KEY is not set',
        );
      const unchanged = isObject(stored) && stored[field] === plain;
      if (!this.plainAllowed && !unchanged)
        throw new SecretsKeyMissingError(`a new secret (${whereOf(kind, id, field)})`);
    }
    return kept as T;
  }

  /** The record as callers see it: each secret opened. A value under a key not held fails the read, with what to do. */
  open<T>(kind: RecordKind, id: string, stored: T): T {
    const sealed = secretsOf(this.#fields.get(kind), stored).filter(([, value]) => isSealed(value));
    if (sealed.length === 0) return stored;
    const plain: Fields = { ...(stored as Fields) };
    for (const [field, value] of sealed) {
      const where = whereOf(kind, id, field);
      if (!this.#box) throw new SecretKeyUnknownError(where, sealedKeyId(value), []);
      plain[field] = this.#box.open(value, contextOf(kind, id, field), where);
    }
    return plain as T;
  }

  /**
   * A record as it should be kept now, or undefined when it is already:
   * plain secrets sealed, and those under the previous key sealed under the
   * current one. Nothing without a key; a value under a key not held, or one
   * that does not open (damaged), is left as it is: its read fails, the start
   * does not, and status counts it.
   */
  reseal(kind: RecordKind, id: string, stored: unknown): ({ value: unknown } & ResealReport) | undefined {
    const box = this.#box;
    if (!box) return undefined;
    let changed: Fields | undefined;
    const report: ResealReport = { sealed: 0, resealed: 0 };
    for (const [field, value] of secretsOf(this.#fields.get(kind), stored)) {
      const keyId = sealedKeyId(value);
      if (keyId === box.keyId || (keyId !== undefined && !box.holds(keyId))) continue;
      const context = contextOf(kind, id, field);
      let plain = value;
      if (keyId !== undefined) {
        try {
          plain = box.open(value, context, whereOf(kind, id, field));
        } catch (error) {
          if (error instanceof SecretDamagedError) continue;
          throw error;
        }
      }
      changed ??= { ...(stored as Fields) };
      changed[field] = box.seal(plain, context);
      if (keyId === undefined) report.sealed++;
      else report.resealed++;
    }
    return changed ? { value: changed, ...report } : undefined;
  }

  /** Adds a record's secrets to the counts. */
  count(kind: RecordKind, stored: unknown, counts: SecretCounts): void {
    for (const [, value] of secretsOf(this.#fields.get(kind), stored)) {
      const keyId = sealedKeyId(value);
      if (keyId === undefined) counts.plain++;
      else if (keyId === this.#box?.keyId) counts.current++;
      else if (keyId === this.#box?.previousKeyId) counts.previous++;
      else counts.unknown++;
    }
  }

  /** What to tell the operator about these counts (and what an open just did). */
  status(counts: SecretCounts, done: ResealReport = { sealed: 0, resealed: 0 }): SecretsStatus {
    const box = this.#box;
    const notes: SecretsNote[] = [];
    const info = (message: string) => notes.push({ level: 'info', message });
    const warn = (message: string) => notes.push({ level: 'warn', message });
    if (box) {
      const previous = `SECRETS_KEY_PREVIOUS (key ${box.previousKeyId})`;
      if (done.sealed > 0)
        info(
          `secrets kept in plain text until this start, now sealed under SECRETS_KEY (key ${box.keyId}): ${done.sealed}`,
        );
      if (done.resealed > 0)
        info(`secrets sealed under ${previous}, now sealed under SECRETS_KEY (key ${box.keyId}): ${done.resealed}`);
      if (box.previousKeyId && counts.previous === 0)
        info(
          `nothing in the ledger is sealed under ${previous} any more: once no instance runs with that key alone, remove SECRETS_KEY_PREVIOUS`,
        );
      if (box.previousKeyId && counts.previous > 0)
        warn(
          `secrets still sealed under ${previous}, written by an instance that holds only that key: ${counts.previous}. Once none does, restart one instance with both keys to seal them under SECRETS_KEY; keep SECRETS_KEY_PREVIOUS until then`,
        );
      if (counts.plain > 0)
        warn(`secrets in plain text: ${counts.plain}. The next start of the bridge seals them under SECRETS_KEY`);
      if (counts.unknown > 0)
        warn(
          `secrets sealed under a key this instance does not hold (it holds ${box.heldKeyIds().join(' and ')}): ${counts.unknown}. Reading them fails until SECRETS_KEY is that key (or, during a rotation, SECRETS_KEY_PREVIOUS)`,
        );
    } else {
      if (!this.plainAllowed)
        warn(
          `SECRETS_KEY is not set: a new secret (a store's token, key or webhook secret) is refused${counts.plain > 0 ? `, and the secrets the ledger holds (${counts.plain}) stay in plain text until a start with a key seals them` : ''}. Make a key with ${MAKE_KEY} and set it as SECRETS_KEY`,
        );
      else if (counts.plain > 0)
        info(
          `sandbox mode without SECRETS_KEY: secrets are kept in plain text (${counts.plain} in the ledger); set SECRETS_KEY to seal them`,
        );
      if (counts.unknown > 0)
        warn(
          `secrets sealed while SECRETS_KEY is not set: ${counts.unknown}. Reading them fails until it is set to the key that sealed them`,
        );
    }
    return { keyId: box?.keyId ?? null, previousKeyId: box?.previousKeyId ?? null, counts, notes };
  }
}
