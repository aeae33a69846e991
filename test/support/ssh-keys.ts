// Throw-away SSH key pairs made at test time: no key material is ever committed.
import { createHash, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sshpk from 'sshpk';

export interface TestKeyPair {
  type: 'ED25519' | 'RSA';
  /** One OpenSSH public key line. */
  pub: string;
  /** The private key in OpenSSH format. */
  openssh: string;
  /** The private key in PEM (PKCS#1 for RSA, PKCS#8 for Ed25519). */
  pem: string;
  /** SHA256:… computed here from the public key blob, independently of the service. */
  fingerprint: string;
}

/** The fingerprint `ssh-keygen -l` prints: SHA-256 of the key blob, base64 without padding. */
export function fingerprintOf(pubLine: string): string {
  const blob = Buffer.from(pubLine.split(' ')[1] ?? '', 'base64');
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

export function makeKeyPair(type: 'ED25519' | 'RSA', comment = 'test@config-api'): TestKeyPair {
  const { privateKey } =
    type === 'RSA' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ed25519');
  const pem = privateKey.export({ type: type === 'RSA' ? 'pkcs1' : 'pkcs8', format: 'pem' }).toString();
  const parsed = sshpk.parsePrivateKey(pem, 'pem');
  parsed.comment = comment;
  const pub = parsed.toPublic().toString('ssh').trim();
  return { type, pub, openssh: parsed.toString('openssh'), pem, fingerprint: fingerprintOf(pub) };
}

/** A private key protected by a passphrase (PKCS#8, encrypted PEM). */
export function makeEncryptedPrivateKey(): { pub: string; pem: string } {
  const { privateKey } = generateKeyPairSync('ed25519');
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'not-a-secret' }).toString();
  const pub = sshpk.parsePrivateKey(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), 'pem').toPublic().toString('ssh').trim();
  return { pub, pem };
}

/** A throw-away data folder for the ssh-keys tests. */
export function freshDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'ssh-keys-data-'));
}
