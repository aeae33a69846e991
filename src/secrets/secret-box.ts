// Authenticated encryption of secrets at rest (AES-256-GCM). The key comes from
// SECRET_KEY, or from a key file created on first start readable by its owner only (key-file.ts).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { loadKey } from './key-file.js';

export { decodeKey } from './key-file.js';

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
// The version names the algorithm and layout, so that a later scheme can read old rows.
const VERSION = 'v1';

export interface SecretBox {
  /** `context` binds the ciphertext to its use: it must be given again to open it. */
  seal(plain: string, context: string): string;
  open(sealed: string, context: string): string;
}

export function loadSecretKey(secretKey: string | undefined, keyFile: string): Buffer {
  return loadKey(secretKey, 'SECRET_KEY', keyFile);
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
