// Section 11, the fleet model: servers tied to clients, environments and tags; the tag and
// reference filters; delete rules; restore; and the older API's `item`/`allowed` keys. Every
// refusal is checked to change nothing: the database is compared before and after.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { serverPerSuite, type Reply } from './support/server.js';

const server = serverPerSuite();
const API = '/en/api/config';
let counter = 0;

async function create(resource: string, body: Record<string, unknown>): Promise<Record<string, any>> {
  const reply = await server.request('POST', `${API}/${resource}`, { body });
  assert.equal(reply.status, 201, reply.text);
  return reply.body.item;
}

const newTag = () => create('tags', { name: `fleet-${process.pid}-${++counter}` });
const newClient = () => create('clients', { libelle: `fleet-${process.pid}-${++counter}` });
const newServer = (body: Record<string, unknown> = {}) => create('servers', { ip: `10.20.${++counter % 250}.${counter % 199}`, port: 4000 + counter, ...body });

/** Sends a request that must be refused with `status`, and checks the database did not change. */
async function refused(status: number, send: () => Promise<Reply>): Promise<Record<string, any>> {
  const before = await server.rows();
  const reply = await send();
  assert.equal(reply.status, status, reply.text);
  assert.ok((await server.rows()) === before, 'a refused request changed the database');
  return reply.body;
}

const fields = (body: Record<string, any>) => (body.errors as { field: string }[]).map((error) => error.field).sort();

describe('servers belong to a client and an environment and carry tags', () => {
  test('the new fields are optional, shown with their defaults, and tags come back ascending', async () => {
    const plain = await newServer();
    assert.equal(plain.id_client, null);
    assert.equal(plain.id_environment, null);
    assert.deepEqual(plain.tags, []);
    const [a, b, c] = [await newTag(), await newTag(), await newTag()];
    const client = await newClient();
    const tied = await newServer({ id_client: client.id, id_environment: 2, tags: [c.id, a.id, b.id] });
    assert.equal(tied.id_client, client.id);
    assert.equal(tied.id_environment, 2);
    assert.deepEqual(tied.tags, [a.id, b.id, c.id]);
    assert.deepEqual((await server.request('GET', `${API}/servers/${tied.id}`)).body.item, tied);
  });

  test('references to missing entries, repeated tags and too many tags are 422, naming the fields', async () => {
    const tag = await newTag();
    const body = await refused(422, () =>
      server.request('POST', `${API}/servers`, { body: { ip: '10.21.0.1', id_client: 2000000, id_environment: 2000000, tags: [tag.id, 2000000] } }),
    );
    assert.deepEqual(fields(body), ['id_client', 'id_environment', 'tags']);
    assert.deepEqual(fields(await refused(422, () => server.request('POST', `${API}/servers`, { body: { ip: '10.21.0.2', tags: [tag.id, tag.id] } }))), ['tags']);
    const many = Array.from({ length: 101 }, (_, index) => index + 1);
    assert.deepEqual(fields(await refused(422, () => server.request('POST', `${API}/servers`, { body: { ip: '10.21.0.3', tags: many } }))), ['tags']);
    assert.deepEqual(fields(await refused(422, () => server.request('POST', `${API}/servers`, { body: { ip: '10.21.0.4', id_client: '7' } }))), ['id_client']);
  });

  test('PUT and PATCH with tags replace the set; PATCH add_tags/remove_tags change it', async () => {
    const [a, b, c] = [await newTag(), await newTag(), await newTag()];
    const entry = await newServer({ tags: [a.id] });
    const url = `${API}/servers/${entry.id}`;
    assert.deepEqual((await server.request('PATCH', url, { body: { tags: [b.id, c.id] } })).body.item.tags, [b.id, c.id]);
    assert.deepEqual((await server.request('PATCH', url, { body: { add_tags: [a.id], remove_tags: [c.id] } })).body.item.tags, [a.id, b.id]);
    assert.deepEqual((await server.request('PATCH', url, { body: { add_tags: [a.id] } })).body.item.tags, [a.id, b.id], 'adding a held tag changes nothing');
    assert.deepEqual((await server.request('PUT', url, { body: { ip: entry.ip, port: entry.port } })).body.item.tags, [], 'PUT without tags: back to []');
    assert.deepEqual(fields(await refused(422, () => server.request('PATCH', url, { body: { tags: [a.id], add_tags: [b.id] } }))), ['add_tags']);
    assert.deepEqual(fields(await refused(422, () => server.request('PUT', url, { body: { ip: entry.ip, add_tags: [b.id] } }))), ['add_tags']);
    assert.deepEqual(fields(await refused(422, () => server.request('PATCH', url, { body: { add_tags: [2000000] } }))), ['add_tags']);
    assert.deepEqual(fields(await refused(422, () => server.request('POST', `${API}/servers`, { body: { ip: '10.21.0.9', remove_tags: [a.id] } }))), ['remove_tags']);
    const read = (await server.request('GET', url)).body.item;
    assert.equal(read.add_tags, undefined, 'add_tags is write-only');
  });

  test('concurrent add_tags on one server all land (no read-modify-write race)', async () => {
    const tags = await Promise.all(Array.from({ length: 8 }, () => newTag()));
    const entry = await newServer();
    const replies = await Promise.all(tags.map((tag) => server.request('PATCH', `${API}/servers/${entry.id}`, { body: { add_tags: [tag.id] } })));
    for (const reply of replies) assert.equal(reply.status, 200, reply.text);
    const held = (await server.request('GET', `${API}/servers/${entry.id}`)).body.item.tags;
    assert.deepEqual(held, tags.map((tag) => tag.id).sort((x, y) => x - y));
  });

  test('lists filter by id_client, id_environment and tag (repeated: every tag named)', async () => {
    const client = await newClient();
    const [a, b] = [await newTag(), await newTag()];
    const both = await newServer({ id_client: client.id, id_environment: 3, tags: [a.id, b.id] });
    const onlyA = await newServer({ id_client: client.id, tags: [a.id] });
    await newServer({ id_environment: 3, tags: [b.id] });
    const ids = async (query: string) => (await server.request('GET', `${API}/servers?${query}`)).body.items.map((item: { id: number }) => item.id);
    assert.deepEqual(await ids(`id_client=${client.id}`), [onlyA.id, both.id]);
    assert.deepEqual(await ids(`id_client=${client.id}&id_environment=3`), [both.id]);
    assert.deepEqual(await ids(`tag=${a.id}`), [onlyA.id, both.id]);
    assert.deepEqual(await ids(`tag=${a.id}&tag=${b.id}`), [both.id]);
    const counted = await server.request('GET', `${API}/servers?tag=${a.id}&limit=1`);
    assert.equal(counted.body.total, 2);
    for (const bad of ['tag=x', 'tag=0', 'id_client=null', 'tags=1', 'sort=tags']) {
      assert.equal((await server.request('GET', `${API}/servers?${bad}`)).status, 400, bad);
    }
  });
});

describe('delete rules of the fleet model', () => {
  test('a client or environment used by a server, live or deleted, is 409 REFERENCED naming it', async () => {
    const client = await newClient();
    const environment = await create('environments', { libelle: `env-${++counter}`, key: `env${counter}`, class: 'info', letter: 'E' });
    const entry = await newServer({ id_client: client.id, id_environment: environment.id });
    for (const path of [`clients/${client.id}`, `environments/${environment.id}`]) {
      const body = await refused(409, () => server.request('DELETE', `${API}/${path}`));
      assert.equal(body.code, 'REFERENCED');
      assert.deepEqual(body.referenced_by, [{ resource: 'servers', ids: [entry.id] }]);
    }
    assert.equal((await server.request('DELETE', `${API}/servers/${entry.id}`)).status, 200);
    assert.equal((await refused(409, () => server.request('DELETE', `${API}/clients/${client.id}`))).code, 'REFERENCED', 'a soft-deleted server still holds it');
    await server.request('PATCH', `${API}/servers/${entry.id}`, { body: { id_client: null, id_environment: null } });
    assert.equal((await server.request('DELETE', `${API}/clients/${client.id}`)).status, 200);
    assert.equal((await server.request('DELETE', `${API}/environments/${environment.id}`)).status, 200);
  });

  test('deleting a tag takes it off every server, whose updated_at and ETag change', async () => {
    const [kept, gone] = [await newTag(), await newTag()];
    const entry = await newServer({ tags: [kept.id, gone.id] });
    const before = await server.request('GET', `${API}/servers/${entry.id}`);
    await new Promise((done) => setTimeout(done, 5));
    assert.equal((await server.request('DELETE', `${API}/tags/${gone.id}`)).status, 200);
    const after = await server.request('GET', `${API}/servers/${entry.id}`);
    assert.deepEqual(after.body.item.tags, [kept.id]);
    assert.notEqual(after.body.item.updated_at, before.body.item.updated_at);
    assert.notEqual(after.headers.get('etag'), before.headers.get('etag'));
    assert.equal((await server.request('GET', `${API}/servers?tag=${gone.id}`)).body.total, 0);
  });
});

describe('restore (section 11)', () => {
  test('brings a deleted server back; a live one is answered unchanged', async () => {
    const entry = await newServer();
    const url = `${API}/servers/${entry.id}`;
    await server.request('DELETE', url);
    const restored = await server.request('POST', `${url}/restore`);
    assert.equal(restored.status, 200, restored.text);
    assert.deepEqual(Object.keys(restored.body), ['id', 'resource', 'restored', 'item']);
    assert.equal(restored.body.restored, true);
    assert.equal(restored.body.item.is_deleted, 0);
    assert.equal(restored.headers.get('etag'), (await server.request('GET', url)).headers.get('etag'));
    assert.ok((await server.request('GET', `${API}/servers?ip=${entry.ip}&port=${entry.port}`)).body.total === 1, 'listed again');
    const again = await server.request('POST', `${url}/restore`);
    assert.equal(again.status, 200);
    assert.equal(again.body.item.updated_at, restored.body.item.updated_at, 'nothing changed');
  });

  test('409 when a live server now holds its address; 404 unknown; 412 under a stale If-Match; other resources have no restore', async () => {
    const entry = await newServer();
    const url = `${API}/servers/${entry.id}`;
    const etag = (await server.request('GET', url)).headers.get('etag')!;
    await server.request('DELETE', url);
    await newServer({ ip: entry.ip, port: entry.port });
    const conflict = await refused(409, () => server.request('POST', `${url}/restore`));
    assert.equal(conflict.code, 'CONFLICT');
    assert.deepEqual(fields(conflict), ['ip', 'port']);
    assert.equal((await refused(412, () => server.request('POST', `${url}/restore`, { headers: { 'if-match': etag } }))).code, 'PRECONDITION_FAILED');
    assert.equal((await refused(404, () => server.request('POST', `${API}/servers/2000000/restore`))).item, null);
    const tag = await newTag();
    assert.equal((await server.request('POST', `${API}/tags/${tag.id}/restore`)).status, 404);
    assert.equal((await server.request('GET', `${url}/restore`)).status, 405);
  });
});

describe('the older API’s keys on errors', () => {
  test('a 404 of an entry carries "item": null; a 405 carries "allowed"', async () => {
    const missing = await server.request('GET', `${API}/tags/2000000`);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.item, null);
    const wrong = await server.request('PUT', `${API}/tags`, { body: { name: 'x' } });
    assert.equal(wrong.status, 405);
    assert.deepEqual(wrong.body.allowed, wrong.headers.get('allow')!.split(', '));
    const probe = await server.request('POST', '/healthz');
    assert.deepEqual(probe.body.allowed, ['GET', 'HEAD']);
  });
});
