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

describe('cursors', () => {
  const PREFIX = 'walk';
  const ips = { next: 1 };
  const addServers = async (count: number, extra: (i: number) => Record<string, unknown> = () => ({})) => {
    const batch = Array.from({ length: count }, (_, i) => ({ ip: `10.8.${ips.next >> 8}.${ips.next++ & 255}`, hostname: `${PREFIX}-${(ips.next * 7919) % 1000}`, port: 3300 + (ips.next % 4), ...extra(i) }));
    const reply = await server.request('POST', SERVERS, { body: batch });
    assert.equal(reply.status, 201, reply.text);
    return reply.body.items as { id: number }[];
  };

  // Walks the list by cursor, inserting and deleting servers between pages; every server that
  // exists for the whole walk must be seen exactly once.
  async function walk(query: string): Promise<void> {
    const all = (await server.request('GET', `${SERVERS}?${query}&limit=1000`)).body.items as { id: number }[];
    const doomed = new Set(all.filter((_, i) => i % 5 === 2).map((entry) => entry.id));
    const stable = all.filter((entry) => !doomed.has(entry.id)).map((entry) => entry.id);
    const seen: number[] = [];
    let after: string | null = null;
    let pages = 0;
    do {
      const page: { status: number; body: any } = await server.request('GET', `${SERVERS}?${query}&limit=4${after === null ? '' : `&after=${after}`}`);
      assert.equal(page.status, 200, JSON.stringify(page.body));
      seen.push(...page.body.items.map((entry: { id: number }) => entry.id));
      after = page.body.next;
      pages += 1;
      // Meanwhile: new servers (some sort before the cursor, some after) and deletes.
      await addServers(2, (i) => ({ id_client: i === 0 ? null : 99 }));
      const victim = [...doomed].pop();
      if (victim !== undefined) {
        doomed.delete(victim);
        assert.equal((await server.request('DELETE', `${SERVERS}/${victim}`)).status, 200);
      }
    } while (after !== null && pages < 200);
    assert.equal(after, null, 'the walk ends');
    assert.equal(new Set(seen).size, seen.length, `${query}: no entry twice`);
    const missing = stable.filter((id) => !seen.includes(id));
    assert.deepEqual(missing, [], `${query}: no entry skipped`);
  }

  before(async () => {
    await addServers(30, (i) => ({ id_client: i % 3 === 0 ? null : 99, is_monitored: i % 4 !== 0 }));
  });

  for (const query of ['sort=-id', 'sort=hostname', 'sort=-port', 'sort=id_client', 'sort=-id_client', 'sort=-is_monitored,hostname', 'port=3301&sort=-updated_at']) {
    test(`a walk with concurrent inserts and deletes: ${query}`, () => walk(query));
  }

  test('NULL sorts first ascending, last descending, on every backend', async () => {
    const ascending = (await server.request('GET', `${SERVERS}?sort=id_client&limit=1000`)).body.items as { id_client: number | null }[];
    const firstValue = ascending.findIndex((entry) => entry.id_client !== null);
    assert.ok(firstValue > 0 && ascending.slice(firstValue).every((entry) => entry.id_client !== null));
    const descending = (await server.request('GET', `${SERVERS}?sort=-id_client&limit=1000`)).body.items as { id_client: number | null }[];
    assert.equal(descending[0]!.id_client, 99);
    assert.equal(descending[descending.length - 1]!.id_client, null);
  });

  test('offset still works, and next is null on the last page', async () => {
    const total = (await server.request('GET', SERVERS)).body.total as number;
    const last = await server.request('GET', `${SERVERS}?offset=${total - 2}`);
    assert.equal(last.body.items.length, 2);
    assert.equal(last.body.next, null);
  });

  test('a cursor of another sort, or not a cursor, is 400 BAD_QUERY', async () => {
    const next = (await server.request('GET', `${SERVERS}?sort=hostname&limit=1`)).body.next as string;
    for (const query of [`sort=-hostname&after=${next}`, `after=${next}`, 'after=notacursor', 'after=', `after=${next}&after=${next}`, `sort=hostname&after=${Buffer.from('{"s":"hostname,id","v":[{},1]}').toString('base64url')}`]) {
      const reply = await server.request('GET', `${SERVERS}?${query}`);
      assert.equal(reply.status, 400, query);
      assert.equal(reply.body.code, 'BAD_QUERY');
    }
  });
});

describe('q through the search index', () => {
  before(async () => {
    const odd = ['Café-Paris', 'BIG"quote', '100%_sure', 'x_y', 'ÉCOLE-lyon', 'db!bang'];
    const batch = odd.map((hostname, i) => ({ ip: `10.7.0.${i + 1}`, hostname }));
    assert.equal((await server.request('POST', SERVERS, { body: batch })).status, 201);
  });

  // The same answer as a plain scan: case-insensitive substring of ip or hostname.
  for (const q of ['scale', 'SCALE-3', 'walk', 'café', 'CAFÉ-PAR', 'école', 'g"q', '100%_', '%', '_', 'x_y', 'b!b', '10.7.0', '.0.', 'zzzzzz', 'é', 'ca']) {
    test(`q=${q}`, async () => {
      const everything = (await server.request('GET', `${SERVERS}?limit=1000`)).body.items as { id: number; ip: string; hostname: string }[];
      const needle = q.toLowerCase();
      const expected = everything.filter((entry) => entry.ip.toLowerCase().includes(needle) || entry.hostname.toLowerCase().includes(needle)).map((entry) => entry.id);
      const reply = await server.request('GET', `${SERVERS}?limit=1000&q=${encodeURIComponent(q)}`);
      assert.equal(reply.status, 200);
      assert.deepEqual(reply.body.items.map((entry: { id: number }) => entry.id), expected);
      assert.equal(reply.body.total, expected.length);
    });
  }
});
