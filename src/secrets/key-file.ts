// Server keys of 32 bytes (the encryption key of stored secrets, the key of token digests):
// from an environment variable, or from a key file created on first start, readable by its
// owner only. Every instance on one database must be given the same key.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigError } from '../errors/config-error.js';

export const KEY_BYTES = 32;

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

/** The key of `variable` (its value, named in messages) if set, else of the key file. A key
 * file this process may not read or create stops the start with one sentence, not a stack. */
export function loadKey(value: string | undefined, variable: string, keyFile: string): Buffer {
  if (value !== undefined) return decodeKey(value, variable);
  try {
    return readOrCreateKeyFile(keyFile);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === undefined) throw error;
    throw new ConfigError(`the key file ${keyFile} cannot be read or created (${code}); set ${variable}, or give this user the file and its folder`);
  }
}
