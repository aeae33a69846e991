// The parse and plan steps of the pipeline are plain functions of the request and the
// registry: these tests build plans and look at them, without a database or a server.
// @backend-independent (runs once, not once per backend): parsing and planning, in memory.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '../src/errors/api-error.js';
import { ifNoneMatchHolds, listTag } from '../src/store/entity-tag.js';
import { parseRequest, type HttpInput } from '../src/pipeline/parse-request.js';
import { planRequest, type Plan } from '../src/pipeline/plan.js';
import { resolveTarget } from '../src/pipeline/request-target.js';
import { DEFAULT_REGISTRY } from '../src/registry/registry.js';

const registry = DEFAULT_REGISTRY;

function plan(method: string, path: string, input: Partial<HttpInput> = {}): Plan {
  const [lang, resource, id] = path.split('/');
  const endpoint = id === undefined ? 'collection' : 'item';
  const target = resolveTarget(registry, endpoint, { lang, resource, id }, method);
  const caller = { name: 'deploy-bot', scope: 'write' } as const;
  const request = parseRequest(registry, target, { method, query: {}, body: undefined, ifMatch: undefined, ifNoneMatch: undefined, caller, requestId: 'req-1', ...input });
  return planRequest(registry, request);
}

function refusal(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  assert.fail('expected a refusal');
}

describe('write plans', () => {
  test('a create holds the canonical values, the defaults, and what the body sent', () => {
    const created = plan('POST', 'en/tags', { body: { name: '  galera ', id: 5, created_at: 'x' } });
    assert.equal(created.action, 'create');
    if (created.action !== 'create') return;
    assert.deepEqual(created.values, { name: 'galera', color: '#ffffff', background: '#337ab7' });
    assert.deepEqual(created.sent, ['name']);
    assert.equal(created.id, undefined);
    assert.equal(created.lang, 'en');
    assert.deepEqual(created.references, []);
    assert.deepEqual(created.author, { actor: 'deploy-bot', requestId: 'req-1' }, 'the change log names who made it, and in which request');
    assert.equal(created.dryRun, false);
  });

  test('a PATCH holds only what was sent; a PUT restores defaults but not server-managed fields', () => {
    const patched = plan('PATCH', 'fr/servers/7', { body: { port: 3307 }, ifMatch: '"abc"' });
    assert.equal(patched.action, 'update');
    if (patched.action !== 'update') return;
    assert.deepEqual(patched.values, { port: 3307 });
    assert.equal(patched.id, 7);
    assert.equal(patched.ifMatch, '"abc"');

    const replaced = plan('PUT', 'en/servers/7', { body: { ip: '2001:DB8:0::1', is_deleted: 1 } });
    if (replaced.action !== 'update') return assert.fail(replaced.action);
    assert.deepEqual(replaced.values, {
      ip: '2001:db8::1', port: 3306, hostname: '', ssl: false, ssh: false, is_proxy: false, is_vip: false, is_monitored: true,
      id_client: null, id_environment: null, tags: [],
    });
  });

  test('every reference the body sets becomes a check, with the resource it points at', () => {
    const alias = plan('POST', 'en/aliases', { body: { id_mysql_server: 3, dns: 'DB.example.com', port: 3306 } });
    if (alias.action !== 'create') return assert.fail(alias.action);
    assert.equal(alias.references.length, 1);
    const [check] = alias.references;
    assert.equal(check?.field, 'id_mysql_server');
    assert.equal(check?.resource.name, 'servers');
    assert.equal(check?.id, 3);
    assert.equal(check?.mustBeLive, true);
    assert.equal(alias.values.dns, 'db.example.com');
  });

  test('a body with several faults is refused with all of them at once, before any database work', () => {
    const error = refusal(() => plan('POST', 'en/tags', { body: { color: 'red', colour: '#000000' } }));
    assert.equal(error.code, 'VALIDATION_FAILED');
    assert.deepEqual(error.fieldProblems.map((problem) => problem.field).sort(), ['color', 'colour', 'name']);
    assert.equal(refusal(() => plan('PUT', 'en/tags/4', { body: { id: 5, name: 'a' } })).fieldProblems[0]?.field, 'id');
  });

  test('a query parameter on a write is refused in the parse step', () => {
    assert.equal(refusal(() => plan('POST', 'en/tags', { query: { dry: 'x' }, body: { name: 'a' } })).code, 'BAD_QUERY');
  });
});

describe('delete plans', () => {
  test('built-in entries are guarded, others not; servers are deleted softly', () => {
    const builtIn = plan('DELETE', 'en/environments/3');
    const added = plan('DELETE', 'en/environments/7');
    const system = plan('DELETE', 'en/clients/99');
    const server = plan('DELETE', 'en/servers/1');
    assert.ok(builtIn.action === 'delete' && builtIn.guarded && builtIn.mode === 'hard');
    assert.ok(added.action === 'delete' && !added.guarded);
    assert.ok(system.action === 'delete' && system.guarded);
    assert.ok(server.action === 'delete' && server.mode === 'soft' && !server.guarded);
  });

  test('the fields that may still point at the entry come from the registry', () => {
    const key = plan('DELETE', 'en/ssh-keys/2');
    const server = plan('DELETE', 'en/servers/2');
    const tag = plan('DELETE', 'en/tags/2');
    assert.ok(key.action === 'delete' && server.action === 'delete' && tag.action === 'delete');
    assert.deepEqual(key.referencedBy.map((r) => `${r.resource.name}.${r.field}`), ['storage-areas.ssh_key']);
    assert.deepEqual(server.referencedBy.map((r) => `${r.resource.name}.${r.field}`), ['aliases.id_mysql_server']);
    assert.deepEqual(tag.referencedBy, []);
  });
});

describe('read and list plans', () => {
  test('a list plan holds the parsed query: columns, values and the id as last sort key', () => {
    const listed = plan('GET', 'en/servers', { query: { port: '3306', sort: '-hostname', q: 'Paris', include_deleted: 'true' } });
    if (listed.action !== 'list') return assert.fail(listed.action);
    assert.deepEqual(listed.list.filters, [{ column: 'port', value: 3306 }]);
    assert.deepEqual(listed.list.sort, [{ column: 'hostname', descending: true, nullable: false }, { column: 'id', descending: true, nullable: false }]);
    assert.equal(listed.list.search?.text, 'Paris');
    assert.equal(listed.list.includeDeleted, true);
  });

  test('an id filter past what an entry can have is a clear 400, as a path id is a 404', () => {
    assert.equal(refusal(() => plan('GET', 'en/tags', { query: { id: '3000000000' } })).code, 'BAD_QUERY');
    assert.equal(refusal(() => plan('GET', 'en/tags/3000000000')).code, 'NOT_FOUND');
  });

  test('a GET by id carries If-None-Match to the respond step', () => {
    const read = plan('GET', 'en/tags/5', { ifNoneMatch: '"x"' });
    if (read.action !== 'read') return assert.fail(read.action);
    assert.deepEqual({ ...read, resource: read.resource.name }, { action: 'read', resource: 'tags', id: 5, ifNoneMatch: '"x"' });
  });

  test('a list query string parsed once is reused as is; its refusals are not remembered', () => {
    const list = (path: string, rawQuery: string, query: Record<string, string>) => {
      const listed = plan('GET', path, { query, rawQuery });
      if (listed.action !== 'list') return assert.fail(listed.action);
      return listed.list;
    };
    const first = list('en/servers', 'port=3306&sort=-hostname', { port: '3306', sort: '-hostname' });
    assert.equal(list('en/servers', 'port=3306&sort=-hostname', { port: '3306', sort: '-hostname' }), first);
    assert.deepEqual(list('en/servers', 'port=3307&sort=-hostname', { port: '3307', sort: '-hostname' }).filters, [{ column: 'port', value: 3307 }]);
    // Another resource with the same query string has a query of its own.
    assert.notEqual(list('en/tags', 'sort=-id', { sort: '-id' }), list('en/servers', 'sort=-id', { sort: '-id' }));
    for (let n = 0; n < 2; n += 1) assert.equal(refusal(() => plan('GET', 'en/servers', { query: { limit: '0' }, rawQuery: 'limit=0' })).code, 'BAD_QUERY');
  });

  test("a list's tag follows the table's version, back and forth, for a query reused as is", () => {
    const listed = plan('GET', 'en/servers', { query: { limit: '5' }, rawQuery: 'limit=5' });
    if (listed.action !== 'list') return assert.fail(listed.action);
    const [one, two] = [listTag(listed.resource, '1', listed.list), listTag(listed.resource, '2', listed.list)];
    assert.notEqual(one, two);
    assert.equal(listTag(listed.resource, '1', listed.list), one);
    assert.equal(listTag(listed.resource, '2', listed.list), two);
    const tags = registry.find('tags');
    assert.notEqual(listTag(tags!, '1', listed.list), one);
    // The same query parsed afresh has the same tag.
    const fresh = plan('GET', 'en/servers', { query: { limit: '5' } });
    if (fresh.action !== 'list') return assert.fail(fresh.action);
    assert.notEqual(fresh.list, listed.list);
    assert.equal(listTag(fresh.resource, '2', fresh.list), two);
    assert.equal(ifNoneMatchHolds(two, two), false);
    assert.equal(ifNoneMatchHolds(`W/${two}`, two), false);
    assert.equal(ifNoneMatchHolds(one, two), true);
  });
});
