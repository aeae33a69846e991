// ssh-keys over HTTP: the key rules of section 3 (type, pub, fingerprint, privée), the
// delete rule of section 4, and the secrets rules of section 5 (never returned, never
// logged, never documented, encrypted at rest, kept by a PUT that omits it), across restarts
// and with SECRET_KEY (an invalid one, or a key file that is not a key, stops the start:
// test/process/invalid-secret-key.test.ts). Every key is generated at test time; none is ever
// written to the repo.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import sshpk from 'sshpk';
import { serverPerSuite, startServer, type Reply, type TestServer } from './support/server.js';
import { freshDataDir, makeEncryptedPrivateKey, makeKeyPair, type TestKeyPair } from './support/ssh-keys.js';

const KEYS = '/en/api/config/ssh-keys';
const PRIV = 'privée';
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
/** base64 of "openssh-key-v1\0": how every OpenSSH private key body starts. */
const OPENSSH_HEADER = 'b3BlbnNzaC1rZXktdjE';
const ITEM_FIELDS = ['created_at', 'fingerprint', 'id', 'pub', 'type', 'updated_at'];

// ---------------------------------------------------------------------------------------
// helpers

/** The same key with another comment: same blob, so same key and fingerprint. */
function withComment(pub: string, comment: string): string {
  const [kind, blob] = pub.split(' ');
  return `${kind} ${blob} ${comment}`;
}

/**
 * The lines of a private key's body that are secret: between the BEGIN/END markers, long
 * enough to be meaningful, and not a piece of the public key line (which is public anyway).
 */
function secretLines(privateKey: string, pub: string): string[] {
  const lines = privateKey
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length >= 16 && !line.startsWith('-----') && !line.includes(':') && !pub.includes(line))
    // The first line of an OpenSSH body is a constant header ("openssh-key-v1", no cipher) and
    // the start of the public key: not secret, so not evidence of a leak.
    .filter((line) => !line.startsWith(OPENSSH_HEADER));
  assert.ok(lines.length >= 1, 'expected body lines in the private key');
  return lines;
}

function assertNoKeyMaterial(text: string, privateKey: string, pub: string, where: string): void {
  assert.ok(!text.includes(privateKey.trim()), `${where}: contains the whole private key`);
  for (const line of secretLines(privateKey, pub)) {
    assert.ok(!text.includes(line), `${where}: contains a line of the private key body (${line.slice(0, 8)}…)`);
  }
}

function assertNoPrivateField(item: Record<string, unknown>, where: string): void {
  assert.ok(!(PRIV in item), `${where}: the item carries ${PRIV}`);
  assert.ok(!Object.keys(item).some((name) => /priv/i.test(name)), `${where}: the item carries a private field: ${Object.keys(item).join(', ')}`);
}

function assertValidation(reply: Reply, field: string): void {
  assert.equal(reply.status, 422, reply.text);
  assert.match(reply.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(reply.body.code, 'VALIDATION_FAILED', reply.text);
  assert.equal(reply.body.status, 422);
  assert.equal(typeof reply.body.error, 'string');
  assert.ok(Array.isArray(reply.body.errors), reply.text);
  const fields = (reply.body.errors as { field: string }[]).map((problem) => problem.field);
  assert.ok(fields.includes(field), `expected an error on ${field}, got ${JSON.stringify(fields)}: ${reply.text}`);
}

/** Only `field` is wrong: the response must not blame another field. */
function assertOnlyField(reply: Reply, field: string): void {
  assertValidation(reply, field);
  const fields = [...new Set((reply.body.errors as { field: string }[]).map((problem) => problem.field))];
  assert.deepEqual(fields, [field], reply.text);
}

/** The fingerprint that OpenSSH's own `ssh-keygen -l` prints for a public key line. */
function sshKeygenFingerprint(pub: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'ssh-keys-test-'));
  try {
    const file = join(dir, 'key.pub');
    writeFileSync(file, `${pub}\n`);
    const output = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', file], { encoding: 'utf8' });
    const fingerprint = output.trim().split(/\s+/)[1];
    assert.ok(fingerprint !== undefined && fingerprint.startsWith('SHA256:'), `unexpected ssh-keygen output: ${output}`);
    return fingerprint;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A key pair made by OpenSSH itself (`ssh-keygen -t …`), private key in OpenSSH format. */
function sshKeygenPair(type: 'ED25519' | 'RSA', passphrase = ''): { pub: string; openssh: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ssh-keys-test-'));
  try {
    const file = join(dir, 'id');
    const args = type === 'RSA' ? ['-t', 'rsa', '-b', '2048'] : ['-t', 'ed25519'];
    execFileSync('ssh-keygen', [...args, '-q', '-N', passphrase, '-C', 'made-by@ssh-keygen', '-f', file], { stdio: 'ignore' });
    return { pub: readFileSync(`${file}.pub`, 'utf8').trim(), openssh: readFileSync(file, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A real key of a kind the API does not take (DSA, ECDSA), in OpenSSH form. */
function foreignKey(kind: 'dsa' | 'ecdsa'): { pub: string; openssh: string } {
  const { privateKey } =
    kind === 'dsa'
      ? generateKeyPairSync('dsa', { modulusLength: 1024, divisorLength: 160 })
      : generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const parsed = sshpk.parsePrivateKey(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), 'pem');
  return { pub: parsed.toPublic().toString('ssh').trim(), openssh: parsed.toString('openssh') };
}

async function createKey(server: TestServer, key: { type: string; pub: string }, privateKey: string): Promise<Record<string, any>> {
  const reply = await server.request('POST', KEYS, { body: { type: key.type, pub: key.pub, [PRIV]: privateKey } });
  assert.equal(reply.status, 201, reply.text);
  return reply.body.item;
}

async function createStorageArea(server: TestServer, sshKey: number, libelle: string): Promise<number> {
  const reply = await server.request('POST', '/en/api/config/storage-areas', {
    body: { ip: '192.0.2.10', path: '/srv/backups', libelle, ssh_key: sshKey, 'géolocalisation': 'Paris, FR' },
  });
  assert.equal(reply.status, 201, reply.text);
  return reply.body.id;
}

async function keyCount(server: TestServer): Promise<number> {
  const reply = await server.request('GET', `${KEYS}?limit=1000`);
  assert.equal(reply.status, 200, reply.text);
  return reply.body.total;
}

/** Everything the database holds, as text: with SQLite, the bytes of the file and of its WAL. */
async function databaseText(server: TestServer): Promise<string> {
  const text = await server.dump();
  assert.ok(text.length > 0, 'the database dump is empty');
  return text;
}

// ---------------------------------------------------------------------------------------

describe('ssh-keys: POST', () => {
  const server = serverPerSuite();

  const cases: { type: 'ED25519' | 'RSA'; format: 'openssh' | 'pem' }[] = [
    { type: 'ED25519', format: 'openssh' },
    { type: 'ED25519', format: 'pem' },
    { type: 'RSA', format: 'openssh' },
    { type: 'RSA', format: 'pem' },
  ];
  for (const { type, format } of cases) {
    test(`${type} key with the private key in ${format} format: 201, fingerprint derived, no private key in the response`, async () => {
      const key = makeKeyPair(type);
      const reply = await server.request('POST', KEYS, { body: { type, pub: key.pub, [PRIV]: key[format] } });
      assert.equal(reply.status, 201, reply.text);
      const item = reply.body.item as Record<string, any>;
      assert.equal(typeof reply.body.id, 'number');
      assert.equal(reply.body.resource, 'ssh-keys');
      assert.equal(item.id, reply.body.id);
      assert.equal(reply.headers.get('location'), `${KEYS}/${item.id}`);
      assert.deepEqual(Object.keys(item).sort(), ITEM_FIELDS);
      assert.equal(item.type, type);
      assert.equal(item.pub, key.pub);
      assert.equal(item.fingerprint, key.fingerprint);
      assert.equal(item.fingerprint, sshKeygenFingerprint(key.pub));
      assert.match(item.created_at, ISO_UTC);
      assert.match(item.updated_at, ISO_UTC);
      assertNoPrivateField(item, 'POST response');
      assertNoKeyMaterial(reply.text, key[format], key.pub, 'POST response');
      assert.ok(!reply.text.includes('-----BEGIN'), 'POST response shows a key marker');
    });
  }

  for (const type of ['ED25519', 'RSA'] as const) {
    test(`${type} key pair made by ssh-keygen itself: 201 and the fingerprint ssh-keygen -l prints`, async () => {
      const key = sshKeygenPair(type);
      const reply = await server.request('POST', KEYS, { body: { type, pub: key.pub, [PRIV]: key.openssh } });
      assert.equal(reply.status, 201, reply.text);
      assert.equal(reply.body.item.fingerprint, sshKeygenFingerprint(key.pub));
      assertNoKeyMaterial(reply.text, key.openssh, key.pub, 'POST response');
    });
  }

  test('a private key sent with Windows line breaks is accepted (line breaks are allowed in privée)', async () => {
    const key = makeKeyPair('RSA');
    const reply = await server.request('POST', KEYS, { body: { type: 'RSA', pub: key.pub, [PRIV]: key.pem.replace(/\n/g, '\r\n') } });
    assert.equal(reply.status, 201, reply.text);
  });

  describe('fingerprint', () => {
    test('sent and matching: 201 with that fingerprint', async () => {
      const key = makeKeyPair('ED25519');
      const reply = await server.request('POST', KEYS, {
        body: { type: 'ED25519', pub: key.pub, fingerprint: key.fingerprint, [PRIV]: key.openssh },
      });
      assert.equal(reply.status, 201, reply.text);
      assert.equal(reply.body.item.fingerprint, key.fingerprint);
    });

    test('sent and wrong (another key’s fingerprint): 422 on fingerprint, nothing created', async () => {
      const key = makeKeyPair('ED25519');
      const other = makeKeyPair('ED25519');
      const before = await keyCount(server);
      const reply = await server.request('POST', KEYS, {
        body: { type: 'ED25519', pub: key.pub, fingerprint: other.fingerprint, [PRIV]: key.openssh },
      });
      assertOnlyField(reply, 'fingerprint');
      assertNoKeyMaterial(reply.text, key.openssh, key.pub, '422 response');
      assert.equal(await keyCount(server), before);
    });

    test('sent in another form (MD5, or without the SHA256: prefix): 422 on fingerprint', async () => {
      const key = makeKeyPair('ED25519');
      for (const fingerprint of ['MD5:12:34:56:78:9a:bc:de:f0:12:34:56:78:9a:bc:de:f0', key.fingerprint.slice('SHA256:'.length)]) {
        const reply = await server.request('POST', KEYS, { body: { type: 'ED25519', pub: key.pub, fingerprint, [PRIV]: key.openssh } });
        assertOnlyField(reply, 'fingerprint');
      }
    });
  });

  describe('type', () => {
    test('ED25519 key declared RSA: 422 on type', async () => {
      const key = makeKeyPair('ED25519');
      const reply = await server.request('POST', KEYS, { body: { type: 'RSA', pub: key.pub, [PRIV]: key.openssh } });
      assertOnlyField(reply, 'type');
    });

    test('RSA key declared ED25519: 422 on type', async () => {
      const key = makeKeyPair('RSA');
      const reply = await server.request('POST', KEYS, { body: { type: 'ED25519', pub: key.pub, [PRIV]: key.pem } });
      assertOnlyField(reply, 'type');
    });

    test('a type outside ED25519/RSA (DSA, ECDSA, lower case, empty, number): 422 on type', async () => {
      const key = makeKeyPair('ED25519');
      const before = await keyCount(server);
      for (const type of ['DSA', 'ECDSA', 'ed25519', 'rsa', '', 1, null]) {
        const reply = await server.request('POST', KEYS, { body: { type, pub: key.pub, [PRIV]: key.openssh } });
        assertValidation(reply, 'type');
      }
      assert.equal(await keyCount(server), before);
    });

    test('type missing: 422 on type (required)', async () => {
      const key = makeKeyPair('ED25519');
      const reply = await server.request('POST', KEYS, { body: { pub: key.pub, [PRIV]: key.openssh } });
      assertOnlyField(reply, 'type');
    });
  });

  describe('pub', () => {
    const key = makeKeyPair('ED25519');
    const second = makeKeyPair('ED25519');
    const blob = key.pub.split(' ')[1] ?? '';
    const invalid: [string, string][] = [
      ['garbage', 'this is not a key'],
      ['two key lines', `${key.pub}\n${second.pub}`],
      ['the base64 blob alone', blob],
      ['a truncated blob', `ssh-ed25519 ${blob.slice(0, 40)} test@config-api`],
      ['an ssh-rsa label on an Ed25519 blob', `ssh-rsa ${blob} test@config-api`],
      ['a PEM public key', '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=\n-----END PUBLIC KEY-----'],
    ];
    for (const [label, pub] of invalid) {
      test(`${label}: 422 on pub`, async () => {
        const before = await keyCount(server);
        const reply = await server.request('POST', KEYS, { body: { type: 'ED25519', pub, [PRIV]: key.openssh } });
        assertValidation(reply, 'pub');
        assert.equal(await keyCount(server), before);
      });
    }

    test('a real DSA key (ssh-dss): 422 on pub', async () => {
      const dsa = foreignKey('dsa');
      assert.match(dsa.pub, /^ssh-dss /);
      for (const type of ['RSA', 'ED25519']) {
        const reply = await server.request('POST', KEYS, { body: { type, pub: dsa.pub, [PRIV]: dsa.openssh } });
        assertValidation(reply, 'pub');
        assertNoKeyMaterial(reply.text, dsa.openssh, dsa.pub, '422 response');
      }
    });

    test('a real ECDSA key: 422 on pub', async () => {
      const ecdsa = foreignKey('ecdsa');
      assert.match(ecdsa.pub, /^ecdsa-sha2-nistp256 /);
      const reply = await server.request('POST', KEYS, { body: { type: 'RSA', pub: ecdsa.pub, [PRIV]: ecdsa.openssh } });
      assertValidation(reply, 'pub');
    });

    test('pub missing: 422 on pub (required)', async () => {
      const reply = await server.request('POST', KEYS, { body: { type: 'ED25519', [PRIV]: key.openssh } });
      assertValidation(reply, 'pub');
    });
  });

  describe('privée', () => {
    test('another key’s private half: 422 on privée, nothing created', async () => {
      const key = makeKeyPair('ED25519');
      const other = makeKeyPair('ED25519');
      const before = await keyCount(server);
      for (const privateKey of [other.openssh, other.pem]) {
        const reply = await server.request('POST', KEYS, { body: { type: 'ED25519', pub: key.pub, [PRIV]: privateKey } });
        assertOnlyField(reply, PRIV);
        assertNoKeyMaterial(reply.text, privateKey, other.pub, '422 response');
      }
      const rsa = makeKeyPair('RSA');
      const otherRsa = makeKeyPair('RSA');
      const reply = await server.request('POST', KEYS, { body: { type: 'RSA', pub: rsa.pub, [PRIV]: otherRsa.pem } });
      assertOnlyField(reply, PRIV);
      assert.equal(await keyCount(server), before);
    });

    test('the private half of a key of another type: 422 on privée', async () => {
      const key = makeKeyPair('ED25519');
      const rsa = makeKeyPair('RSA');
      const reply = await server.request('POST', KEYS, { body: { type: 'ED25519', pub: key.pub, [PRIV]: rsa.pem } });
      assertOnlyField(reply, PRIV);
    });

    test('garbage: 422 on privée', async () => {
      const key = makeKeyPair('ED25519');
      const garbage = [
        'not a private key',
        '-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----',
        key.openssh.slice(0, Math.floor(key.openssh.length / 2)),
        key.pub,
        '',
        '   ',
      ];
      for (const privateKey of garbage) {
        const reply = await server.request('POST', KEYS, { body: { type: 'ED25519', pub: key.pub, [PRIV]: privateKey } });
        assertOnlyField(reply, PRIV);
      }
      for (const privateKey of [42, true, null, ['a'], { key: 'x' }]) {
        const reply = await server.request('POST', KEYS, { body: { type: 'ED25519', pub: key.pub, [PRIV]: privateKey } });
        assertOnlyField(reply, PRIV);
      }
    });

    test('a passphrase-protected key (encrypted PKCS#8 PEM): 422 on privée', async () => {
      const encrypted = makeEncryptedPrivateKey();
      const reply = await server.request('POST', KEYS, { body: { type: 'ED25519', pub: encrypted.pub, [PRIV]: encrypted.pem } });
      assertOnlyField(reply, PRIV);
      assertNoKeyMaterial(reply.text, encrypted.pem, encrypted.pub, '422 response');
    });

    test('a passphrase-protected key made by ssh-keygen (OpenSSH format): 422 on privée', async () => {
      const encrypted = sshKeygenPair('ED25519', 'not-a-secret-passphrase');
      const reply = await server.request('POST', KEYS, { body: { type: 'ED25519', pub: encrypted.pub, [PRIV]: encrypted.openssh } });
      assertOnlyField(reply, PRIV);
    });

    test('missing on POST: 422 on privée (required), nothing created', async () => {
      const key = makeKeyPair('ED25519');
      const before = await keyCount(server);
      const reply = await server.request('POST', KEYS, { body: { type: 'ED25519', pub: key.pub } });
      assertOnlyField(reply, PRIV);
      assert.equal(await keyCount(server), before);
    });

    test('a field spelled without the accent (privee) is an unknown field: 422', async () => {
      const key = makeKeyPair('ED25519');
      const reply = await server.request('POST', KEYS, { body: { type: 'ED25519', pub: key.pub, privee: key.openssh } });
      assertValidation(reply, 'privee');
      assertNoKeyMaterial(reply.text, key.openssh, key.pub, '422 response');
    });
  });

  describe('reading', () => {
    let ed: TestKeyPair;
    let rsa: TestKeyPair;
    let edId: number;
    let rsaId: number;
    before(async () => {
      ed = makeKeyPair('ED25519');
      rsa = makeKeyPair('RSA');
      edId = (await createKey(server, ed, ed.openssh)).id;
      rsaId = (await createKey(server, rsa, rsa.pem)).id;
    });

    test('GET by id: the public fields, never privée', async () => {
      for (const [id, key, privateKey] of [[edId, ed, ed.openssh], [rsaId, rsa, rsa.pem]] as const) {
        const reply = await server.request('GET', `${KEYS}/${id}`);
        assert.equal(reply.status, 200, reply.text);
        assert.deepEqual(Object.keys(reply.body.item).sort(), ITEM_FIELDS);
        assert.equal(reply.body.item.pub, key.pub);
        assert.equal(reply.body.item.fingerprint, key.fingerprint);
        assert.equal(reply.body.item.type, key.type);
        assertNoPrivateField(reply.body.item, 'GET by id');
        assertNoKeyMaterial(reply.text, privateKey, key.pub, 'GET by id');
      }
    });

    test('GET list: no item carries privée', async () => {
      const reply = await server.request('GET', `${KEYS}?limit=1000`);
      assert.equal(reply.status, 200, reply.text);
      const items = reply.body.items as Record<string, unknown>[];
      assert.ok(items.some((item) => item.id === edId) && items.some((item) => item.id === rsaId));
      for (const item of items) {
        assertNoPrivateField(item, 'GET list');
        assert.deepEqual(Object.keys(item).sort(), ITEM_FIELDS);
      }
      assertNoKeyMaterial(reply.text, ed.openssh, ed.pub, 'GET list');
      assertNoKeyMaterial(reply.text, rsa.pem, rsa.pub, 'GET list');
      assert.ok(!reply.text.includes('-----BEGIN'));
    });

    test('privée is not a list filter (it would be an oracle on the secret): 400 BAD_QUERY', async () => {
      const reply = await server.request('GET', `${KEYS}?${encodeURIComponent(PRIV)}=${encodeURIComponent('x')}`);
      assert.equal(reply.status, 400, reply.text);
      assert.equal(reply.body.code, 'BAD_QUERY');
    });
  });
});

describe('ssh-keys: the OpenAPI document', () => {
  let server: TestServer;
  let key: TestKeyPair;
  let doc: Record<string, any>;
  let text: string;
  before(async () => {
    server = await startServer();
    key = makeKeyPair('ED25519');
    await createKey(server, key, key.openssh);
    const reply = await server.request('GET', '/en/api/openApi');
    assert.equal(reply.status, 200, reply.text);
    doc = reply.body;
    text = reply.text;
  });
  after(async () => {
    await server.stop();
    await server.cleanup();
  });

  test('contains no private key text', () => {
    assertNoKeyMaterial(text, key.openssh, key.pub, 'OpenAPI document');
    assert.ok(!text.includes('-----BEGIN'), 'the document shows a key marker');
    assert.ok(!text.includes('PRIVATE KEY-----'), 'the document shows a key marker');
    // The constant start of every OpenSSH private key body ("openssh-key-v1").
    assert.ok(!text.includes(OPENSSH_HEADER), 'the document shows an OpenSSH private key body');
  });

  test('the ssh-keys write schemas mark privée writeOnly, with no example or default value', () => {
    const schemas = doc.components.schemas as Record<string, any>;
    const writing = Object.entries(schemas).filter(([, schema]) => schema?.properties?.[PRIV] !== undefined);
    assert.ok(writing.length >= 1, 'no schema documents privée');
    // The ssh-keys' own write schemas, and the key entry of an applied configuration document
    // (contract section 18: an SSH key to create carries its privée).
    assert.ok(writing.every(([name]) => name.startsWith('SshKey') || name === 'DocumentSshKey'), `privée appears in ${writing.map(([name]) => name).join(', ')}`);
    for (const [name, schema] of writing) {
      const property = schema.properties[PRIV];
      assert.equal(property.writeOnly, true, `${name}.${PRIV} is not writeOnly`);
      for (const member of ['example', 'examples', 'default', 'const', 'enum']) {
        assert.ok(!(member in property), `${name}.${PRIV} has ${member}`);
      }
    }
    const create = schemas.SshKeyCreate;
    assert.ok(create !== undefined, 'no SshKeyCreate schema');
    assert.ok(create.required.includes(PRIV), 'privée is not required on POST');
    const replace = schemas.SshKeyReplace;
    if (replace?.required !== undefined) assert.ok(!replace.required.includes(PRIV), 'privée is required on PUT');
  });

  test('the ssh-keys response schema has no privée', () => {
    const schema = doc.components.schemas.SshKey;
    assert.ok(schema !== undefined, 'no SshKey schema');
    assert.ok(!(PRIV in schema.properties));
    assert.ok(!(schema.required ?? []).includes(PRIV));
  });

  test('no example anywhere in the document gives a value to privée', () => {
    const found: string[] = [];
    const walk = (value: unknown, path: string, inExample: boolean): void => {
      if (Array.isArray(value)) value.forEach((child, index) => walk(child, `${path}[${index}]`, inExample));
      else if (typeof value === 'object' && value !== null) {
        for (const [name, child] of Object.entries(value)) {
          const example = inExample || name === 'example' || name === 'examples' || name === 'value';
          if (name === PRIV && (inExample || typeof child !== 'object')) found.push(`${path}.${name}`);
          walk(child, `${path}.${name}`, example);
        }
      }
    };
    walk(doc, '$', false);
    assert.deepEqual(found, []);
  });
});

describe('ssh-keys: PUT and PATCH', () => {
  const server = serverPerSuite();

  test('PUT without privée keeps the stored private key; a new pub needs its own privée', async () => {
    const first = makeKeyPair('ED25519', 'first@config-api');
    const second = makeKeyPair('RSA', 'second@config-api');
    const created = await createKey(server, first, first.openssh);
    const path = `${KEYS}/${created.id}`;

    // Same key, another comment: the stored private key is checked against it and still matches.
    const renamed = withComment(first.pub, 'renamed@config-api');
    let reply = await server.request('PUT', path, { body: { type: 'ED25519', pub: renamed } });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.body.id, created.id);
    assert.equal(reply.body.resource, 'ssh-keys');
    assert.equal(reply.body.updated, true);
    assert.equal(reply.body.item.pub, renamed);
    assert.equal(reply.body.item.fingerprint, first.fingerprint);
    assert.equal(reply.body.item.created_at, created.created_at);
    assertNoPrivateField(reply.body.item, 'PUT response');
    reply = await server.request('GET', path);
    assert.equal(reply.body.item.pub, renamed);

    // A PATCH that sends nothing about the key also re-checks the stored private key.
    reply = await server.request('PATCH', path, { body: { type: 'ED25519' } });
    assert.equal(reply.status, 200, reply.text);

    // Another key's pub without privée: the stored private key is not its private half.
    reply = await server.request('PUT', path, { body: { type: 'RSA', pub: second.pub } });
    assertOnlyField(reply, PRIV);
    reply = await server.request('PATCH', path, { body: { type: 'RSA', pub: second.pub } });
    assertOnlyField(reply, PRIV);
    reply = await server.request('GET', path);
    assert.equal(reply.body.item.pub, renamed, 'a refused PUT changed the entry');
    assert.equal(reply.body.item.type, 'ED25519');

    // Another key's pub with its own private half: 200 and the new fingerprint.
    reply = await server.request('PUT', path, { body: { type: 'RSA', pub: second.pub, [PRIV]: second.pem } });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.body.item.type, 'RSA');
    assert.equal(reply.body.item.pub, second.pub);
    assert.equal(reply.body.item.fingerprint, second.fingerprint);
    assert.equal(reply.body.item.fingerprint, sshKeygenFingerprint(second.pub));
    assertNoKeyMaterial(reply.text, second.pem, second.pub, 'PUT response');

    // The stored private key is now the second one: the first pub no longer goes without privée…
    reply = await server.request('PUT', path, { body: { type: 'ED25519', pub: first.pub } });
    assertOnlyField(reply, PRIV);
    // …and the second pub does.
    reply = await server.request('PUT', path, { body: { type: 'RSA', pub: withComment(second.pub, 'again@config-api') } });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.body.item.fingerprint, second.fingerprint);
  });

  test('PUT with a privée that does not match the pub: 422 on privée, entry unchanged', async () => {
    const key = makeKeyPair('ED25519');
    const other = makeKeyPair('ED25519');
    const created = await createKey(server, key, key.pem);
    const path = `${KEYS}/${created.id}`;
    let reply = await server.request('PUT', path, { body: { type: 'ED25519', pub: key.pub, [PRIV]: other.openssh } });
    assertOnlyField(reply, PRIV);
    reply = await server.request('PUT', path, { body: { type: 'ED25519', pub: key.pub, [PRIV]: makeEncryptedPrivateKey().pem } });
    assertOnlyField(reply, PRIV);
    reply = await server.request('GET', path);
    assert.equal(reply.body.item.updated_at, created.updated_at);
    // The stored key is still the right one.
    reply = await server.request('PUT', path, { body: { type: 'ED25519', pub: key.pub } });
    assert.equal(reply.status, 200, reply.text);
  });

  test('PUT is a full replacement: type and pub are required; a wrong fingerprint is 422', async () => {
    const key = makeKeyPair('ED25519');
    const created = await createKey(server, key, key.openssh);
    const path = `${KEYS}/${created.id}`;
    let reply = await server.request('PUT', path, { body: { pub: key.pub } });
    assertOnlyField(reply, 'type');
    reply = await server.request('PUT', path, { body: { type: 'ED25519' } });
    assertValidation(reply, 'pub');
    reply = await server.request('PUT', path, { body: { type: 'ED25519', pub: key.pub, fingerprint: makeKeyPair('ED25519').fingerprint } });
    assertOnlyField(reply, 'fingerprint');
    reply = await server.request('PUT', path, { body: { type: 'ED25519', pub: key.pub, fingerprint: key.fingerprint } });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.body.item.fingerprint, key.fingerprint);
  });

  test('PATCH with a type that does not match the key: 422 on type', async () => {
    const ed = makeKeyPair('ED25519');
    const rsa = makeKeyPair('RSA');
    const edPath = `${KEYS}/${(await createKey(server, ed, ed.openssh)).id}`;
    const rsaPath = `${KEYS}/${(await createKey(server, rsa, rsa.openssh)).id}`;
    let reply = await server.request('PATCH', edPath, { body: { type: 'RSA' } });
    assertOnlyField(reply, 'type');
    reply = await server.request('PATCH', rsaPath, { body: { type: 'ED25519' } });
    assertOnlyField(reply, 'type');
    reply = await server.request('PATCH', edPath, { body: { type: 'DSA' } });
    assertOnlyField(reply, 'type');
    reply = await server.request('GET', edPath);
    assert.equal(reply.body.item.type, 'ED25519');
  });

  test('PATCH of the pub comment only: 200, privée kept', async () => {
    const key = makeKeyPair('RSA');
    const created = await createKey(server, key, key.pem);
    const path = `${KEYS}/${created.id}`;
    const renamed = withComment(key.pub, 'patched@config-api');
    const reply = await server.request('PATCH', path, { body: { pub: renamed } });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.body.item.pub, renamed);
    assert.equal(reply.body.item.type, 'RSA');
    assert.equal(reply.body.item.fingerprint, key.fingerprint);
  });

  test('PUT and PATCH on a missing id: 404, nothing created', async () => {
    const key = makeKeyPair('ED25519');
    const before = await keyCount(server);
    for (const method of ['PUT', 'PATCH']) {
      const reply = await server.request(method, `${KEYS}/999999`, { body: { type: 'ED25519', pub: key.pub, [PRIV]: key.openssh } });
      assert.equal(reply.status, 404, reply.text);
      assert.equal(reply.body.code, 'NOT_FOUND');
      assertNoKeyMaterial(reply.text, key.openssh, key.pub, '404 response');
    }
    assert.equal(await keyCount(server), before);
  });
});

describe('ssh-keys: delete rules', () => {
  const server = serverPerSuite();

  test('a key used by storage areas: 409 REFERENCED naming them; deletable once they are gone', async () => {
    const key = makeKeyPair('ED25519');
    const other = makeKeyPair('ED25519');
    const id = (await createKey(server, key, key.openssh)).id;
    const otherId = (await createKey(server, other, other.openssh)).id;
    const first = await createStorageArea(server, id, 'Backups Paris');
    await createStorageArea(server, otherId, 'Backups Lyon');
    const second = await createStorageArea(server, id, 'Backups Lille');

    let reply = await server.request('DELETE', `${KEYS}/${id}`);
    assert.equal(reply.status, 409, reply.text);
    assert.match(reply.headers.get('content-type') ?? '', /^application\/problem\+json/);
    assert.equal(reply.body.code, 'REFERENCED');
    assert.equal(reply.body.status, 409);
    assert.match(reply.body.detail, /storage-areas/);
    assert.match(reply.body.detail, new RegExp(`\\b${first}\\b`));
    assert.match(reply.body.detail, new RegExp(`\\b${second}\\b`));
    assert.equal(reply.body.error, reply.body.detail);
    assert.deepEqual(reply.body.referenced_by, [{ resource: 'storage-areas', ids: [first, second] }]);

    reply = await server.request('GET', `${KEYS}/${id}`);
    assert.equal(reply.status, 200, 'the referenced key was removed');
    assert.equal(reply.body.item.pub, key.pub);

    // Still referenced by the second area after the first one goes.
    assert.equal((await server.request('DELETE', `/en/api/config/storage-areas/${first}`)).status, 200);
    reply = await server.request('DELETE', `${KEYS}/${id}`);
    assert.equal(reply.status, 409, reply.text);
    assert.deepEqual(reply.body.referenced_by, [{ resource: 'storage-areas', ids: [second] }]);

    assert.equal((await server.request('DELETE', `/en/api/config/storage-areas/${second}`)).status, 200);
    reply = await server.request('DELETE', `${KEYS}/${id}`);
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(reply.body, { id, deleted: true, mode: 'hard' });

    reply = await server.request('GET', `${KEYS}/${id}`);
    assert.equal(reply.status, 404, reply.text);
    assert.equal(reply.body.code, 'NOT_FOUND');
    reply = await server.request('DELETE', `${KEYS}/${id}`);
    assert.equal(reply.status, 404, reply.text);

    // The other key, still in use, is untouched.
    assert.equal((await server.request('GET', `${KEYS}/${otherId}`)).status, 200);
    assert.equal((await server.request('DELETE', `${KEYS}/${otherId}`)).status, 409);
  });

  test('the 409 is in French under /fr and still names the storage area', async () => {
    const key = makeKeyPair('ED25519');
    const id = (await createKey(server, key, key.openssh)).id;
    const area = await createStorageArea(server, id, 'Sauvegardes');
    const reply = await server.request('DELETE', `/fr/api/config/ssh-keys/${id}`);
    assert.equal(reply.status, 409, reply.text);
    assert.equal(reply.body.code, 'REFERENCED');
    assert.match(reply.body.detail, /storage-areas/);
    assert.match(reply.body.detail, new RegExp(`\\b${area}\\b`));
  });

  test('a storage area naming a missing SSH key: 422 on ssh_key', async () => {
    const reply = await server.request('POST', '/en/api/config/storage-areas', {
      body: { ip: '192.0.2.11', path: '/srv/backups', libelle: 'Nowhere', ssh_key: 999999 },
    });
    assertOnlyField(reply, 'ssh_key');
  });
});

describe('ssh-keys: secrets at rest and in the logs', () => {
  let server: TestServer;
  const stored: { pub: string; privateKey: string }[] = [];
  const refused: { pub: string; privateKey: string }[] = [];
  before(async () => {
    server = await startServer();
    for (const [type, format] of [['ED25519', 'openssh'], ['ED25519', 'pem'], ['RSA', 'openssh'], ['RSA', 'pem']] as const) {
      const key = makeKeyPair(type);
      await createKey(server, key, key[format]);
      stored.push({ pub: key.pub, privateKey: key[format] });
    }
    const made = sshKeygenPair('RSA');
    await createKey(server, { type: 'RSA', pub: made.pub }, made.openssh);
    stored.push({ pub: made.pub, privateKey: made.openssh });

    // Requests refused for various reasons, each carrying a private key.
    const a = makeKeyPair('ED25519');
    const b = makeKeyPair('RSA');
    const c = makeKeyPair('ED25519');
    const d = makeKeyPair('ED25519');
    const e = makeKeyPair('RSA');
    let reply = await server.request('POST', KEYS, { body: { type: 'ED25519', pub: makeKeyPair('ED25519').pub, [PRIV]: a.openssh } });
    assert.equal(reply.status, 422, reply.text);
    refused.push({ pub: a.pub, privateKey: a.openssh });
    reply = await server.request('POST', KEYS, { body: { type: 'ED25519', pub: b.pub, [PRIV]: b.pem } });
    assert.equal(reply.status, 422, reply.text);
    refused.push({ pub: b.pub, privateKey: b.pem });
    reply = await server.request('POST', KEYS, { body: { type: 'ED25519', pub: c.pub, [PRIV]: c.openssh, unknown: 1 } });
    assert.equal(reply.status, 422, reply.text);
    refused.push({ pub: c.pub, privateKey: c.openssh });
    // Not JSON (cut short), and not sent as JSON.
    reply = await server.request('POST', KEYS, { raw: JSON.stringify({ type: 'ED25519', pub: d.pub, [PRIV]: d.pem }).slice(0, -2), headers: { 'content-type': 'application/json' } });
    assert.equal(reply.status, 400, reply.text);
    refused.push({ pub: d.pub, privateKey: d.pem });
    reply = await server.request('POST', KEYS, { raw: e.pem, headers: { 'content-type': 'text/plain' } });
    assert.equal(reply.status, 415, reply.text);
    refused.push({ pub: e.pub, privateKey: e.pem });
  });
  after(async () => {
    await server.stop();
    await server.cleanup();
  });

  test('the database (file and WAL with SQLite) holds the public keys but no line of any private key', async () => {
    const text = await databaseText(server);
    for (const { pub } of stored) {
      assert.ok(text.includes(pub.split(' ')[1] ?? '!'), 'the public key is not in the database files: the scan reads the wrong files');
    }
    for (const { pub, privateKey } of [...stored, ...refused]) assertNoKeyMaterial(text, privateKey, pub, 'database file');
    assert.ok(!text.includes('PRIVATE KEY-----'), 'the database holds a private key marker');
  });

  test('the key file exists, readable by its owner only (0600)', () => {
    const file = join(server.dataDir, 'secret.key');
    assert.ok(existsSync(file), 'no key file');
    assert.equal(statSync(file).mode & 0o777, 0o600);
  });

  test('the logs never show private key material, including for refused requests', () => {
    const logs = server.logs();
    assert.ok(logs.length > 0, 'no logs at all');
    for (const { pub, privateKey } of [...stored, ...refused]) assertNoKeyMaterial(logs, privateKey, pub, 'logs');
    assert.ok(!logs.includes('PRIVATE KEY-----'), 'the logs show a private key marker');
  });

  test(
    'the logs never show a private key sent by mistake in a query string',
    async () => {
      const key = makeKeyPair('ED25519');
      const reply = await server.request('GET', `${KEYS}?${encodeURIComponent(PRIV)}=${encodeURIComponent(key.openssh)}`);
      assert.equal(reply.status, 400, reply.text);
      assertNoKeyMaterial(reply.text, key.openssh, key.pub, '400 response');
      // The URL is logged percent-encoded: look for the key in that form too.
      assertNoKeyMaterial(server.logs(), key.openssh, key.pub, 'logs');
      const logs = server.logs();
      for (const line of secretLines(key.openssh, key.pub)) {
        assert.ok(!logs.includes(encodeURIComponent(line)), `logs: contain a percent-encoded line of the private key (${line.slice(0, 8)}…)`);
      }
    },
  );
});

describe('ssh-keys: restart over the same data and key file', () => {
  let dataDir: string;
  let first: TestServer | undefined;
  let second: TestServer | undefined;
  const key = makeKeyPair('ED25519', 'restart@config-api');
  const other = makeKeyPair('ED25519');
  let created: Record<string, any>;
  let areaId: number;
  let tagId: number;
  let keyFile: string;

  before(async () => {
    dataDir = freshDataDir();
    first = await startServer({ dataDir });
    created = await createKey(first, key, key.openssh);
    areaId = await createStorageArea(first, created.id, 'Backups restart');
    const tag = await first.request('POST', '/en/api/config/tags', { body: { name: 'restart-tag' } });
    assert.equal(tag.status, 201, tag.text);
    tagId = tag.body.id;
    keyFile = readFileSync(join(dataDir, 'secret.key'), 'utf8');
  });
  after(async () => {
    // Both, whatever the tests reached: stopping an exited server just returns its code.
    if (second !== undefined) await second.stop();
    if (first !== undefined) {
      await first.stop();
      await first.cleanup(); // the database and the data folder
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('SIGTERM exits 0, and the database files hold no private key line', async () => {
    assert.equal(await first!.stop(), 0);
    const text = await databaseText(first!);
    assert.ok(text.includes(key.pub.split(' ')[1] ?? '!'), 'the public key is not in the database dump');
    assertNoKeyMaterial(text, key.openssh, key.pub, 'database after stop');
    assertNoKeyMaterial(first!.logs(), key.openssh, key.pub, 'logs');
  });

  test('after a restart the key, the storage area and the tag are still there', async () => {
    second = await startServer({ dataDir, database: first!.database });
    assert.equal(readFileSync(join(dataDir, 'secret.key'), 'utf8'), keyFile, 'the key file was rewritten');
    let reply = await second.request('GET', `${KEYS}/${created.id}`);
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(reply.body.item, created);
    reply = await second.request('GET', `/en/api/config/storage-areas/${areaId}`);
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.body.item.ssh_key, created.id);
    reply = await second.request('GET', `/en/api/config/tags/${tagId}`);
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.body.item.name, 'restart-tag');
  });

  test('after a restart a PUT without privée still works: the stored key is decrypted with the same key file', async () => {
    assert.ok(second !== undefined, 'the server did not restart');
    const path = `${KEYS}/${created.id}`;
    let reply = await second.request('PUT', path, { body: { type: 'ED25519', pub: withComment(key.pub, 'after-restart@config-api') } });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.body.item.fingerprint, key.fingerprint);
    // And it is the very key stored before: another pub without privée is refused.
    reply = await second.request('PUT', path, { body: { type: 'ED25519', pub: other.pub } });
    assertOnlyField(reply, PRIV);
    // The delete rule still holds.
    reply = await second.request('DELETE', path);
    assert.equal(reply.status, 409, reply.text);
    assert.equal(reply.body.code, 'REFERENCED');
    assertNoKeyMaterial(second.logs(), key.openssh, key.pub, 'logs after restart');
  });
});

describe('ssh-keys: SECRET_KEY', () => {
  const firstKey = randomBytes(32).toString('hex');
  const secondKey = randomBytes(32).toString('hex');
  const key = makeKeyPair('ED25519', 'secret-key@config-api');
  let dataDir: string;
  let database: TestServer['database'] | undefined;
  let server: TestServer | undefined;
  let created: Record<string, any>;

  /** Starts over the suite's data folder and database (the first start creates the database). */
  async function start(secretKey: string, process = false): Promise<TestServer> {
    const started = await startServer({ dataDir, env: { SECRET_KEY: secretKey }, process, ...(database === undefined ? {} : { database }) });
    database ??= started.database;
    return started;
  }

  before(() => {
    dataDir = freshDataDir();
  });
  after(async () => {
    if (server !== undefined) await server.stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('with SECRET_KEY (64 hex digits): keys are stored and kept, and no key file is created', async () => {
    server = await start(firstKey);
    created = await createKey(server, key, key.pem);
    let reply = await server.request('PUT', `${KEYS}/${created.id}`, { body: { type: 'ED25519', pub: withComment(key.pub, 'one@config-api') } });
    assert.equal(reply.status, 200, reply.text);
    assert.ok(!existsSync(join(dataDir, 'secret.key')), 'a key file was created although SECRET_KEY is set');
    assert.equal(await server.stop(), 0);
    assertNoKeyMaterial(await databaseText(server), key.pem, key.pub, 'database');
    server = undefined;

    server = await start(firstKey);
    reply = await server.request('PUT', `${KEYS}/${created.id}`, { body: { type: 'ED25519', pub: withComment(key.pub, 'two@config-api') } });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.body.item.fingerprint, key.fingerprint);
    assertNoKeyMaterial(server.logs(), key.pem, key.pub, 'logs');
    assert.equal(await server.stop(), 0);
    server = undefined;
  });

  test('another SECRET_KEY over the same data stops the start-up with a clear message; the original key still works', async () => {
    assert.ok(created !== undefined, 'the previous test did not create the key');
    // A start-up that stops: a process of its own, whose exit and stderr are asserted.
    await assert.rejects(start(secondKey, true), (error: Error) => {
      assert.match(error.message, /exited with [1-9]\d* before listening/, error.message);
      assert.match(error.message, /SECRET_KEY.*not the one that sealed/, error.message);
      assert.ok(!error.message.includes(secondKey) && !error.message.includes(firstKey), 'the message repeats a secret value');
      return true;
    });

    server = await start(firstKey);
    const reply = await server.request('PUT', `${KEYS}/${created.id}`, { body: { type: 'ED25519', pub: withComment(key.pub, 'three@config-api') } });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(await server.stop(), 0);
    server = undefined;
  });

  test('SECRET_KEY as base64 of 32 bytes works', async () => {
    const dir = freshDataDir();
    let base64Server: TestServer | undefined;
    try {
      base64Server = await startServer({ dataDir: dir, env: { SECRET_KEY: randomBytes(32).toString('base64') } });
      const other = makeKeyPair('RSA');
      await createKey(base64Server, other, other.pem);
    } finally {
      if (base64Server !== undefined) {
        await base64Server.stop();
        await base64Server.cleanup();
      }
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
