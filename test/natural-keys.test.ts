// @backend-independent: the registry's facts for configuration as code (contract section 18),
// checked without a database: every resource of the document has a natural key naming its
// own fields, and the dependency order puts each resource after what it references, which
// an apply creates first and prunes last.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as types from '../src/registry/field-types.js';
import { DEFAULT_REGISTRY, Registry } from '../src/registry/registry.js';
import type { ResourceDefinition } from '../src/registry/resource-definition.js';
import { naturalKeyText, parseNaturalKeyText } from '../src/registry/natural-key-text.js';
import { RESOURCES } from '../src/registry/resources.js';

const text = (en: string) => ({ en, fr: en });

describe('natural keys and dependency order', () => {
  test('the natural keys of section 18', () => {
    const keys = Object.fromEntries(RESOURCES.map((resource) => [resource.name, resource.naturalKey]));
    assert.deepEqual(keys, {
      tags: ['name'],
      clients: ['libelle'],
      environments: ['key'],
      aliases: ['dns', 'port'],
      'storage-areas': ['ip', 'port', 'path'],
      servers: ['ip', 'port'],
      'ssh-keys': ['fingerprint'],
    });
  });

  test('every resource comes after the resources it references', () => {
    const order = DEFAULT_REGISTRY.dependencyOrder().map((resource) => resource.name);
    assert.deepEqual([...order].sort(), RESOURCES.map((resource) => resource.name).sort(), 'each resource once');
    for (const resource of RESOURCES) {
      for (const [name, field] of Object.entries(resource.fields)) {
        const target = field.type.references?.resource;
        if (target === undefined || target === resource.name) continue;
        assert.ok(order.indexOf(target) < order.indexOf(resource.name), `${resource.name}.${name} points at ${target}, which must come first in ${order.join(', ')}`);
      }
    }
  });

  test('a natural key naming no field, or a cycle of references, stops the start', () => {
    const tags = RESOURCES.find((resource) => resource.name === 'tags')!;
    const misnamed: ResourceDefinition = { ...tags, naturalKey: ['nmae'] };
    assert.throws(() => new Registry(RESOURCES.map((resource) => (resource === tags ? misnamed : resource))), /tags: natural key names no field "nmae"/);
    const looping: ResourceDefinition = {
      ...tags,
      fields: { ...tags.fields, id_server: { type: types.reference('servers', { nullable: true }), column: 'id_server', default: null, description: text('x') } },
    };
    assert.throws(() => new Registry(RESOURCES.map((resource) => (resource === tags ? looping : resource))), /references make a cycle \(.*tags.*servers.*\)/);
  });

  test('a resource without a natural key is not part of the document', () => {
    const clients = RESOURCES.find((resource) => resource.name === 'clients')!;
    const { naturalKey: _, ...keyless } = clients;
    const registry = new Registry(RESOURCES.map((resource) => (resource === clients ? keyless : resource)));
    assert.ok(!registry.dependencyOrder().some((resource) => resource.name === 'clients'));
  });
});

describe('a natural key as one text', () => {
  const named = (name: string): ResourceDefinition => RESOURCES.find((resource) => resource.name === name) as ResourceDefinition;

  test('written with colons, read back typed', () => {
    const servers = named('servers');
    assert.equal(naturalKeyText(servers, { ip: '10.0.0.5', port: 3306, hostname: 'db' }), '10.0.0.5:3306');
    assert.deepEqual(parseNaturalKeyText(servers, '10.0.0.5:3306'), { ip: '10.0.0.5', port: 3306 });
    assert.equal(naturalKeyText(named('tags'), { name: 'galera' }), 'galera');
    assert.deepEqual(parseNaturalKeyText(named('tags'), 'galera'), { name: 'galera' });
  });

  test('an IPv6 server splits at the last colon', () => {
    assert.deepEqual(parseNaturalKeyText(named('servers'), '2001:db8::5:3307'), { ip: '2001:db8::5', port: 3307 });
  });

  test('too few parts or a value the field refuses is no key', () => {
    const servers = named('servers');
    assert.equal(parseNaturalKeyText(servers, '10.0.0.5'), undefined);
    assert.equal(parseNaturalKeyText(servers, '10.0.0.5:http'), undefined);
    assert.equal(parseNaturalKeyText(servers, '10.0.0.5:70000'), undefined);
    assert.equal(parseNaturalKeyText(servers, 'not an address:3306'), undefined);
  });
});
