// Authenticated encryption of secrets at rest (AES-256-GCM). The key comes from
// SECRET_KEY, or from a key file created on first start readable by its owner only.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigError } from '../errors/config-error.js';

const ALGORITHM = 'aes-256-gcm';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
// The version names the algorithm and layout, so that a later scheme can read old rows.
const VERSION = 'v1';

export interface SecretBox {
  /** `context` binds the ciphertext to its use: it must be given again to open it. */
  seal(plain: string, context: string): string;
  open(sealed: string, context: string): string;
}

export function decodeKey(raw: string, origin: string): Buffer {
  const text = raw.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== KEY_BYTES || (!/^[0-9a-fA-F]{64}$/.test(text) && key.toString('base64') !== text)) {
    throw new ConfigError(`${origin} must hold ${KEY_BYTES} bytes as 64 hex digits or base64`);
  }
  return key;
}

function readOrCreateKeyFile(path: string): Buffer {
  try {
    return decodeKey(readFileSync(path, 'utf8'), `the key file ${path}`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    // 'wx' fails if another instance created the file meanwhile: then read theirs.
    writeFileSync(path, `${randomBytes(KEY_BYTES).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return decodeKey(readFileSync(path, 'utf8'), `the key file ${path}`);
}

export function loadSecretKey(secretKey: string | undefined, keyFile: string): Buffer {
  return secretKey !== undefined ? decodeKey(secretKey, 'SECRET_KEY') : readOrCreateKeyFile(keyFile);
}

export function createSecretBox(key: Buffer): SecretBox {
  return {
    seal(plain, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv(ALGORITHM, key, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
    },
    open(sealed, context) {
      const [version, payload] = sealed.split(':', 2);
      if (version !== VERSION || payload === undefined) throw new Error('unknown secret format');
      const bytes = Buffer.from(payload, 'base64');
      const decipher = createDecipheriv(ALGORITHM, key, bytes.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    },
  };
}
