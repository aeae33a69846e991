// The registry compiles each resource once (src/registry/compiled-resource.ts): what it hands
// out is the one compiled object per resource, and the facts it carries follow the definition
// (the servers: a soft-deleted resource with a tag set; the SSH keys: a write-only secret).
// @backend-independent (runs once, not once per backend): no database.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { API_TOKENS } from '../src/store/api-token-definition.js';
import { Registry, DEFAULT_REGISTRY } from '../src/registry/registry.js';
import { RESOURCES } from '../src/registry/resources.js';

const names = (fields: readonly (readonly [string, unknown])[]): string[] => fields.map(([name]) => name);

test('the registry hands out one compiled object per resource, wherever it is asked', () => {
  const servers = DEFAULT_REGISTRY.find('servers')!;
  assert.equal(DEFAULT_REGISTRY.resources.find((resource) => resource.name === 'servers'), servers);
  assert.equal(DEFAULT_REGISTRY.target({ resource: 'servers' } as Parameters<Registry['target']>[0]), servers);
  assert.ok(DEFAULT_REGISTRY.dependencyOrder().includes(servers));
  assert.ok(DEFAULT_REGISTRY.referencesTo(DEFAULT_REGISTRY.find('tags')!).some((referencing) => referencing.resource === servers));
  // Not the declaration itself: a definition is left as written.
  assert.notEqual(servers, RESOURCES.find((resource) => resource.name === 'servers'));
  assert.ok(Object.isFrozen(servers));
});

test('a compiled resource carries the facts of its definition', () => {
  const servers = DEFAULT_REGISTRY.find('servers')!;
  const own = Object.keys(servers.fields);
  assert.deepEqual(names(servers.shownFields), ['id', ...own, 'created_at', 'updated_at']);
  assert.deepEqual(names(servers.bodyFields), names(servers.shownFields), 'no write-only field: a body carries what a response shows');
  assert.deepEqual(names(servers.documentFields), own.filter((name) => name !== 'is_deleted'), 'the service-managed flag is no part of a document');
  assert.deepEqual(names(servers.linkedFields), ['tags']);
  assert.equal(servers.linkFilters.get('tag')?.table, 'server_tags');
  assert.deepEqual([...servers.linkChangeFields].map(([name, change]) => [name, change.field, change.adds]), [
    ['add_tags', 'tags', true],
    ['remove_tags', 'tags', false],
  ]);
  assert.ok(!servers.listFields.has('tags') && !servers.storedColumns.includes('tags'), 'a set in a link table is neither sorted by nor in the row');
  assert.equal(servers.listFields.get('port')?.kind, 'integer');
  assert.equal(servers.listFields.get('hostname')?.kind, 'text');
  assert.equal(servers.listFields.get('port')?.parse('3307'), 3307);
  assert.equal(servers.listFields.get('port')?.parse('banana'), undefined);
  assert.equal(servers.listFields.get('ssl')?.parse('true'), 1, 'a boolean is compared in its column form');
  assert.deepEqual([...servers.managedNames].sort(), ['created_at', 'id', 'is_deleted', 'updated_at']);
  assert.ok(servers.searchColumns.includes('hostname') && !servers.searchColumns.includes('port'));

  const keys = DEFAULT_REGISTRY.find('ssh-keys')!;
  assert.ok(names(keys.bodyFields).includes('privée') && !names(keys.shownFields).includes('privée'), 'a write-only field is sent, never shown');
  assert.ok(!names(keys.documentFields).includes('privée'));
  assert.ok(keys.storedColumns.includes('fingerprint') && !keys.storedColumns.includes('private_key'));
  assert.ok(!keys.searchColumns.includes('private_key'), 'a secret is never searched');
});

test('a resource kept outside the registry is compiled where it is defined', () => {
  assert.deepEqual(names(API_TOKENS.shownFields).slice(0, 2), ['id', 'name']);
  assert.equal(new Registry(RESOURCES).find('tokens'), undefined);
});
