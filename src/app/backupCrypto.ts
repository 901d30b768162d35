/**
 * The optional keys section of a backup (docs/storage.md, "Backup and restore"): API keys leave
 * the app only when the user ticks "Include API keys", and then only encrypted with a passphrase
 * they type. PBKDF2-SHA-256 turns the passphrase into an AES-GCM key; the passphrase itself is
 * never stored, and a wrong one fails the GCM tag check, which we report as a wrong passphrase.
 */
import { base64ToBytes, bytesToBase64 } from './backupManifest';

export const PBKDF2_ITERATIONS = 310_000;

export interface EncryptedSecrets {
  version: 1;
  kdf: 'PBKDF2-SHA-256';
  iterations: number;
  cipher: 'AES-GCM-256';
  salt: string;
  iv: string;
  ciphertext: string;
}

export class WrongPassphraseError extends Error {
  override readonly name = 'WrongPassphraseError';
  constructor() {
    super('The passphrase does not open the API keys in this backup. Type it again, or restore without the keys.');
  }
}

async function deriveKey(passphrase: string, salt: Uint8Array, iterations: number): Promise<CryptoKey> {
  const material = await crypto.subtle.importKey('raw', new TextEncoder().encode(passphrase), 'PBKDF2', false, ['deriveKey']);
  return crypto.subtle.deriveKey(
    { name: 'PBKDF2', hash: 'SHA-256', salt: salt as Uint8Array<ArrayBuffer>, iterations },
    material,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );
}

export async function encryptSecrets(value: unknown, passphrase: string, iterations = PBKDF2_ITERATIONS): Promise<EncryptedSecrets> {
  if (passphrase.length === 0) throw new Error('Type a passphrase to include API keys in the backup.');
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const key = await deriveKey(passphrase, salt, iterations);
  const plain = new TextEncoder().encode(JSON.stringify(value));
  const ciphertext = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, plain));
  return {
    version: 1,
    kdf: 'PBKDF2-SHA-256',
    iterations,
    cipher: 'AES-GCM-256',
    salt: bytesToBase64(salt),
    iv: bytesToBase64(iv),
    ciphertext: bytesToBase64(ciphertext),
  };
}

export function isEncryptedSecrets(value: unknown): value is EncryptedSecrets {
  const v = value as Partial<EncryptedSecrets> | null;
  return (
    v?.version === 1 &&
    v.kdf === 'PBKDF2-SHA-256' &&
    v.cipher === 'AES-GCM-256' &&
    typeof v.iterations === 'number' &&
    v.iterations > 0 &&
    typeof v.salt === 'string' &&
    typeof v.iv === 'string' &&
    typeof v.ciphertext === 'string'
  );
}

export async function decryptSecrets(envelope: EncryptedSecrets, passphrase: string): Promise<unknown> {
  const key = await deriveKey(passphrase, base64ToBytes(envelope.salt), envelope.iterations);
  let plain: ArrayBuffer;
  try {
    plain = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: base64ToBytes(envelope.iv) as Uint8Array<ArrayBuffer> },
      key,
      base64ToBytes(envelope.ciphertext) as Uint8Array<ArrayBuffer>,
    );
  } catch {
    throw new WrongPassphraseError();
  }
  return JSON.parse(new TextDecoder().decode(plain));
}

/**
 * Splits secrets out of settings records: every property named `apiKey` (a provider's key) or
 * `token` (a sync place's token, docs/sync.md) with a non-empty value
 * is blanked in the copy that goes into the backup and returned as `{ settingsKey: { path: value } }`.
 */
export function extractSecrets(settings: readonly [string, unknown][]): { cleaned: [string, unknown][]; secrets: Record<string, Record<string, string>> } {
  const secrets: Record<string, Record<string, string>> = {};
  const cleaned = settings.map(([key, value]): [string, unknown] => {
    const found: Record<string, string> = {};
    const copy = blankKeys(value, '', found);
    if (Object.keys(found).length > 0) secrets[key] = found;
    return [key, copy];
  });
  return { cleaned, secrets };
}

const SECRET_FIELDS = new Set(['apiKey', 'token']);

function blankKeys(value: unknown, path: string, found: Record<string, string>): unknown {
  if (Array.isArray(value)) return value.map((item, i) => blankKeys(item, `${path}${i}/`, found));
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return value;
  const out: Record<string, unknown> = {};
  for (const [name, inner] of Object.entries(value)) {
    if (SECRET_FIELDS.has(name) && typeof inner === 'string' && inner !== '') {
      found[`${path}${name}`] = inner;
      out[name] = '';
    } else out[name] = blankKeys(inner, `${path}${name}/`, found);
  }
  return out;
}

/** Puts decrypted keys back into settings records (paths as extractSecrets wrote them). */
export function insertSecrets(settings: [string, unknown][], secrets: unknown): [string, unknown][] {
  if (secrets === null || typeof secrets !== 'object') return settings;
  return settings.map(([key, value]) => {
    const forKey = (secrets as Record<string, unknown>)[key];
    if (forKey === null || typeof forKey !== 'object') return [key, value];
    const copy = structuredClone(value) as Record<string, unknown>;
    for (const [path, secret] of Object.entries(forKey as Record<string, unknown>)) {
      if (typeof secret !== 'string') continue;
      const parts = path.split('/');
      let target: Record<string, unknown> | undefined = copy;
      for (const part of parts.slice(0, -1)) target = target?.[part] as Record<string, unknown> | undefined;
      if (target && typeof target === 'object') target[parts[parts.length - 1]!] = secret;
    }
    return [key, copy];
  });
}
