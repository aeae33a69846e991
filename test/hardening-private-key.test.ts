// Hardening (outside probe): `privée` is one private key and nothing else. The key library reads
// the first armored block it finds and ignores what surrounds it, so text after the END line
// (or before the BEGIN line) was stored with the key unseen. Now 422 VALIDATION_FAILED naming
// `privée`, and neither the answer nor the log shows any of the key. Whitespace around the
// key and a final line break stay accepted.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { serverPerSuite, type Reply } from './support/server.js';
import { makeKeyPair, type TestKeyPair } from './support/ssh-keys.js';

const KEYS = '/en/api/config/ssh-keys';
const PRIV = 'privée';
const server = serverPerSuite();

/** The body lines of a private key: long, between the BEGIN and END lines. */
function bodyLines(privateKey: string): string[] {
  return privateKey
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length >= 40 && !line.startsWith('-----'));
}

function assertRefusedOnPrivateKey(reply: Reply, privateKey: string, what: string): void {
  assert.equal(reply.status, 422, `${what}: ${reply.status} ${reply.text.slice(0, 300)}`);
  assert.equal(reply.body.code, 'VALIDATION_FAILED', what);
  assert.deepEqual(
    [...new Set((reply.body.errors as { field: string }[]).map((problem) => problem.field))],
    [PRIV],
    what,
  );
  for (const line of bodyLines(privateKey)) assert.ok(!reply.text.includes(line), `${what}: the answer shows the key`);
}

/** Every way of adding text around the key the probe tried, and a few more. */
function tampered(privateKey: string): [string, string][] {
  const key = privateKey.trim();
  return [
    ['a line after END', `${key}\ntrailing garbage\n`],
    ['text right after END', `${key}garbage`],
    ['a second key after the first', `${key}\n${key}\n`],
    ['a shell prompt after END', `${key}\n$ `],
    ['a line before BEGIN', `notes\n${key}\n`],
    ['an END line of another kind', key.replace(/-----END ([A-Z ]+)-----$/, '-----END RSA PUBLIC KEY-----')],
  ];
}

/** A new key pair of each type, its private key in each format. */
const keys = (): [string, TestKeyPair, string][] =>
  (['ED25519', 'RSA'] as const).flatMap((type): [string, TestKeyPair, string][] => {
    const [openssh, pem] = [makeKeyPair(type), makeKeyPair(type)];
    return [
      [`${type} OpenSSH`, openssh, openssh.openssh],
      [`${type} PEM`, pem, pem.pem],
    ];
  });

describe('privée with text around the key', () => {
  test('POST: 422 on privée, nothing stored, no key material in the answer or the log', async () => {
    for (const [name, pair, privateKey] of keys()) {
      for (const [how, material] of tampered(privateKey)) {
        const reply = await server.request('POST', KEYS, { body: { type: pair.type, pub: pair.pub, [PRIV]: material } });
        assertRefusedOnPrivateKey(reply, privateKey, `${name}, ${how}`);
      }
      const listed = await server.request('GET', `${KEYS}?fingerprint=${encodeURIComponent(pair.fingerprint)}`);
      assert.equal(listed.body.total, 0, `${name}: a refused key was stored`);
      const logs = server.logs();
      for (const line of bodyLines(privateKey)) assert.ok(!logs.includes(line), `${name}: the log shows the key`);
    }
  });

  test('PUT and PATCH: 422 on privée, the stored key kept', async () => {
    const pair = makeKeyPair('ED25519');
    const made = await server.request('POST', KEYS, { body: { type: pair.type, pub: pair.pub, [PRIV]: pair.openssh } });
    assert.equal(made.status, 201, made.text);
    const path = `${KEYS}/${made.body.item.id}`;
    for (const [how, material] of tampered(pair.openssh)) {
      assertRefusedOnPrivateKey(await server.request('PATCH', path, { body: { [PRIV]: material } }), pair.openssh, `PATCH, ${how}`);
      assertRefusedOnPrivateKey(await server.request('PUT', path, { body: { type: pair.type, pub: pair.pub, [PRIV]: material } }), pair.openssh, `PUT, ${how}`);
    }
    // The key stored is still the clean one: a PUT without privée checks the pub against it.
    const kept = await server.request('PUT', path, { body: { type: pair.type, pub: pair.pub } });
    assert.equal(kept.status, 200, kept.text);
  });
});

describe('privée as keys are usually pasted', () => {
  test('with whitespace around it, no final line break, or Windows line breaks: 201', async () => {
    const forms: [string, (key: string) => string][] = [
      ['as made', (key) => key],
      ['no final line break', (key) => key.trim()],
      ['blank lines and spaces around it', (key) => `\n\n  ${key.trim()}  \n\n`],
      ['Windows line breaks', (key) => `${key.trim().replace(/\n/g, '\r\n')}\r\n`],
    ];
    for (const [how, form] of forms) {
      // A key is stored once: each form gets new key pairs.
      for (const [name, pair, privateKey] of keys()) {
        const reply = await server.request('POST', KEYS, { body: { type: pair.type, pub: pair.pub, [PRIV]: form(privateKey) } });
        assert.equal(reply.status, 201, `${name}, ${how}: ${reply.text.slice(0, 300)}`);
      }
    }
  });
});
