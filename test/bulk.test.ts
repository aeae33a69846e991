// Section 12: bulk POST, PATCH and DELETE (all or nothing, errors named by index), dry runs
// (the real request's answer, nothing changed), and writes that change nothing. Refusals and
// dry runs are checked to leave the database as it was.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { serverPerSuite, type Reply } from './support/server.js';

const server = serverPerSuite();
const API = '/en/api/config';
let counter = 0;
const name = () => `bulk-${process.pid}-${++counter}`;

async function unchanged(send: () => Promise<Reply>): Promise<Reply> {
  const before = await server.rows();
  const reply = await send();
  assert.ok((await server.rows()) === before, `${reply.status}: the database changed`);
  return reply;
}

const problems = (reply: Reply) => (reply.body.errors as { field: string; index?: number }[]).map((error) => `${error.index}:${error.field}`).sort();

/** Timestamps and ids differ between a dry run and the real request; everything else must not. */
function comparable(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body), (key, value) => (['id', 'created_at', 'updated_at'].includes(key) ? '*' : value));
}

async function changesSince(since: number): Promise<{ id: number; action: string; after: unknown }[]> {
  return (await server.request('GET', `/en/api/changes?since=${since}&limit=1000`)).body.items;
}

describe('bulk writes', () => {
  test('POST of an array creates every entry in one go', async () => {
    const bodies = [{ name: name() }, { name: name(), color: '#000000' }, { name: name() }];
    const reply = await server.request('POST', `${API}/tags`, { body: bodies });
    assert.equal(reply.status, 201, reply.text);
    assert.equal(reply.headers.get('location'), null);
    assert.equal(reply.body.resource, 'tags');
    assert.equal(reply.body.count, 3);
    assert.deepEqual(reply.body.items.map((item: { name: string }) => item.name), bodies.map((body) => body.name));
    assert.equal(reply.body.items[1].color, '#000000');
    for (const item of reply.body.items) assert.deepEqual((await server.request('GET', `${API}/tags/${item.id}`)).body.item, item);
  });

  test('one faulty entry refuses the whole request; errors name it by index', async () => {
    const invalid = await unchanged(() => server.request('POST', `${API}/tags`, { body: [{ name: name() }, { name: '', colour: 'x' }, { name: name(), color: 'red' }] }));
    assert.equal(invalid.status, 422);
    assert.deepEqual(problems(invalid), ['1:colour', '1:name', '2:color']);
    const withinBatch = await unchanged(() => server.request('POST', `${API}/tags`, { body: [{ name: 'twice' }, { name: name() }, { name: 'twice' }] }));
    assert.equal(withinBatch.status, 409);
    assert.deepEqual(problems(withinBatch), ['2:name']);
    const taken = (await server.request('POST', `${API}/tags`, { body: { name: name() } })).body.item.name;
    const clash = await unchanged(() => server.request('POST', `${API}/tags`, { body: [{ name: name() }, { name: taken }] }));
    assert.equal(clash.status, 409);
    assert.deepEqual(problems(clash), ['1:name']);
    const servers = await unchanged(() => server.request('POST', `${API}/servers`, { body: [{ ip: '10.30.0.1' }, { ip: '10.30.0.1', port: 3306 }] }));
    assert.equal(servers.status, 409, 'a unique rule over two fields, port from its default');
    assert.deepEqual(problems(servers), ['1:ip', '1:port']);
  });

  test('the array holds 1 to 1000 entries', async () => {
    for (const body of [[], Array.from({ length: 1001 }, (_, index) => ({ name: `n${index}` }))]) {
      const reply = await unchanged(() => server.request('POST', `${API}/tags`, { body }));
      assert.equal(reply.status, 422);
      assert.deepEqual(problems(reply), ['undefined:']);
    }
    const thousand = await server.request('POST', `${API}/servers`, { body: Array.from({ length: 1000 }, (_, index) => ({ ip: `10.31.${index >> 8}.${index & 255}` })) });
    assert.equal(thousand.status, 201);
    assert.equal(thousand.body.count, 1000);
  });

  test('a bulk create is stored in statements of 100, 10 and 1 rows: each entry as sent, in order, with its sets', async () => {
    const tags = (await server.request('POST', `${API}/tags`, { body: [{ name: name() }, { name: name() }] })).body.items.map((tag: { id: number }) => tag.id);
    // 123 = 100 + 2 x 10 + 3 x 1: every size of statement, and entries whose sets differ in size.
    const bodies = Array.from({ length: 123 }, (_, index) => ({ ip: `10.35.0.${index}`, hostname: `batch-${index}`, tags: tags.slice(0, index % 3) }));
    let since = 0;
    for (let page = await changesSince(since); page.length > 0; page = await changesSince(since)) since = page[page.length - 1]!.id;
    const reply = await server.request('POST', `${API}/servers`, { body: bodies });
    assert.equal(reply.status, 201, reply.text);
    const items = reply.body.items as { id: number; ip: string; hostname: string; tags: number[] }[];
    assert.deepEqual(items.map((item) => [item.ip, item.hostname, item.tags]), bodies.map((body) => [body.ip, body.hostname, body.tags]));
    assert.ok(items.every((item, index) => index === 0 || item.id > items[index - 1]!.id), 'ids follow the order of the request');
    for (const index of [0, 99, 100, 119, 120, 122]) assert.deepEqual((await server.request('GET', `${API}/servers/${items[index]!.id}`)).body.item, items[index]);
    const tagged = await server.request('GET', `${API}/servers?tag=${tags[1]}&limit=1000`);
    assert.deepEqual(tagged.body.items.map((item: { id: number }) => item.id).sort(), items.filter((item) => item.tags.includes(tags[1]!)).map((item) => item.id).sort());
    const recorded = await changesSince(since);
    assert.deepEqual(recorded.map((record) => [record.action, record.after]), items.map((item) => ['create', item]), 'one change record per entry, in order, as answered');

    // An entry whose values another entry holds, in the third statement of its request (the
    // first of 10 rows): refused by its index, and nothing of the request is stored.
    const clash = Array.from({ length: 115 }, (_, index) => ({ ip: `10.35.1.${index}` }));
    clash[104] = { ip: '10.35.0.7' };
    const refused = await unchanged(() => server.request('POST', `${API}/servers`, { body: clash }));
    assert.equal(refused.status, 409, refused.text);
    assert.deepEqual(problems(refused), ['104:ip', '104:port']);
  });

  test('PATCH of an array updates each entry by id, all or nothing', async () => {
    const created = (await server.request('POST', `${API}/tags`, { body: [{ name: name() }, { name: name() }] })).body.items;
    const reply = await server.request('PATCH', `${API}/tags`, { body: created.map((item: { id: number }) => ({ id: item.id, color: '#111111' })) });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.body.count, 2);
    assert.deepEqual(reply.body.items.map((item: { color: string }) => item.color), ['#111111', '#111111']);
    const missing = await unchanged(() => server.request('PATCH', `${API}/tags`, { body: [{ id: created[0].id, color: '#222222' }, { id: 2000000, color: '#222222' }] }));
    assert.equal(missing.status, 404);
    assert.deepEqual(problems(missing), ['1:id']);
    const noId = await unchanged(() => server.request('PATCH', `${API}/tags`, { body: [{ color: '#222222' }, { id: created[0].id, color: 'x' }] }));
    assert.equal(noId.status, 422);
    assert.deepEqual(problems(noId), ['0:id', '1:color']);
    const twice = await unchanged(() => server.request('PATCH', `${API}/tags`, { body: [{ id: created[0].id }, { id: created[0].id }] }));
    assert.deepEqual(problems(twice), ['1:id']);
    assert.equal((await unchanged(() => server.request('PATCH', `${API}/tags`, { body: { id: created[0].id } }))).status, 422, 'an object is not an array');
  });

  test('DELETE ?id= removes every entry named, all or nothing', async () => {
    const created = (await server.request('POST', `${API}/clients`, { body: [{ libelle: name() }, { libelle: name() }] })).body.items;
    const used = (await server.request('POST', `${API}/clients`, { body: { libelle: name() } })).body.item;
    await server.request('POST', `${API}/servers`, { body: { ip: '10.32.0.1', id_client: used.id } });
    const ids = created.map((item: { id: number }) => item.id);
    const guarded = await unchanged(() => server.request('DELETE', `${API}/clients?id=${ids.join(',')},99`));
    assert.equal(guarded.status, 409);
    assert.equal(guarded.body.code, 'DELETE_GUARDED');
    assert.deepEqual(problems(guarded), ['2:id']);
    const referenced = await unchanged(() => server.request('DELETE', `${API}/clients?id=${used.id},${ids[0]}`));
    assert.equal(referenced.body.code, 'REFERENCED');
    assert.deepEqual(problems(referenced), ['0:id']);
    for (const query of ['', 'id=', 'id=1,1', 'id=x', `id=${Array.from({ length: 1001 }, (_, i) => i + 1).join(',')}`]) {
      assert.equal((await unchanged(() => server.request('DELETE', `${API}/clients?${query}`))).status, 400, query);
    }
    const deleted = await server.request('DELETE', `${API}/clients?id=${ids.join(',')}`);
    assert.equal(deleted.status, 200, deleted.text);
    assert.deepEqual(deleted.body, { resource: 'clients', count: 2, deleted: ids.map((id: number) => ({ id, mode: 'hard' })) });
    const servers = (await server.request('POST', `${API}/servers`, { body: [{ ip: '10.32.0.2' }, { ip: '10.32.0.3' }] })).body.items;
    const soft = await server.request('DELETE', `${API}/servers?id=${servers.map((item: { id: number }) => item.id).join(',')}`);
    assert.deepEqual(soft.body.deleted.map((item: { mode: string }) => item.mode), ['soft', 'soft']);
  });
});

describe('dry runs', () => {
  test('every write answers as the real one would, says Dry-Run: true, and changes nothing', async () => {
    const tag = (await server.request('POST', `${API}/tags`, { body: { name: name() } })).body.item;
    const entry = (await server.request('POST', `${API}/servers`, { body: { ip: '10.33.0.1', tags: [tag.id] } })).body.item;
    const cases: [string, string, unknown][] = [
      ['POST', `${API}/tags`, { name: name() }],
      ['POST', `${API}/tags`, [{ name: name() }, { name: name() }]],
      ['PUT', `${API}/servers/${entry.id}`, { ip: '10.33.0.1', hostname: 'dry' }],
      ['PATCH', `${API}/servers/${entry.id}`, { add_tags: [tag.id], is_monitored: false }],
      ['PATCH', `${API}/tags`, [{ id: tag.id, color: '#333333' }]],
    ];
    for (const [method, url, body] of cases) {
      const dry = await unchanged(() => server.request(method, `${url}?dry_run=true`, { body }));
      assert.equal(dry.headers.get('dry-run'), 'true', `${method} ${url}`);
      assert.equal(dry.headers.get('location'), null);
      const real = await server.request(method, url, { body: Array.isArray(body) || method !== 'POST' ? body : { ...(body as object), name: name() } });
      assert.equal(dry.status, real.status, `${method} ${url}: ${dry.text}`);
      assert.equal(real.headers.get('dry-run'), null);
      if (method !== 'POST' || Array.isArray(body)) assert.deepEqual(comparable(dry.body), comparable(real.body), `${method} ${url}`);
    }
    const created = await unchanged(() => server.request('POST', `${API}/tags?dry_run=true`, { body: { name: name() } }));
    assert.equal(created.body.id, null, 'no id is assigned');
    assert.equal(created.body.item.id, null);
  });

  test('refusals are the real ones; deletes and restores are rehearsed too', async () => {
    const taken = (await server.request('POST', `${API}/tags`, { body: { name: name() } })).body.item;
    const refusal = await unchanged(() => server.request('POST', `${API}/tags?dry_run=true`, { body: { name: taken.name } }));
    assert.equal(refusal.status, 409);
    const entry = (await server.request('POST', `${API}/servers`, { body: { ip: '10.33.0.2' } })).body.item;
    const remove = await unchanged(() => server.request('DELETE', `${API}/servers/${entry.id}?dry_run=true`));
    assert.deepEqual(remove.body, { id: entry.id, deleted: true, mode: 'soft' });
    assert.equal((await server.request('GET', `${API}/servers/${entry.id}`)).body.item.is_deleted, 0);
    await server.request('DELETE', `${API}/servers/${entry.id}`);
    const restore = await unchanged(() => server.request('POST', `${API}/servers/${entry.id}/restore?dry_run=true`));
    assert.equal(restore.body.item.is_deleted, 0);
    assert.equal((await server.request('GET', `${API}/servers/${entry.id}`)).body.item.is_deleted, 1);
    const bulkDelete = await unchanged(() => server.request('DELETE', `${API}/tags?id=${taken.id}&dry_run=true`));
    assert.equal(bulkDelete.status, 200);
    assert.equal((await server.request('GET', `${API}/tags/${taken.id}`)).status, 200);
    for (const query of ['dry_run=yes', 'dry_run=true&dry_run=false', 'dryrun=true']) {
      assert.equal((await unchanged(() => server.request('POST', `${API}/tags?${query}`, { body: { name: name() } }))).status, 400, query);
    }
  });
});

describe('writes that change nothing', () => {
  test('keep updated_at and the ETag, and write nothing', async () => {
    const tag = (await server.request('POST', `${API}/tags`, { body: { name: name() } })).body.item;
    const entry = (await server.request('POST', `${API}/servers`, { body: { ip: '10.34.0.1', tags: [tag.id], hostname: 'same' } })).body.item;
    const url = `${API}/servers/${entry.id}`;
    const etag = (await server.request('GET', url)).headers.get('etag');
    await new Promise((done) => setTimeout(done, 5));
    for (const [method, body] of [
      ['PATCH', { hostname: 'same' }],
      ['PATCH', { add_tags: [tag.id] }],
      ['PUT', { ip: '10.34.0.1', hostname: 'same', tags: [tag.id] }],
      ['PATCH', {}],
    ] as const) {
      const reply = await unchanged(() => server.request(method, url, { body }));
      assert.equal(reply.status, 200, reply.text);
      assert.equal(reply.body.updated, true);
      assert.equal(reply.body.item.updated_at, entry.updated_at, `${method} ${JSON.stringify(body)}`);
      assert.equal(reply.headers.get('etag'), etag);
    }
  });
});
