// Contract section 18, the export: GET /{lang}/api/export over HTTP against the started service,
// on the backend of TEST_DATABASE. The same configuration, made through the API, must give the
// one fixed document below on every backend (ids, timestamps and write-only fields left out,
// references by natural key, soft-deleted servers left out, entries sorted by key, text by code
// point); YAML must read as the same document; `change_id` is the last change; read access;
// and a write made while an export is held back by its reader is not in it (one snapshot).
import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { randomBytes } from 'node:crypto';
import { before, describe, test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { serverPerSuite } from './support/server.js';
import { makeKeyPair, type TestKeyPair } from './support/ssh-keys.js';
import { bearer, createToken } from './support/tokens.js';
import { until } from './support/until.js';

const ADMIN = `pmc-admin-${randomBytes(16).toString('hex')}`;
const server = serverPerSuite({ env: { API_TOKENS: `export-admin=admin:${ADMIN}` } });
const EXPORT = '/en/api/export';
const CONFIG = '/en/api/config';
let reader = '';
let key: TestKeyPair;
const ids: Record<string, number> = {};

async function create(resource: string, body: unknown): Promise<any> {
  const reply = await server.request('POST', `${CONFIG}/${resource}`, { headers: bearer(ADMIN), body });
  assert.equal(reply.status, 201, reply.text);
  return reply.body;
}

const read = (path = EXPORT, headers: Record<string, string> = {}) => server.request('GET', path, { headers: { ...bearer(reader), ...headers } });

/** The id of the last change the change log shows now. */
async function lastChangeId(): Promise<number> {
  let since = 0;
  for (;;) {
    const reply = await server.request('GET', `/en/api/changes?since=${since}&limit=1000`, { headers: bearer(ADMIN) });
    assert.equal(reply.status, 200, reply.text);
    const items = reply.body.items as { id: number }[];
    if (items.length === 0) return since;
    since = items[items.length - 1]!.id;
  }
}

const BUILT_IN_ENVIRONMENTS = [
  { libelle: 'Developpement', key: 'dev', class: 'success', letter: 'D' },
  { libelle: 'Integration', key: 'integration', class: 'info', letter: 'I' },
  { libelle: 'Preprod', key: 'preprod', class: 'warning', letter: 'U' },
  { libelle: 'Production', key: 'prod', class: 'danger', letter: 'P' },
  { libelle: 'Recipe', key: 'recette', class: 'default', letter: 'R' },
];

const server_ = (ip: string, port: number, fields: Record<string, unknown> = {}) => ({
  ip,
  port,
  hostname: '',
  ssl: false,
  ssh: false,
  is_proxy: false,
  is_vip: false,
  is_monitored: true,
  id_client: null,
  id_environment: null,
  tags: [],
  ...fields,
});

/** What every backend must export for the configuration made in before(), but the change id. */
function expectedDocument(): Record<string, unknown> {
  const tag = (name: string, background = '#337ab7') => ({ name, color: '#ffffff', background });
  return {
    version: 1,
    tags: [tag('Zeta'), tag('backup', '#000000'), tag('galera'), tag('ünï')],
    clients: [
      { libelle: 'ACME', logo: 'acme.png', is_monitored: true },
      { libelle: 'Beta Corp', logo: '', is_monitored: false },
      { libelle: 'system', logo: '', is_monitored: false },
    ],
    environments: [
      ...BUILT_IN_ENVIRONMENTS,
      { libelle: 'Staging', key: 'staging', class: 'warning', letter: 'S' },
      { libelle: 'Test', key: 'test', class: 'primary', letter: 'T' },
    ],
    servers: [
      // Text by code point: "10.0.0.10" before "10.0.0.5"; the port as a number after the ip.
      server_('10.0.0.10', 3306, { hostname: 'db-10', id_client: 'Beta Corp', tags: ['backup'] }),
      server_('10.0.0.5', 3306, { hostname: 'db-5', ssl: true, id_client: 'ACME', id_environment: 'prod', tags: ['Zeta', 'galera', 'ünï'] }),
      server_('10.0.0.5', 3307, { id_environment: 'staging', is_monitored: false }),
      server_('2001:db8::7', 33060, { is_vip: true, id_client: 'ACME', tags: ['galera'] }),
    ],
    aliases: [
      { id_mysql_server: '2001:db8::7:33060', dns: 'db-v6.example.com', port: 33060 },
      { id_mysql_server: '10.0.0.5:3306', dns: 'db.example.com', port: 3306 },
    ],
    'ssh-keys': [{ type: 'ED25519', pub: key.pub, fingerprint: key.fingerprint }],
    'storage-areas': [{ ip: '192.0.2.10', port: 22, path: '/srv/backups', libelle: 'Backups Paris', ssh_key: key.fingerprint, 'géolocalisation': null }],
  };
}

function withoutChangeId(document: Record<string, unknown>): Record<string, unknown> {
  const { change_id: _changeId, ...rest } = document;
  return rest;
}

describe('configuration export', () => {
  before(async () => {
    // Made in an order other than the document's, so that ids do not give its order.
    ids.galera = (await create('tags', { name: 'galera' })).id;
    ids.unicode = (await create('tags', { name: 'ünï' })).id;
    ids.zeta = (await create('tags', { name: 'Zeta' })).id;
    ids.backup = (await create('tags', { name: 'backup', background: '#000000' })).id;
    ids.beta = (await create('clients', { libelle: 'Beta Corp', is_monitored: false })).id;
    ids.acme = (await create('clients', { libelle: 'ACME', logo: 'acme.png' })).id;
    ids.staging = (await create('environments', { libelle: 'Staging', key: 'staging', class: 'warning', letter: 'S' })).id;
    key = makeKeyPair('ED25519');
    ids.key = (await create('ssh-keys', { type: key.type, pub: key.pub, 'privée': key.openssh })).id;
    await create('storage-areas', { ip: '192.0.2.10', path: '/srv/backups', libelle: 'Backups Paris', ssh_key: ids.key });
    const v6 = (await create('servers', { ip: '2001:db8::7', port: 33060, is_vip: true, id_client: ids.acme, tags: [ids.galera] })).id;
    const five = (await create('servers', { ip: '10.0.0.5', port: 3306, hostname: 'db-5', ssl: true, id_client: ids.acme, id_environment: 4, tags: [ids.unicode, ids.galera, ids.zeta] })).id;
    await create('servers', { ip: '10.0.0.5', port: 3307, id_environment: ids.staging, is_monitored: false });
    await create('servers', { ip: '10.0.0.10', port: 3306, hostname: 'db-10', id_client: ids.beta, tags: [ids.backup] });
    const gone = (await create('servers', { ip: '10.0.0.9', port: 3306, hostname: 'gone', id_client: ids.acme, tags: [ids.galera] })).id;
    await create('aliases', { id_mysql_server: five, dns: 'db.example.com', port: 3306 });
    await create('aliases', { id_mysql_server: v6, dns: 'db-v6.example.com', port: 33060 });
    assert.equal((await server.request('DELETE', `${CONFIG}/servers/${gone}`, { headers: bearer(ADMIN) })).status, 200);
    reader = (await createToken(server, ADMIN, { name: 'export-reader', scope: 'read' })).token;
  });

  test('the whole configuration, the same fixed document on every backend: no ids, timestamps or private keys, references by natural key, soft-deleted servers left out, sorted by key', async () => {
    const reply = await read();
    assert.equal(reply.status, 200, reply.text);
    assert.match(reply.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(withoutChangeId(reply.body), expectedDocument());
    // Resources in dependency order: each after those it references.
    assert.deepEqual(Object.keys(reply.body), ['version', 'change_id', 'tags', 'clients', 'environments', 'servers', 'aliases', 'ssh-keys', 'storage-areas']);
    assert.doesNotMatch(reply.text, /"(id|created_at|updated_at|is_deleted|privée)"/);
    assert.ok(!reply.text.includes(key.openssh.split('\n')[1]!), 'no line of the private key');
    assert.equal(reply.headers.get('change-id'), String(reply.body.change_id));
  });

  test('change_id is the last change of the change log', async () => {
    let seen: number[] = [];
    await until('an export whose change_id is the change log’s last id', async () => {
      const before = await lastChangeId();
      const exported = (await read()).body.change_id as number;
      seen = [before, exported, await lastChangeId()];
      return before > 0 && seen.every((id) => id === before);
    });
    const previous = seen[0]!;
    await create('tags', { name: 'later' });
    await until('the next change in the export', async () => (await read()).body.change_id === previous + 1);
    const document = (await read()).body;
    assert.deepEqual(document.tags.map((tag: any) => tag.name), ['Zeta', 'backup', 'galera', 'later', 'ünï']);
    const later = await server.request('GET', `${CONFIG}/tags?name=later`, { headers: bearer(ADMIN) });
    assert.equal((await server.request('DELETE', `${CONFIG}/tags/${later.body.items[0].id}`, { headers: bearer(ADMIN) })).status, 200);
  });

  test('YAML, by Accept or ?format=yaml, reads as the same document', async () => {
    const json = (await read()).body;
    for (const [path, headers] of [
      [`${EXPORT}?format=yaml`, {}],
      [EXPORT, { accept: 'application/yaml' }],
      [EXPORT, { accept: 'application/json;q=0.5, application/yaml' }],
    ] as const) {
      const reply = await read(path, headers);
      assert.equal(reply.status, 200, reply.text);
      assert.match(reply.headers.get('content-type') ?? '', /^application\/yaml/);
      assert.deepEqual(parseYaml(reply.text), json, `${path} ${JSON.stringify(headers)}`);
    }
    // JSON when Accept prefers it, or takes anything; ?format wins over Accept.
    for (const [path, headers] of [
      [EXPORT, { accept: '*/*' }],
      [EXPORT, { accept: 'application/yaml;q=0.1, application/json' }],
      [`${EXPORT}?format=json`, { accept: 'application/yaml' }],
    ] as const) {
      assert.match((await read(path, headers)).headers.get('content-type') ?? '', /^application\/json/, `${path} ${JSON.stringify(headers)}`);
    }
  });

  test('a bad query is a 400 problem', async () => {
    for (const query of ['format=xml', 'limit=10']) {
      const reply = await read(`${EXPORT}?${query}`);
      assert.equal(reply.status, 400, query);
      assert.match(reply.headers.get('content-type') ?? '', /^application\/problem\+json/);
      assert.equal(reply.body.code, 'BAD_QUERY');
    }
  });

  test('read scope: a read token reads it; no token or an unknown one is 401; a write is 405', async () => {
    assert.equal((await read()).status, 200);
    assert.equal((await server.request('GET', EXPORT)).status, 401);
    assert.equal((await server.request('GET', EXPORT, { headers: bearer('pmcapi_not-a-token') })).status, 401);
    assert.equal((await server.request('POST', EXPORT, { headers: bearer(ADMIN), body: {} })).status, 405);
  });

  test('one snapshot: a write made while the export is held back by its reader is not in it', async () => {
    // Enough servers that the answer outgrows the socket buffers: the reader holds it back.
    const count = 6000;
    for (let start = 0; start < count; start += 1000) {
      const batch = Array.from({ length: 1000 }, (_, i) => ({ ip: `10.9.${Math.floor((start + i) / 250)}.${(start + i) % 250}`, port: 3306, hostname: 'x'.repeat(150) }));
      const reply = await server.request('POST', `${CONFIG}/servers`, { headers: bearer(ADMIN), body: batch });
      assert.equal(reply.status, 201, reply.text);
    }
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const outgoing = httpRequest(`${server.url}${EXPORT}`, { headers: bearer(reader) }, resolve);
      outgoing.on('error', reject);
      outgoing.end();
    });
    assert.equal(response.statusCode, 200);
    response.pause();
    const heldChangeId = Number(response.headers['change-id']);
    // Written while the answer is still being read: a new alias (written after the servers)
    // and a changed tag (written before them).
    const v6 = await server.request('GET', `${CONFIG}/servers?ip=2001:db8::7`, { headers: bearer(ADMIN) });
    await create('aliases', { id_mysql_server: v6.body.items[0].id, dns: 'late.example.com', port: 3306 });
    assert.equal((await server.request('PATCH', `${CONFIG}/tags/${ids.zeta}`, { headers: bearer(ADMIN), body: { color: '#123456' } })).status, 200);
    const chunks: Buffer[] = [];
    for await (const chunk of response) chunks.push(chunk as Buffer);
    const held = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    assert.equal(held.change_id, heldChangeId);
    assert.equal(held.servers.length, 4 + count);
    assert.ok(!held.aliases.some((alias: any) => alias.dns === 'late.example.com'), 'the alias written meanwhile is not in the held export');
    assert.equal(held.tags.find((tag: any) => tag.name === 'Zeta').color, '#ffffff');
    await until('both writes in a new export', async () => {
      const now = (await read()).body;
      return now.aliases.some((alias: any) => alias.dns === 'late.example.com') && now.tags.find((tag: any) => tag.name === 'Zeta').color === '#123456' && now.change_id > held.change_id;
    });
  });
});
