// The cross-field rule of ssh-keys: `pub` is a real key of the declared `type`, the
// fingerprint is derived from it, and `privée` is the private half of that very key.
// Parsing is left to sshpk, a maintained key library; nothing here logs or echoes a key.
import sshpk from 'sshpk';
import { fieldProblem, type FieldProblem } from '../errors/api-error.js';
import type { EntryRule } from './resource-definition.js';

const TYPE_OF: Record<string, string> = { ed25519: 'ED25519', rsa: 'RSA' };

type PrivateKeyCheck = 'ok' | 'invalid' | 'encrypted' | 'mismatch';

function parsePublicKey(line: string): sshpk.Key | undefined {
  try {
    return sshpk.parseKey(line, 'ssh');
  } catch {
    return undefined;
  }
}

// One armored block and nothing else: sshpk reads the first block it finds and ignores what
// surrounds it, so text pasted before or after the key (another key, a note, a shell prompt)
// would be stored with it unseen. Whitespace around the block is not the key's.
const ONE_ARMORED_BLOCK = /^-----BEGIN ([A-Z0-9][A-Z0-9 ]{0,40})-----\r?\n(?:(?!-----)[^\n]*\n)*?-----END \1-----$/;

function checkPrivateKey(material: string, publicKey: sshpk.Key): PrivateKeyCheck {
  if (!ONE_ARMORED_BLOCK.test(material.trim())) return 'invalid';
  let privateKey: sshpk.PrivateKey;
  try {
    // PEM and OpenSSH bodies end with a line break; the field was trimmed like any string.
    privateKey = sshpk.parsePrivateKey(`${material}\n`, 'auto');
  } catch (error) {
    return error instanceof Error && error.name === 'KeyEncryptedError' ? 'encrypted' : 'invalid';
  }
  return privateKey.fingerprint('sha256').matches(publicKey) ? 'ok' : 'mismatch';
}

export const sshKeyRule: EntryRule = async (entry, context) => {
  const publicKey = parsePublicKey(String(entry.pub));
  if (publicKey === undefined) return [fieldProblem('pub', 'field.sshPublicKey')];

  const problems: FieldProblem[] = [];
  const actualType = TYPE_OF[publicKey.type];
  if (actualType === undefined) return [fieldProblem('pub', 'field.sshPublicKey')];
  if (entry.type !== actualType) problems.push(fieldProblem('type', 'field.keyTypeMismatch', { actual: actualType }));

  const fingerprint = publicKey.fingerprint('sha256').toString();
  if (context.sent.has('fingerprint') && entry.fingerprint !== fingerprint) {
    problems.push(fieldProblem('fingerprint', 'field.fingerprintMismatch', { expected: fingerprint }));
  }
  entry.fingerprint = fingerprint;

  // A PUT or PATCH may keep the stored private key; it must still match the pub it is sent with.
  const material = context.sent.has('privée') ? entry['privée'] : await context.storedSecret('privée');
  if (typeof material !== 'string') return [...problems, fieldProblem('privée', 'field.required')];
  const verdict = checkPrivateKey(material, publicKey);
  if (verdict === 'encrypted') problems.push(fieldProblem('privée', 'field.privateKeyEncrypted'));
  else if (verdict === 'invalid') problems.push(fieldProblem('privée', 'field.sshPrivateKey'));
  else if (verdict === 'mismatch') problems.push(fieldProblem('privée', 'field.privateKeyMismatch'));
  return problems;
};
