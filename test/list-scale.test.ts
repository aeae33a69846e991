// Lists at fleet scale (contract section 15), black-box: totals that stop counting, list
// ETags and 304.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startServer, type TestServer } from './support/server.js';

let server: TestServer;
const SERVERS = '/en/api/config/servers';
// Small, so that a few servers go past it.
const EXACT_MAX = 3;

before(async () => {
  server = await startServer({ env: { LIST_EXACT_TOTAL_MAX: String(EXACT_MAX) } });
  const batch = Array.from({ length: 6 }, (_, i) => ({ ip: `10.9.0.${i + 1}`, port: i < 5 ? 3306 : 3307, hostname: `scale-${i}` }));
  assert.equal((await server.request('POST', SERVERS, { body: batch })).status, 201);
});
after(async () => {
  await server.stop();
  await server.cleanup();
});

describe('total', () => {
  test('an unfiltered list counts exactly, whatever its size', async () => {
    const reply = await server.request('GET', `${SERVERS}?limit=1`);
    assert.equal(reply.body.total, 6);
    assert.equal(reply.body.total_exact, true);
  });

  test('a filtered list counts exactly up to LIST_EXACT_TOTAL_MAX', async () => {
    const reply = await server.request('GET', `${SERVERS}?port=3307`);
    assert.deepEqual([reply.body.total, reply.body.total_exact], [1, true]);
    const none = await server.request('GET', `${SERVERS}?port=3308`);
    assert.deepEqual([none.body.total, none.body.total_exact], [0, true]);
  });

  test('past it, total is a lower bound and says so', async () => {
    const first = await server.request('GET', `${SERVERS}?port=3306&limit=2`);
    assert.equal(first.body.items.length, 2);
    assert.deepEqual([first.body.total, first.body.total_exact], [EXACT_MAX, false]);
    // A page past the bound raises it to the entries seen so far.
    const deeper = await server.request('GET', `${SERVERS}?port=3306&limit=2&offset=2`);
    assert.deepEqual([deeper.body.total, deeper.body.total_exact], [4, false]);
  });
});

describe('list ETag and 304', () => {
  const poll = (path: string, etag?: string) => server.request('GET', path, etag === undefined ? {} : { headers: { 'if-none-match': etag } });

  test('an unchanged list answers 304 with its tag; another query has another tag', async () => {
    const first = await poll(`${SERVERS}?port=3306&sort=hostname`);
    const etag = first.headers.get('etag')!;
    assert.match(etag, /^"[^"]+"$/);
    const again = await poll(`${SERVERS}?port=3306&sort=hostname`, etag);
    assert.equal(again.status, 304);
    assert.equal(again.headers.get('etag'), etag);
    assert.equal((await poll(`${SERVERS}?port=3306&sort=hostname`, `W/${etag}`)).status, 304, 'weak comparison');
    assert.equal((await poll(`${SERVERS}?sort=hostname&port=3306`, etag)).status, 304, 'parameter order does not matter');
    const other = await poll(`${SERVERS}?port=3306&sort=-hostname`, etag);
    assert.equal(other.status, 200);
    assert.notEqual(other.headers.get('etag'), etag);
  });

  test('a write to the resource, a tag leaving servers, changes the tag; dry runs, other resources and no-op writes do not', async () => {
    const path = `${SERVERS}?limit=3`;
    const tagOf = async () => (await poll(path)).headers.get('etag')!;
    const start = await tagOf();
    const target = (await poll(path)).body.items[0];
    assert.equal((await server.request('PATCH', `${SERVERS}/${target.id}?dry_run=true`, { body: { hostname: 'renamed' } })).status, 200);
    const tag = await server.request('POST', '/en/api/config/tags', { body: { name: 'etag-test' } });
    assert.equal((await poll(path, start)).status, 304, 'a dry run and a write to another resource leave it');
    assert.equal((await server.request('PATCH', `${SERVERS}/${target.id}`, { body: { hostname: target.hostname } })).status, 200);
    assert.equal((await poll(path, start)).status, 304, 'a write that changes nothing leaves it');

    assert.equal((await server.request('PATCH', `${SERVERS}/${target.id}`, { body: { add_tags: [tag.body.id] } })).status, 200);
    const tagged = await poll(path, start);
    assert.equal(tagged.status, 200);
    assert.deepEqual(tagged.body.items[0].tags, [tag.body.id]);
    const afterTagging = tagged.headers.get('etag')!;
    assert.equal((await server.request('DELETE', `/en/api/config/tags/${tag.body.id}`)).status, 200);
    const untagged = await poll(path, afterTagging);
    assert.equal(untagged.status, 200, 'deleting a tag changes the servers that held it');
    assert.deepEqual(untagged.body.items[0].tags, []);
  });
});
