// The seven resources over HTTP: shapes of section 2, fields and defaults of section 3,
// built-in rows and delete rules of section 4, and data surviving a restart.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { serverPerSuite, startServer } from './support/server.js';
import { makeKeyPair } from './support/ssh-keys.js';

let counter = 0;
const unique = (prefix: string): string => `${prefix}-${process.pid}-${++counter}`;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const server = serverPerSuite();

async function create(resource: string, body: Record<string, unknown>): Promise<Record<string, any>> {
  const reply = await server.request('POST', `/en/api/config/${resource}`, { body });
  assert.equal(reply.status, 201, reply.text);
  return reply.body.item;
}

async function newServer(overrides: Record<string, unknown> = {}): Promise<Record<string, any>> {
  return create('servers', { ip: `10.1.${counter % 250}.${++counter % 250}`, port: 3306 + counter, ...overrides });
}

async function newSshKey(): Promise<Record<string, any>> {
  const pair = makeKeyPair('ED25519');
  return create('ssh-keys', { type: pair.type, pub: pair.pub, 'privée': pair.openssh });
}

describe('response shapes (section 2)', () => {
  test('POST answers 201 with Location and {id, resource, item}', async () => {
    const reply = await server.request('POST', '/fr/api/config/tags', { body: { name: unique('shape') } });
    assert.equal(reply.status, 201);
    assert.match(reply.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(reply.body.resource, 'tags');
    assert.equal(typeof reply.body.id, 'number');
    assert.equal(reply.body.item.id, reply.body.id);
    assert.equal(reply.headers.get('location'), `/fr/api/config/tags/${reply.body.id}`);
    const located = await server.request('GET', reply.headers.get('location')!);
    assert.equal(located.status, 200);
    assert.deepEqual(located.body, { item: reply.body.item });
  });

  test('GET list answers {items, total, total_exact, limit, offset}, newest first', async () => {
    const first = await create('tags', { name: unique('list') });
    const second = await create('tags', { name: unique('list') });
    const reply = await server.request('GET', '/en/api/config/tags');
    assert.equal(reply.status, 200);
    assert.deepEqual(Object.keys(reply.body).sort(), ['items', 'limit', 'next', 'offset', 'total', 'total_exact']);
    assert.equal(reply.body.limit, 100);
    assert.equal(reply.body.offset, 0);
    assert.equal(reply.body.total, reply.body.items.length);
    const ids = reply.body.items.map((item: { id: number }) => item.id);
    assert.ok(ids.indexOf(second.id) < ids.indexOf(first.id), 'newest first');
  });

  test('limit and offset page through a list; total counts every entry', async () => {
    for (let i = 0; i < 3; i++) await create('clients', { libelle: unique('page') });
    const all = await server.request('GET', '/en/api/config/clients');
    const page = await server.request('GET', '/en/api/config/clients?limit=2&offset=1');
    assert.equal(page.status, 200);
    assert.equal(page.body.limit, 2);
    assert.equal(page.body.offset, 1);
    assert.equal(page.body.total, all.body.total);
    assert.deepEqual(page.body.items, all.body.items.slice(1, 3));
  });

  test('PUT and PATCH answer {id, resource, updated, item}; DELETE {id, deleted, mode}', async () => {
    const tag = await create('tags', { name: unique('verbs') });
    const put = await server.request('PUT', `/en/api/config/tags/${tag.id}`, { body: { name: unique('verbs') } });
    assert.equal(put.status, 200);
    assert.deepEqual(Object.keys(put.body).sort(), ['id', 'item', 'resource', 'updated']);
    assert.equal(put.body.updated, true);
    const patch = await server.request('PATCH', `/en/api/config/tags/${tag.id}`, { body: { color: '#000000' } });
    assert.equal(patch.status, 200);
    assert.equal(patch.body.resource, 'tags');
    const removed = await server.request('DELETE', `/en/api/config/tags/${tag.id}`);
    assert.equal(removed.status, 200);
    assert.deepEqual(removed.body, { id: tag.id, deleted: true, mode: 'hard' });
  });
});

describe('every resource: fields, defaults and a full lifecycle (section 3)', () => {
  test('every entry carries id, created_at and updated_at in ISO 8601 UTC', async () => {
    const tag = await create('tags', { name: unique('stamp') });
    assert.match(tag.created_at, ISO_UTC);
    assert.equal(tag.updated_at, tag.created_at);
    await new Promise((done) => setTimeout(done, 5));
    const patched = await server.request('PATCH', `/en/api/config/tags/${tag.id}`, { body: { color: '#123456' } });
    assert.equal(patched.body.item.created_at, tag.created_at);
    assert.ok(patched.body.item.updated_at > tag.updated_at, 'updated_at moves forward');
  });

  test('tags: defaults #ffffff and #337ab7, strings trimmed', async () => {
    const name = unique('trim');
    const tag = await create('tags', { name: `  ${name}  ` });
    assert.deepEqual(
      { name: tag.name, color: tag.color, background: tag.background },
      { name, color: '#ffffff', background: '#337ab7' },
    );
  });

  test('clients: logo defaults to "", is_monitored to true; 0/1 are accepted as booleans', async () => {
    const client = await create('clients', { libelle: unique('client') });
    assert.equal(client.logo, '');
    assert.equal(client.is_monitored, true);
    const other = await create('clients', { libelle: unique('client'), is_monitored: 0 });
    assert.equal(other.is_monitored, false);
  });

  test('environments: new ones get ids above 6', async () => {
    const environment = await create('environments', { libelle: unique('env').slice(0, 20), key: `k${counter}`, class: 'info', letter: 'K' });
    assert.ok(environment.id > 6);
    assert.equal(environment.class, 'info');
    assert.equal(environment.letter, 'K');
  });

  test('servers: defaults, booleans, is_deleted 0', async () => {
    const entry = await create('servers', { ip: '192.0.2.77' });
    assert.deepEqual(
      { ...entry, id: 0, created_at: '', updated_at: '' },
      {
        id: 0, ip: '192.0.2.77', port: 3306, hostname: '', ssl: false, ssh: false, is_proxy: false, is_vip: false,
        // Section 11: no client, no environment, no tags unless sent.
        is_monitored: true, is_deleted: 0, id_client: null, id_environment: null, tags: [], created_at: '', updated_at: '',
      },
    );
  });

  test('servers: ip accepts IPv6 (stored in canonical form) and DNS names (lower case)', async () => {
    const v6 = await create('servers', { ip: '2001:DB8:0:0:0:0:0:1', port: 3307 });
    assert.equal(v6.ip, '2001:db8::1');
    const named = await create('servers', { ip: 'DB-01.Example.COM', port: 3307 });
    assert.equal(named.ip, 'db-01.example.com');
  });

  test('aliases: reference a live server; dns kept in lower case', async () => {
    const target = await newServer();
    const alias = await create('aliases', { id_mysql_server: target.id, dns: 'Primary.DB.example.com', port: 3306 });
    assert.equal(alias.id_mysql_server, target.id);
    assert.equal(alias.dns, 'primary.db.example.com');
  });

  test('storage-areas: port defaults to 22, géolocalisation to null, UTF-8 names and values', async () => {
    const key = await newSshKey();
    const area = await create('storage-areas', { ip: '192.0.2.5', path: '/srv/backup', libelle: 'Sauvegardes privées', ssh_key: key.id });
    assert.equal(area.port, 22);
    assert.equal(area['géolocalisation'], null);
    assert.equal(area.libelle, 'Sauvegardes privées');
    const located = await create('storage-areas', {
      ip: '2001:db8::5', path: '/srv/b', libelle: '東京 バックアップ', ssh_key: key.id, 'géolocalisation': 'Paris, FR',
    });
    assert.equal(located['géolocalisation'], 'Paris, FR');
    assert.equal(located.libelle, '東京 バックアップ');
  });

  test('each resource goes through create, read, list, replace, patch and delete', async () => {
    const key = await newSshKey();
    const server1 = await newServer();
    const bodies: Record<string, [Record<string, unknown>, Record<string, unknown>, Record<string, unknown>]> = {
      tags: [{ name: unique('life') }, { name: unique('life'), color: '#010101' }, { background: '#020202' }],
      clients: [{ libelle: unique('life') }, { libelle: unique('life'), logo: 'x.png' }, { is_monitored: false }],
      environments: [
        { libelle: `L${counter}a`, key: `la${counter}`, class: 'success', letter: 'L' },
        { libelle: `L${counter}b`, key: `lb${counter}`, class: 'danger', letter: 'M' },
        { letter: 'N' },
      ],
      aliases: [
        { id_mysql_server: server1.id, dns: `${unique('a')}.example.com`, port: 3306 },
        { id_mysql_server: server1.id, dns: `${unique('b')}.example.com`, port: 3307 },
        { port: 3308 },
      ],
      'storage-areas': [
        { ip: '192.0.2.9', path: '/a', libelle: 'one', ssh_key: key.id },
        { ip: '192.0.2.10', path: '/b', libelle: 'two', ssh_key: key.id, port: 2222 },
        { 'géolocalisation': 'Lyon, FR' },
      ],
      servers: [{ ip: '198.51.100.1', port: 3310 }, { ip: '198.51.100.2', port: 3311, ssl: true }, { is_monitored: false }],
    };
    for (const [resource, [created, replaced, patched]] of Object.entries(bodies)) {
      const entry = await create(resource, created);
      const path = `/en/api/config/${resource}/${entry.id}`;
      assert.deepEqual((await server.request('GET', path)).body.item, entry, resource);
      const listed = await server.request('GET', `/en/api/config/${resource}?limit=1000`);
      assert.ok(listed.body.items.some((item: { id: number }) => item.id === entry.id), `${resource} listed`);

      const put = await server.request('PUT', path, { body: replaced });
      assert.equal(put.status, 200, `${resource} PUT: ${put.text}`);
      for (const [field, value] of Object.entries(replaced)) assert.equal(put.body.item[field], value, `${resource}.${field}`);

      const patch = await server.request('PATCH', path, { body: patched });
      assert.equal(patch.status, 200, `${resource} PATCH: ${patch.text}`);
      assert.deepEqual(patch.body.item, { ...put.body.item, ...patched, updated_at: patch.body.item.updated_at }, resource);

      const removed = await server.request('DELETE', path);
      assert.equal(removed.status, 200, `${resource} DELETE: ${removed.text}`);
      assert.equal(removed.body.mode, resource === 'servers' ? 'soft' : 'hard');
    }
  });
});

describe('PUT replaces, PATCH changes only what is sent; neither creates', () => {
  test('PUT returns omitted optional fields to their defaults', async () => {
    const tag = await create('tags', { name: unique('put'), color: '#111111', background: '#222222' });
    const reply = await server.request('PUT', `/en/api/config/tags/${tag.id}`, { body: { name: tag.name } });
    assert.equal(reply.status, 200);
    assert.equal(reply.body.item.color, '#ffffff');
    assert.equal(reply.body.item.background, '#337ab7');
  });

  test('PUT without a required field is 422 and changes nothing', async () => {
    const tag = await create('tags', { name: unique('put'), color: '#111111' });
    const reply = await server.request('PUT', `/en/api/config/tags/${tag.id}`, { body: { color: '#333333' } });
    assert.equal(reply.status, 422);
    assert.deepEqual(reply.body.errors.map((e: { field: string }) => e.field), ['name']);
    assert.deepEqual((await server.request('GET', `/en/api/config/tags/${tag.id}`)).body.item, tag);
  });

  test('PATCH {"is_monitored": true} alone works and keeps every other field', async () => {
    const entry = await newServer({ is_monitored: false, ssl: true, hostname: 'keep-me' });
    const reply = await server.request('PATCH', `/en/api/config/servers/${entry.id}`, { body: { is_monitored: true } });
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body.item, { ...entry, is_monitored: true, updated_at: reply.body.item.updated_at });
  });

  test('PATCH with an empty object changes nothing but updated_at', async () => {
    const tag = await create('tags', { name: unique('empty'), color: '#444444' });
    const reply = await server.request('PATCH', `/en/api/config/tags/${tag.id}`, { body: {} });
    assert.equal(reply.status, 200);
    assert.equal(reply.body.item.color, '#444444');
  });

  test('PUT and PATCH on a missing id are 404 and create nothing', async () => {
    const before = await server.request('GET', '/en/api/config/tags?limit=1000');
    for (const method of ['PUT', 'PATCH']) {
      const reply = await server.request(method, '/en/api/config/tags/987654', { body: { name: unique('ghost') } });
      assert.equal(reply.status, 404, method);
      assert.equal(reply.body.code, 'NOT_FOUND');
    }
    assert.equal((await server.request('GET', '/en/api/config/tags/987654')).status, 404);
    assert.equal((await server.request('GET', '/en/api/config/tags?limit=1000')).body.total, before.body.total);
  });

  test('a body sent back from GET (with id and timestamps) is accepted by PUT', async () => {
    const tag = await create('tags', { name: unique('echo') });
    const reply = await server.request('PUT', `/en/api/config/tags/${tag.id}`, { body: { ...tag, color: '#abcdef' } });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.body.item.color, '#abcdef');
    assert.equal(reply.body.item.created_at, tag.created_at);
  });
});

describe('built-in rows and delete rules (section 4)', () => {
  test('the first migration creates environments 1-6 and client 99', async () => {
    const expected = [
      [1, 'Production', 'prod', 'danger', 'P'],
      [2, 'Preprod', 'preprod', 'warning', 'U'],
      [3, 'Recipe', 'recette', 'default', 'R'],
      [4, 'Integration', 'integration', 'info', 'I'],
      [5, 'Developpement', 'dev', 'success', 'D'],
      [6, 'Test', 'test', 'primary', 'T'],
    ];
    for (const [id, libelle, key, klass, letter] of expected) {
      const reply = await server.request('GET', `/en/api/config/environments/${id}`);
      assert.equal(reply.status, 200);
      const { libelle: l, key: k, class: c, letter: t } = reply.body.item;
      assert.deepEqual([l, k, c, t], [libelle, key, klass, letter]);
    }
    const client = await server.request('GET', '/en/api/config/clients/99');
    assert.equal(client.body.item.libelle, 'system');
    assert.equal(client.body.item.is_monitored, false);
  });

  test('client 99 and environments 1-6 refuse DELETE with 409 DELETE_GUARDED and stay', async () => {
    for (const path of ['/en/api/config/clients/99', ...[1, 2, 3, 4, 5, 6].map((id) => `/fr/api/config/environments/${id}`)]) {
      const reply = await server.request('DELETE', path);
      assert.equal(reply.status, 409, path);
      assert.equal(reply.body.code, 'DELETE_GUARDED');
      assert.match(reply.headers.get('content-type') ?? '', /^application\/problem\+json/);
      assert.equal((await server.request('GET', path)).status, 200, `${path} stays`);
    }
  });

  test('environments above 6 and other clients are deleted for good', async () => {
    const environment = await create('environments', { libelle: `Del${counter}`, key: `del${counter}`, class: 'info', letter: 'X' });
    const client = await create('clients', { libelle: unique('gone') });
    for (const path of [`/en/api/config/environments/${environment.id}`, `/en/api/config/clients/${client.id}`]) {
      assert.equal((await server.request('DELETE', path)).status, 200);
      assert.equal((await server.request('GET', path)).status, 404);
      assert.equal((await server.request('DELETE', path)).status, 404, 'a second hard delete is 404');
    }
  });

  test('servers are soft-deleted: readable by id, out of lists unless include_deleted=true, second DELETE 200', async () => {
    const entry = await newServer();
    const path = `/en/api/config/servers/${entry.id}`;
    const removed = await server.request('DELETE', path);
    assert.deepEqual(removed.body, { id: entry.id, deleted: true, mode: 'soft' });
    const read = await server.request('GET', path);
    assert.equal(read.status, 200);
    assert.equal(read.body.item.is_deleted, 1);
    const listed = await server.request('GET', '/en/api/config/servers?limit=1000');
    assert.ok(!listed.body.items.some((item: { id: number }) => item.id === entry.id));
    const withDeleted = await server.request('GET', '/en/api/config/servers?limit=1000&include_deleted=true');
    assert.ok(withDeleted.body.items.some((item: { id: number }) => item.id === entry.id));
    assert.equal(withDeleted.body.total, listed.body.total + (withDeleted.body.total - listed.body.total));
    assert.ok(withDeleted.body.total > listed.body.total);
    const again = await server.request('DELETE', path);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, { id: entry.id, deleted: true, mode: 'soft' });
  });

  test('a PUT does not bring a deleted server back', async () => {
    const entry = await newServer();
    await server.request('DELETE', `/en/api/config/servers/${entry.id}`);
    const reply = await server.request('PUT', `/en/api/config/servers/${entry.id}`, { body: { ip: entry.ip, port: entry.port, is_deleted: 0 } });
    assert.equal(reply.status, 200);
    assert.equal(reply.body.item.is_deleted, 1);
  });

  test('include_deleted is refused on resources that are not soft-deleted', async () => {
    const reply = await server.request('GET', '/en/api/config/tags?include_deleted=true');
    assert.equal(reply.status, 400);
    assert.equal(reply.body.code, 'BAD_QUERY');
  });

  test('an alias cannot point at a deleted server (422), and a server with aliases refuses DELETE (409 REFERENCED)', async () => {
    const target = await newServer();
    const alias = await create('aliases', { id_mysql_server: target.id, dns: `${unique('ref')}.example.com`, port: 3306 });
    const refused = await server.request('DELETE', `/en/api/config/servers/${target.id}`);
    assert.equal(refused.status, 409);
    assert.equal(refused.body.code, 'REFERENCED');
    assert.deepEqual(refused.body.referenced_by, [{ resource: 'aliases', ids: [alias.id] }]);
    assert.match(refused.body.detail, new RegExp(`aliases ${alias.id}`));
    assert.equal((await server.request('GET', `/en/api/config/servers/${target.id}`)).body.item.is_deleted, 0);

    await server.request('DELETE', `/en/api/config/aliases/${alias.id}`);
    assert.equal((await server.request('DELETE', `/en/api/config/servers/${target.id}`)).status, 200);
    const late = await server.request('POST', '/en/api/config/aliases', {
      body: { id_mysql_server: target.id, dns: `${unique('late')}.example.com`, port: 3306 },
    });
    assert.equal(late.status, 422);
    assert.deepEqual(late.body.errors.map((e: { field: string }) => e.field), ['id_mysql_server']);
  });

  test('a soft-deleted server frees its (ip, port) for a new server', async () => {
    const first = await create('servers', { ip: '203.0.113.50', port: 3399 });
    const clash = await server.request('POST', '/en/api/config/servers', { body: { ip: '203.0.113.50', port: 3399 } });
    assert.equal(clash.status, 409);
    await server.request('DELETE', `/en/api/config/servers/${first.id}`);
    const again = await create('servers', { ip: '203.0.113.50', port: 3399 });
    assert.notEqual(again.id, first.id);
  });
});

describe('restart', () => {
  test('data written before a stop is there after a restart', async () => {
    const own = await startServer();
    const tag = (await own.request('POST', '/en/api/config/tags', { body: { name: 'persisted' } })).body.item;
    const entry = (await own.request('POST', '/en/api/config/servers', { body: { ip: '192.0.2.200' } })).body.item;
    await own.request('DELETE', `/en/api/config/servers/${entry.id}`);
    assert.equal(await own.stop(), 0);

    const again = await startServer({ dataDir: own.dataDir, database: own.database });
    try {
      assert.deepEqual((await again.request('GET', `/en/api/config/tags/${tag.id}`)).body.item, tag);
      assert.equal((await again.request('GET', `/en/api/config/servers/${entry.id}`)).body.item.is_deleted, 1);
      const environments = await again.request('GET', '/en/api/config/environments');
      assert.equal(environments.body.total, 6, 'migrations do not seed twice');
      const next = (await again.request('POST', '/en/api/config/tags', { body: { name: 'after-restart' } })).body.item;
      assert.ok(next.id > tag.id);
    } finally {
      await again.stop();
      await own.cleanup();
    }
  });
});
