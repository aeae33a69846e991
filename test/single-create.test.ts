// A plain create (no reference, no link rows) runs as one statement where the backend allows
// (src/store/single-create.ts: PostgreSQL, MariaDB); elsewhere, and when its unique values are
// taken, as a transaction. Either way the answer, a later GET, the change record, the list's
// total and its version must agree, and a taken value must be refused with the rule's fields
// and leave nothing behind.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { changesAfter, lastChangeId, unique } from './support/change-stream.js';
import { serverPerSuite } from './support/server.js';

const SERVERS = '/en/api/config/servers';
const TAGS = '/en/api/config/tags';

describe('a single create', { timeout: 120_000 }, () => {
  const server = serverPerSuite();
  let octet = 0;
  const address = () => `10.77.${Math.floor(++octet / 256) % 256}.${octet % 256}`;

  test('its answer, GET, its entity tag, its change record and the list total agree', async () => {
    const before = await server.request('GET', `${SERVERS}?limit=1`);
    const mark = await lastChangeId(server);
    const created = await server.request('POST', SERVERS, { body: { ip: address(), port: 3306, hostname: unique('single'), ssl: true } });
    assert.equal(created.status, 201, created.text);
    const id = created.body.id as number;
    const read = await server.request('GET', `${SERVERS}/${id}`);
    assert.deepEqual(read.body.item, created.body.item);
    assert.equal(read.headers.get('etag'), created.headers.get('etag'));
    const records = await changesAfter(server, mark);
    assert.equal(records.length, 1, JSON.stringify(records));
    assert.equal(records[0]!.action, 'create');
    assert.equal(records[0]!.entry_id, id);
    assert.equal(records[0]!.before, null);
    assert.deepEqual(records[0]!.after, created.body.item);
    const after = await server.request('GET', `${SERVERS}?limit=1`);
    assert.equal(after.body.total, before.body.total + 1);
    assert.notEqual(after.headers.get('etag'), before.headers.get('etag'), 'the list version moved');
  });

  test('a tag created alone is recorded with its secrets_changed and fields as GET shows it', async () => {
    const mark = await lastChangeId(server);
    const created = await server.request('POST', TAGS, { body: { name: unique('single-tag'), color: '#0a0b0c' } });
    assert.equal(created.status, 201, created.text);
    const [record, ...more] = await changesAfter(server, mark);
    assert.equal(more.length, 0);
    assert.deepEqual(record!.after, (await server.request('GET', `${TAGS}/${created.body.id}`)).body.item);
    assert.deepEqual(record!.secrets_changed, []);
  });

  test('the same ip and port sent by 12 requests at once: one 201, eleven 409 naming ip and port, one record, the total up by one', async () => {
    const before = await server.request('GET', `${SERVERS}?limit=1`);
    const mark = await lastChangeId(server);
    const ip = address();
    const replies = await Promise.all(Array.from({ length: 12 }, (_, index) => server.request('POST', SERVERS, { body: { ip, port: 3307, hostname: `${unique('race')}-${index}` } })));
    const statuses = replies.map((reply) => reply.status).sort();
    assert.deepEqual(statuses, [201, ...Array(11).fill(409)], replies.map((reply) => reply.text).join('\n'));
    for (const refused of replies.filter((reply) => reply.status === 409)) {
      assert.equal(refused.body.code, 'CONFLICT');
      assert.deepEqual(refused.body.errors.map((error: { field: string }) => error.field).sort(), ['ip', 'port']);
    }
    const records = await changesAfter(server, mark);
    assert.equal(records.length, 1, JSON.stringify(records));
    assert.equal(records[0]!.entry_id, replies.find((reply) => reply.status === 201)!.body.id);
    assert.equal((await server.request('GET', `${SERVERS}?limit=1`)).body.total, before.body.total + 1);
  });
});
