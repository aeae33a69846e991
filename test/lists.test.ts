// Lists (contract section 7): limit, offset, sort, equality filters, q, include_deleted,
// total, and a 400 BAD_QUERY for every invalid parameter.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startServer, type TestServer } from './support/server.js';
import { makeKeyPair } from './support/ssh-keys.js';

let server: TestServer;
const SERVERS = '/en/api/config/servers';

interface Server {
  id: number;
  ip: string;
  port: number;
  hostname: string;
  is_monitored: boolean;
  ssl: boolean;
  is_deleted: number;
}

let fleet: Server[] = [];

async function list(path: string): Promise<{ status: number; body: any }> {
  return server.request('GET', path);
}

const ids = (items: { id: number }[]): number[] => items.map((item) => item.id);

before(async () => {
  server = await startServer();
  const specs = [
    { ip: '10.0.0.1', port: 3306, hostname: 'Alpha-Primary', is_monitored: true, ssl: false },
    { ip: '10.0.0.2', port: 3306, hostname: 'beta-replica', is_monitored: false, ssl: true },
    { ip: '10.0.0.3', port: 3307, hostname: 'gamma', is_monitored: true, ssl: true },
    { ip: 'db.example.com', port: 3306, hostname: 'Café-Paris', is_monitored: true, ssl: false },
    { ip: '10.0.0.5', port: 3308, hostname: '100%_sure', is_monitored: false, ssl: false },
    { ip: '10.0.0.6', port: 3306, hostname: 'deleted-one', is_monitored: true, ssl: false },
  ];
  for (const spec of specs) {
    const reply = await server.request('POST', SERVERS, { body: spec });
    assert.equal(reply.status, 201, reply.text);
    fleet.push(reply.body.item);
  }
  const removed = fleet[5]!;
  assert.equal((await server.request('DELETE', `${SERVERS}/${removed.id}`)).status, 200);
  fleet = fleet.map((entry) => (entry.id === removed.id ? { ...entry, is_deleted: 1 } : entry));
});
after(async () => {
  await server.stop();
  await server.cleanup();
});

const live = (): Server[] => fleet.filter((entry) => entry.is_deleted === 0);
const newestFirst = (entries: Server[]): number[] => ids([...entries].sort((a, b) => b.id - a.id));

describe('paging', () => {
  test('default: newest first, limit 100, offset 0, total of live servers', async () => {
    const reply = await list(SERVERS);
    assert.equal(reply.status, 200);
    assert.deepEqual(ids(reply.body.items), newestFirst(live()));
    assert.equal(reply.body.total, live().length);
    assert.equal(reply.body.limit, 100);
    assert.equal(reply.body.offset, 0);
  });

  test('limit and offset cut pages; total still counts every match', async () => {
    const first = await list(`${SERVERS}?limit=2`);
    const second = await list(`${SERVERS}?limit=2&offset=2`);
    const beyond = await list(`${SERVERS}?limit=2&offset=50`);
    assert.deepEqual([...ids(first.body.items), ...ids(second.body.items)], newestFirst(live()).slice(0, 4));
    assert.equal(first.body.total, live().length);
    assert.equal(second.body.total, live().length);
    assert.deepEqual(beyond.body.items, []);
    assert.equal(beyond.body.total, live().length);
  });

  test('limit 1000 is the most', async () => {
    assert.equal((await list(`${SERVERS}?limit=1000`)).status, 200);
  });
});

describe('sort', () => {
  test('ascending and descending by one field, ties broken by id in the same direction', async () => {
    const byPort = await list(`${SERVERS}?sort=port`);
    const expected = [...live()].sort((a, b) => a.port - b.port || a.id - b.id);
    assert.deepEqual(ids(byPort.body.items), ids(expected));
    const byPortDesc = await list(`${SERVERS}?sort=-port`);
    assert.deepEqual(ids(byPortDesc.body.items), ids([...live()].sort((a, b) => b.port - a.port || b.id - a.id)));
  });

  test('several fields', async () => {
    const reply = await list(`${SERVERS}?sort=-is_monitored,ip`);
    const expected = [...live()].sort((a, b) => Number(b.is_monitored) - Number(a.is_monitored) || (a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : 0));
    assert.deepEqual(ids(reply.body.items), ids(expected));
  });

  test('by id ascending', async () => {
    assert.deepEqual(ids((await list(`${SERVERS}?sort=id`)).body.items), [...newestFirst(live())].reverse());
  });

  test('by created_at and updated_at', async () => {
    assert.equal((await list(`${SERVERS}?sort=-updated_at,created_at`)).status, 200);
  });
});

describe('equality filters', () => {
  test('a boolean field', async () => {
    const reply = await list(`${SERVERS}?is_monitored=false`);
    assert.deepEqual(ids(reply.body.items), newestFirst(live().filter((entry) => !entry.is_monitored)));
    assert.equal(reply.body.total, live().filter((entry) => !entry.is_monitored).length);
  });

  test('an integer field, a string field, and both together', async () => {
    assert.deepEqual(ids((await list(`${SERVERS}?port=3306`)).body.items), newestFirst(live().filter((e) => e.port === 3306)));
    assert.deepEqual(ids((await list(`${SERVERS}?ip=10.0.0.3`)).body.items), newestFirst(live().filter((e) => e.ip === '10.0.0.3')));
    const both = await list(`${SERVERS}?port=3306&ssl=true`);
    assert.deepEqual(ids(both.body.items), newestFirst(live().filter((e) => e.port === 3306 && e.ssl)));
    assert.equal(both.body.total, both.body.items.length);
  });

  test('a DNS name matches whatever its case (stored in lower case)', async () => {
    assert.deepEqual(ids((await list(`${SERVERS}?ip=DB.Example.COM`)).body.items), newestFirst(live().filter((e) => e.ip === 'db.example.com')));
  });

  test('a value nothing has gives an empty page and total 0', async () => {
    const reply = await list(`${SERVERS}?port=4000`);
    assert.deepEqual(reply.body, { items: [], total: 0, total_exact: true, limit: 100, offset: 0, next: null });
  });

  test('by id', async () => {
    const target = live()[0]!;
    assert.deepEqual(ids((await list(`${SERVERS}?id=${target.id}`)).body.items), [target.id]);
  });

  test('filters with UTF-8 field names (géolocalisation)', async () => {
    const pair = makeKeyPair('ED25519');
    const key = await server.request('POST', '/en/api/config/ssh-keys', { body: { type: pair.type, pub: pair.pub, 'privée': pair.openssh } });
    const area = await server.request('POST', '/en/api/config/storage-areas', {
      body: { ip: '192.0.2.1', path: '/b', libelle: 'zone', ssh_key: key.body.id, 'géolocalisation': 'Paris, FR' },
    });
    await server.request('POST', '/en/api/config/storage-areas', { body: { ip: '192.0.2.2', path: '/c', libelle: 'other', ssh_key: key.body.id } });
    const reply = await list(`/en/api/config/storage-areas?${encodeURIComponent('géolocalisation')}=${encodeURIComponent('Paris, FR')}`);
    assert.equal(reply.status, 200);
    assert.deepEqual(ids(reply.body.items), [area.body.id]);
    const byKey = await list(`/en/api/config/storage-areas?ssh_key=${key.body.id}`);
    assert.equal(byKey.body.total, 2);
  });

  test('is_deleted=1 lists the deleted servers', async () => {
    const reply = await list(`${SERVERS}?is_deleted=1`);
    assert.deepEqual(ids(reply.body.items), newestFirst(fleet.filter((e) => e.is_deleted === 1)));
  });
});

describe('search q', () => {
  test('case-insensitive substring over the text fields', async () => {
    const reply = await list(`${SERVERS}?q=ALPHA`);
    assert.deepEqual(ids(reply.body.items), newestFirst(live().filter((e) => e.hostname === 'Alpha-Primary')));
    const ips = await list(`${SERVERS}?q=10.0.0`);
    assert.deepEqual(ids(ips.body.items), newestFirst(live().filter((e) => e.ip.startsWith('10.0.0'))));
    assert.equal(ips.body.total, ips.body.items.length);
  });

  test('folds non-ASCII letters too', async () => {
    assert.deepEqual(ids((await list(`${SERVERS}?q=${encodeURIComponent('CAFÉ')}`)).body.items), newestFirst(live().filter((e) => e.hostname === 'Café-Paris')));
  });

  test('% and _ are literal characters, not wildcards', async () => {
    assert.deepEqual(ids((await list(`${SERVERS}?q=${encodeURIComponent('0%_s')}`)).body.items), newestFirst(live().filter((e) => e.hostname === '100%_sure')));
    assert.deepEqual((await list(`${SERVERS}?q=${encodeURIComponent('%')}`)).body.total, 1);
    assert.deepEqual((await list(`${SERVERS}?q=_`)).body.total, 1);
  });

  test('combines with filters and paging; total counts every match', async () => {
    const reply = await list(`${SERVERS}?q=a&is_monitored=true&limit=1`);
    const matches = live().filter((e) => e.is_monitored && (e.hostname.toLowerCase().includes('a') || e.ip.includes('a')));
    assert.equal(reply.body.total, matches.length);
    assert.deepEqual(ids(reply.body.items), newestFirst(matches).slice(0, 1));
  });
});

describe('include_deleted', () => {
  test('true lists soft-deleted servers too; total counts them', async () => {
    const reply = await list(`${SERVERS}?include_deleted=true`);
    assert.deepEqual(ids(reply.body.items), newestFirst(fleet));
    assert.equal(reply.body.total, fleet.length);
    const explicit = await list(`${SERVERS}?include_deleted=false`);
    assert.equal(explicit.body.total, live().length);
  });
});

describe('invalid parameters are 400 BAD_QUERY', () => {
  const invalid = [
    'limit=0', 'limit=1001', 'limit=-1', 'limit=abc', 'limit=1.5', 'limit=', 'offset=-1', 'offset=x', 'limit=1&limit=2',
    'sort=nope', 'sort=-', 'sort=port,port', 'sort=port,-port', 'sort=', 'sort=port;drop table servers', 'sort=privée',
    'port=abc', 'port=0', 'port=70000', 'is_monitored=yes', 'is_monitored=2', 'ip=has space', 'nofield=1',
    'q=', `q=${'x'.repeat(201)}`, 'include_deleted=yes', 'include_deleted=1',
    'is_deleted=2', 'id=0', 'id=abc',
    // Past the largest id an entry can have: once a 500 on PostgreSQL (integer out of range).
    'id=3000000000', 'id=99999999999',
  ];
  for (const query of invalid) {
    test(query.slice(0, 60), async () => {
      const reply = await list(`${SERVERS}?${query}`);
      assert.equal(reply.status, 400, reply.body?.detail);
      assert.equal(reply.body.code, 'BAD_QUERY');
    });
  }

  test('include_deleted on a resource without soft delete', async () => {
    assert.equal((await list('/en/api/config/tags?include_deleted=true')).status, 400);
  });

  test('a filter on the write-only field is refused like an unknown one', async () => {
    const reply = await list(`/en/api/config/ssh-keys?${encodeURIComponent('privée')}=x`);
    assert.equal(reply.status, 400);
    assert.equal(reply.body.code, 'BAD_QUERY');
  });

  test('a hostile string filter value is just a value', async () => {
    const reply = await list(`${SERVERS}?hostname=${encodeURIComponent("x' OR '1'='1")}`);
    assert.equal(reply.status, 200);
    assert.equal(reply.body.total, 0);
    assert.equal((await list(SERVERS)).body.total, live().length, 'nothing was changed');
  });

  test('messages follow the language', async () => {
    const fr = await list('/fr/api/config/servers?limit=0');
    const en = await list('/en/api/config/servers?limit=0');
    assert.notEqual(fr.body.detail, en.body.detail);
  });
});
