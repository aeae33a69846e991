// List answers are kept in memory by entity tag (LIST_CACHE_SIZE, src/pipeline/read-through-store.ts).
// Two instances on one database: A caches, B has no cache and makes every write. After each
// of B's writes A must answer exactly what B answers: a cache keyed by anything coarser than
// the table's change counter and the whole query (the URL alone, say) fails here.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startServer, type TestServer } from './support/server.js';
import { createTestDatabase, type TestDatabase } from './support/test-database.js';

const API = '/en/api/config';

describe('list answers cached by entity tag, with a second instance writing', { timeout: 120_000 }, () => {
  const dirs = [mkdtempSync(join(tmpdir(), 'config-api-lists-')), mkdtempSync(join(tmpdir(), 'config-api-lists-'))];
  const env = { SECRET_KEY: randomBytes(32).toString('hex') };
  let database: TestDatabase;
  let cached: TestServer;
  let uncached: TestServer;

  before(async () => {
    database = await createTestDatabase(dirs[0]!);
    cached = await startServer({ database, dataDir: dirs[0]!, env });
    uncached = await startServer({ database, dataDir: dirs[1]!, env: { ...env, LIST_CACHE_SIZE: '0' } });
  });

  after(async () => {
    await Promise.all([cached?.stop(), uncached?.stop()]);
    await database?.drop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** Asks A twice (the second answer comes from its cache) and B once: all three the same. */
  async function sameOnBoth(path: string): Promise<{ body: any; etag: string }> {
    const first = await cached.request('GET', path);
    const again = await cached.request('GET', path);
    const reference = await uncached.request('GET', path);
    assert.equal(reference.status, 200, reference.text);
    assert.equal(first.text, reference.text, `${path}: the caching instance answers what the other reads`);
    assert.equal(again.text, reference.text, `${path}: and so does its cached answer`);
    assert.equal(again.headers.get('etag'), reference.headers.get('etag'));
    return { body: reference.body, etag: reference.headers.get('etag')! };
  }

  async function write(method: string, path: string, body?: unknown): Promise<any> {
    const reply = await uncached.request(method, path, body === undefined ? {} : { body });
    assert.ok(reply.status === 200 || reply.status === 201, `${method} ${path}: ${reply.status} ${reply.text}`);
    return reply.body;
  }

  test("every write of the other instance shows in the cached instance's next answer", async () => {
    const tag = (await write('POST', `${API}/tags`, { name: `cache-${randomBytes(3).toString('hex')}` })).id as number;
    const paths = [`${API}/servers?limit=5`, `${API}/servers?tag=${tag}`, `${API}/servers?sort=hostname&limit=3`, `${API}/tags?limit=2`];
    const seen = async () => Promise.all(paths.map((path) => sameOnBoth(path)));
    const states = [await seen()];

    const server = (await write('POST', `${API}/servers`, { ip: '10.9.0.1', port: 3306, hostname: 'cache-a', tags: [tag] })).id as number;
    states.push(await seen());
    assert.deepEqual(states.at(-1)![1]!.body.items.map((item: { id: number }) => item.id), [server]);

    await write('PATCH', `${API}/servers/${server}`, { hostname: 'cache-b' });
    states.push(await seen());
    assert.equal(states.at(-1)![0]!.body.items[0].hostname, 'cache-b');

    await write('DELETE', `${API}/servers/${server}`);
    states.push(await seen());
    assert.deepEqual(states.at(-1)![1]!.body.items, []);

    await write('POST', `${API}/servers/${server}/restore`);
    states.push(await seen());
    // A deleted tag leaves its servers: their lists change through the link table.
    await write('DELETE', `${API}/tags/${tag}`);
    states.push(await seen());
    assert.deepEqual(states.at(-1)![0]!.body.items.find((item: { id: number }) => item.id === server).tags, []);

    // Each write gave every list of servers a new tag; none came back. (The tags list changed
    // only at the end, with the tag's deletion.)
    for (let index = 0; index < 3; index += 1) {
      const tags = states.map((state) => state[index]!.etag);
      assert.equal(new Set(tags).size, tags.length, `${paths[index]}: ${tags.join(' ')}`);
    }
    const tagLists = states.map((state) => state[3]!.etag);
    assert.equal(new Set(tagLists).size, 2, `tags?limit=2: ${tagLists.join(' ')}`);
    assert.notEqual(tagLists.at(-1), tagLists.at(-2));
  });

  test('an old tag sent to the cached instance after a write gets the new answer, not 304', async () => {
    const path = `${API}/tags?limit=3`;
    const before = await sameOnBoth(path);
    await write('POST', `${API}/tags`, { name: `cache-${randomBytes(3).toString('hex')}` });
    const reply = await cached.request('GET', path, { headers: { 'if-none-match': before.etag } });
    assert.equal(reply.status, 200);
    assert.equal(reply.text, (await uncached.request('GET', path)).text);
    assert.equal((await cached.request('GET', path, { headers: { 'if-none-match': reply.headers.get('etag')! } })).status, 304);
  });

  // A poll's parsed query and its tag are remembered by query string (parseListQueryOf,
  // listTag): what is remembered must follow the table's version, whoever writes.
  test('a poll repeated with its tag is 304 until a write of either instance, then 200 with a new tag', async () => {
    const path = `${API}/servers?limit=2&sort=hostname`;
    const poll = async (etag: string, status: number): Promise<string> => {
      let reply;
      for (let n = 0; n < 3; n += 1) {
        reply = await cached.request('GET', path, { headers: { 'if-none-match': etag } });
        assert.equal(reply.status, status, `poll ${n + 1} with ${etag}`);
        if (status === 200) break;
      }
      return reply!.headers.get('etag')!;
    };
    const first = (await sameOnBoth(path)).etag;
    await poll(first, 304);
    await write('POST', `${API}/servers`, { ip: '10.9.1.1', port: 3306, hostname: 'poll-a' });
    const second = await poll(first, 200);
    assert.notEqual(second, first);
    assert.equal(second, (await sameOnBoth(path)).etag);
    await poll(second, 304);
    const created = await cached.request('POST', `${API}/servers`, { body: { ip: '10.9.1.2', port: 3306, hostname: 'poll-b' } });
    assert.equal(created.status, 201, created.text);
    const third = await poll(second, 200);
    assert.notEqual(third, second);
    assert.notEqual(third, first);
    assert.equal(third, (await sameOnBoth(path)).etag);
    await poll(third, 304);
    // The same query string on another resource is another list, with a tag of its own.
    const tags = await cached.request('GET', `${API}/tags?limit=2&sort=-id`);
    const servers = await cached.request('GET', `${API}/servers?limit=2&sort=-id`);
    assert.equal(tags.status, 200);
    assert.notEqual(tags.headers.get('etag'), servers.headers.get('etag'));
    assert.equal((await cached.request('GET', `${API}/tags?limit=2&sort=-id`, { headers: { 'if-none-match': servers.headers.get('etag')! } })).status, 200);
    // A refused query string is refused every time (nothing of it is remembered).
    for (let n = 0; n < 2; n += 1) assert.equal((await cached.request('GET', `${API}/servers?limit=0`)).status, 400);
  });

  test('different queries never share an answer; the same query in another order does', async () => {
    for (let n = 0; n < 3; n += 1) await write('POST', `${API}/tags`, { name: `order-${n}-${randomBytes(3).toString('hex')}` });
    const texts = new Map<string, string>();
    for (const query of ['limit=1', 'limit=2', 'limit=2&offset=1', 'limit=2&sort=name', 'limit=2&sort=-name', 'limit=2&q=order-']) {
      const { body } = await sameOnBoth(`${API}/tags?${query}`);
      texts.set(query, JSON.stringify(body));
    }
    assert.equal(new Set(texts.values()).size, texts.size, 'six queries, six answers');
    const one = await cached.request('GET', `${API}/servers?is_monitored=true&port=3306&limit=4`);
    const other = await cached.request('GET', `${API}/servers?limit=4&port=3306&is_monitored=true`);
    assert.equal(other.text, one.text);
    assert.equal(other.headers.get('etag'), one.headers.get('etag'));
  });
});
