// The lifecycle of every resource the registry describes, driven by the registry alone: its
// example body is created (references pointing at entries made just before), read, listed,
// replaced, patched and deleted. A resource added to the registry is exercised here without a
// line of this file changing, unless its rule needs material no example may show (key
// material): then it names a fixture (test/support/registry-lifecycle.ts), and this test says
// so when one is missing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_REGISTRY } from '../src/registry/registry.js';
import { lifecycleBody, pointingAt, referencedFirst, referenceFields, releasingBody } from './support/registry-lifecycle.js';
import { serverPerSuite } from './support/server.js';

const server = serverPerSuite();

test('every resource of the registry lives a whole lifecycle', async () => {
  const made = new Map<string, number>();
  const order = referencedFirst(DEFAULT_REGISTRY);
  for (const resource of order) {
    const collection = `/en/api/config/${resource.name}`;
    const body = lifecycleBody(resource);
    for (const [name, target] of referenceFields(DEFAULT_REGISTRY, resource)) body[name] = pointingAt(resource, name, made.get(target.name)!);
    const before = (await server.request('GET', collection)).body.total as number;
    const created = await server.request('POST', collection, { body });
    assert.equal(created.status, 201, `${resource.name}: POST of the example (a fixture in test/support/registry-lifecycle.ts if it needs one): ${created.text}`);
    const id = created.body.id as number;
    made.set(resource.name, id);
    assert.deepEqual(Object.keys(created.body.item), resource.shownFields.map(([name]) => name), `${resource.name}: fields in response order`);

    const item = `${collection}/${id}`;
    const read = await server.request('GET', item);
    assert.deepEqual(read.body.item, created.body.item, `${resource.name}: GET shows what POST answered`);
    assert.equal((await server.request('GET', collection)).body.total, before + 1, `${resource.name}: counted`);
    assert.equal((await server.request('GET', `${collection}?id=${id}`)).body.items[0]?.id, id, `${resource.name}: found by id filter`);

    const replaced = await server.request('PUT', item, { body: { ...read.body.item, ...body } });
    assert.equal(replaced.status, 200, `${resource.name}: PUT of the entry as read: ${replaced.text}`);
    const patched = await server.request('PATCH', item, { body: {}, headers: { 'if-match': replaced.headers.get('etag') ?? '' } });
    assert.equal(patched.status, 200, `${resource.name}: empty PATCH under If-Match: ${patched.text}`);
  }
  for (const resource of [...order].reverse()) {
    const item = `/en/api/config/${resource.name}/${made.get(resource.name)}`;
    // A soft-deleted entry keeps blocking the delete of what it points at (section 11): let go
    // of what may be let go of first.
    const release = releasingBody(resource);
    if (Object.keys(release).length > 0) assert.equal((await server.request('PATCH', item, { body: release })).status, 200, `${resource.name}: release`);
    const deleted = await server.request('DELETE', item);
    assert.equal(deleted.status, 200, `${resource.name}: DELETE: ${deleted.text}`);
    assert.equal(deleted.body.mode, resource.deletion.mode);
    const after = await server.request('GET', item);
    assert.equal(after.status, resource.deletion.mode === 'soft' ? 200 : 404, `${resource.name}: read after delete`);
  }
});
