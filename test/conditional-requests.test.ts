// Concurrency (contract section 8): ETag on single-entry responses, If-None-Match -> 304,
// If-Match -> 412 when stale (and nothing changes), and no lost update under concurrency.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { serverPerSuite } from './support/server.js';

const TAGS = '/en/api/config/tags';
let counter = 0;

const server = serverPerSuite();

async function newTag(): Promise<{ id: number; etag: string; item: Record<string, unknown> }> {
  const reply = await server.request('POST', TAGS, { body: { name: `etag-${++counter}` } });
  assert.equal(reply.status, 201);
  return { id: reply.body.id, etag: reply.headers.get('etag')!, item: reply.body.item };
}

describe('ETag', () => {
  test('POST, GET, PUT and PATCH answers carry a strong ETag that follows the entry', async () => {
    const tag = await newTag();
    assert.match(tag.etag, /^"[A-Za-z0-9_-]+"$/);
    const read = await server.request('GET', `${TAGS}/${tag.id}`);
    assert.equal(read.headers.get('etag'), tag.etag, 'unchanged entry, same tag');
    const head = await server.request('HEAD', `${TAGS}/${tag.id}`);
    assert.equal(head.headers.get('etag'), tag.etag);
    const patched = await server.request('PATCH', `${TAGS}/${tag.id}`, { body: { color: '#000001' } });
    const changed = patched.headers.get('etag');
    assert.ok(changed && changed !== tag.etag);
    assert.equal((await server.request('GET', `${TAGS}/${tag.id}`)).headers.get('etag'), changed);
    const put = await server.request('PUT', `${TAGS}/${tag.id}`, { body: { name: `etag-${++counter}` } });
    assert.ok(put.headers.get('etag') && put.headers.get('etag') !== changed);
  });

  test('lists carry an ETag of their own (test/list-scale.test.ts checks it)', async () => {
    assert.match((await server.request('GET', TAGS)).headers.get('etag') ?? '', /^"[^"]+"$/);
  });
});

describe('If-None-Match', () => {
  test('304 without a body when unchanged, 200 once changed', async () => {
    const tag = await newTag();
    const cached = await server.request('GET', `${TAGS}/${tag.id}`, { headers: { 'if-none-match': tag.etag } });
    assert.equal(cached.status, 304);
    assert.equal(cached.text, '');
    assert.equal(cached.headers.get('etag'), tag.etag);
    assert.equal((await server.request('GET', `${TAGS}/${tag.id}`, { headers: { 'if-none-match': `"other", W/${tag.etag}` } })).status, 304);
    assert.equal((await server.request('GET', `${TAGS}/${tag.id}`, { headers: { 'if-none-match': '*' } })).status, 304);
    await server.request('PATCH', `${TAGS}/${tag.id}`, { body: { color: '#000002' } });
    const fresh = await server.request('GET', `${TAGS}/${tag.id}`, { headers: { 'if-none-match': tag.etag } });
    assert.equal(fresh.status, 200);
    assert.equal(fresh.body.item.color, '#000002');
  });
});

describe('If-Match', () => {
  test('a current tag lets PUT, PATCH and DELETE through', async () => {
    const tag = await newTag();
    const patched = await server.request('PATCH', `${TAGS}/${tag.id}`, { body: { color: '#000003' }, headers: { 'if-match': tag.etag } });
    assert.equal(patched.status, 200);
    const put = await server.request('PUT', `${TAGS}/${tag.id}`, { body: { name: `etag-${++counter}` }, headers: { 'if-match': patched.headers.get('etag')! } });
    assert.equal(put.status, 200);
    const removed = await server.request('DELETE', `${TAGS}/${tag.id}`, { headers: { 'if-match': put.headers.get('etag')! } });
    assert.equal(removed.status, 200);
  });

  test('a stale tag is 412 PRECONDITION_FAILED and changes nothing', async () => {
    const tag = await newTag();
    const moved = await server.request('PATCH', `${TAGS}/${tag.id}`, { body: { color: '#000004' } });
    const before = await server.request('GET', `${TAGS}/${tag.id}`);
    for (const [method, body] of [['PATCH', { color: '#0000ff' }], ['PUT', { name: 'stale-put' }], ['DELETE', undefined]] as const) {
      const reply = await server.request(method, `${TAGS}/${tag.id}`, { ...(body === undefined ? {} : { body }), headers: { 'if-match': tag.etag } });
      assert.equal(reply.status, 412, method);
      assert.equal(reply.body.code, 'PRECONDITION_FAILED');
      assert.match(reply.headers.get('content-type') ?? '', /^application\/problem\+json/);
    }
    const after = await server.request('GET', `${TAGS}/${tag.id}`);
    assert.deepEqual(after.body, before.body);
    assert.equal(after.headers.get('etag'), moved.headers.get('etag'));
  });

  test('* matches any current entry; a weak tag never matches', async () => {
    const tag = await newTag();
    assert.equal((await server.request('PATCH', `${TAGS}/${tag.id}`, { body: { color: '#000005' }, headers: { 'if-match': '*' } })).status, 200);
    const current = (await server.request('GET', `${TAGS}/${tag.id}`)).headers.get('etag')!;
    assert.equal((await server.request('PATCH', `${TAGS}/${tag.id}`, { body: {}, headers: { 'if-match': `W/${current}` } })).status, 412);
    assert.equal((await server.request('PATCH', `${TAGS}/${tag.id}`, { body: {}, headers: { 'if-match': `"nope", ${current}` } })).status, 200);
  });

  test('a missing entry stays 404', async () => {
    assert.equal((await server.request('PATCH', `${TAGS}/99999`, { body: {}, headers: { 'if-match': '"x"' } })).status, 404);
  });
});

describe('concurrent writers', () => {
  test('competing PATCHes with the same If-Match: exactly one wins, the others get 412', async () => {
    for (let round = 0; round < 5; round++) {
      const tag = await newTag();
      const replies = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          server.request('PATCH', `${TAGS}/${tag.id}`, { body: { color: `#00000${i}` }, headers: { 'if-match': tag.etag } }),
        ),
      );
      const statuses = replies.map((reply) => reply.status).sort();
      assert.deepEqual(statuses, [200, 412, 412, 412, 412, 412], `round ${round}`);
      const winner = replies.find((reply) => reply.status === 200)!;
      const stored = await server.request('GET', `${TAGS}/${tag.id}`);
      assert.equal(stored.body.item.color, winner.body.item.color, 'the stored entry is the winner’s');
    }
  });

  test('concurrent PATCHes of different fields without If-Match all land (no lost update)', async () => {
    const created = await server.request('POST', '/en/api/config/servers', { body: { ip: '198.51.100.77' } });
    const path = `/en/api/config/servers/${created.body.id}`;
    const changes = [{ ssl: true }, { ssh: true }, { is_proxy: true }, { is_vip: true }, { hostname: 'all-landed' }, { is_monitored: false }];
    const replies = await Promise.all(changes.map((body) => server.request('PATCH', path, { body })));
    assert.ok(replies.every((reply) => reply.status === 200));
    const stored = (await server.request('GET', path)).body.item;
    assert.deepEqual(
      { ssl: stored.ssl, ssh: stored.ssh, is_proxy: stored.is_proxy, is_vip: stored.is_vip, hostname: stored.hostname, is_monitored: stored.is_monitored },
      { ssl: true, ssh: true, is_proxy: true, is_vip: true, hostname: 'all-landed', is_monitored: false },
    );
  });
});

// SQLite keeps GET by id answers in memory (ENTRY_CACHE_SIZE); elsewhere this runs uncached.
describe('GET by id with an entry cache smaller than the entries read', () => {
  const small = serverPerSuite({ env: { ENTRY_CACHE_SIZE: '4' } });

  test('entries are evicted and read again, and every answer follows the latest write', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 12; i++) ids.push((await small.request('POST', TAGS, { body: { name: `small-cache-${i}` } })).body.id);
    const expected = new Map<number, { color: string; etag: string | null }>();
    for (let round = 1; round <= 3; round++) {
      for (const [index, id] of ids.entries()) {
        const read = await small.request('GET', `${TAGS}/${id}`);
        assert.equal(read.status, 200);
        const known = expected.get(id);
        if (known !== undefined) {
          assert.equal(read.body.item.color, known.color, `tag ${id}, round ${round}`);
          assert.equal(read.headers.get('etag'), known.etag);
        }
        if ((index + round) % 2 === 0) {
          const color = `#0000${String(round).padStart(2, '0')}`;
          const patched = await small.request('PATCH', `${TAGS}/${id}`, { body: { color } });
          assert.equal(patched.status, 200);
          expected.set(id, { color, etag: patched.headers.get('etag') });
          const again = await small.request('GET', `${TAGS}/${id}`);
          assert.equal(again.body.item.color, color);
          assert.equal(again.headers.get('etag'), patched.headers.get('etag'));
        } else {
          expected.set(id, { color: read.body.item.color, etag: read.headers.get('etag') });
        }
      }
    }
  });
});
