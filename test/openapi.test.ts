// GET /{lang}/api/openApi: a valid OpenAPI 3.1 document that describes every path, method,
// schema and error response of the service, generated from the registry.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import { startServer, type TestServer } from './support/server.js';

const RESOURCES = ['tags', 'clients', 'environments', 'aliases', 'storage-areas', 'servers', 'ssh-keys'];

let server: TestServer;
let document: any;

before(async () => {
  server = await startServer();
  const reply = await server.request('GET', '/en/api/openApi');
  assert.equal(reply.status, 200);
  document = reply.body;
});
after(async () => {
  await server.stop();
  await server.cleanup();
});

describe('the OpenAPI document', () => {
  test('is served as JSON under every platform language', async () => {
    for (const lang of ['fr', 'en', 'de', 'zh-cn']) {
      const reply = await server.request('GET', `/${lang}/api/openApi`);
      assert.equal(reply.status, 200, lang);
      assert.match(reply.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(reply.body.openapi, '3.1.0');
    }
    assert.equal((await server.request('GET', '/xx/api/openApi')).status, 404);
  });

  test('passes swagger-parser validation (OpenAPI 3.1 schema and references)', async () => {
    await SwaggerParser.validate(structuredClone(document));
  });

  test('has every path and method of section 2 for every resource, each with an operationId', () => {
    for (const resource of RESOURCES) {
      const collection = document.paths[`/{lang}/api/config/${resource}`];
      const item = document.paths[`/{lang}/api/config/${resource}/{id}`];
      assert.ok(collection, resource);
      assert.ok(item, resource);
      assert.deepEqual(Object.keys(collection).filter((k) => k !== 'parameters').sort(), ['get', 'post']);
      assert.deepEqual(Object.keys(item).filter((k) => k !== 'parameters').sort(), ['delete', 'get', 'patch', 'put']);
      for (const operation of [collection.get, collection.post, item.get, item.put, item.patch, item.delete]) {
        assert.equal(typeof operation.operationId, 'string');
        assert.ok(operation.summary && operation.description);
      }
    }
    assert.ok(document.paths['/{lang}/api/openApi'].get);
    const operationIds = Object.values(document.paths).flatMap((path: any) => Object.values(path).map((op: any) => op.operationId)).filter(Boolean);
    assert.equal(new Set(operationIds).size, operationIds.length, 'operationIds are unique');
  });

  test('declares request and response schemas per resource and the error responses', () => {
    const schemas = document.components.schemas;
    for (const name of ['Tag', 'Client', 'Environment', 'Alias', 'StorageArea', 'Server', 'SshKey']) {
      for (const suffix of ['', 'Create', 'Replace', 'Patch', 'List', 'Item', 'Created', 'Updated']) {
        assert.ok(schemas[`${name}${suffix}`], `${name}${suffix}`);
      }
      assert.equal(schemas[`${name}Create`].additionalProperties, false);
    }
    assert.deepEqual(schemas.TagCreate.required, ['name']);
    assert.equal(schemas.TagPatch.required, undefined);
    assert.equal(schemas.TagCreate.properties.color.default, '#ffffff');
    assert.equal(schemas.TagCreate.properties.color.pattern, '^#[0-9a-fA-F]{6}$');
    assert.deepEqual(schemas.Environment.properties.class.anyOf.map((s: any) => s.const), ['danger', 'warning', 'default', 'info', 'success', 'primary']);
    assert.equal(schemas.Server.properties.is_deleted.readOnly, true);
    assert.equal(schemas.Tag.properties.id.readOnly, true);
    assert.ok(schemas.StorageAreaCreate.properties['géolocalisation']);

    const post = document.paths['/{lang}/api/config/tags'].post;
    for (const status of ['201', '400', '404', '405', '409', '413', '415', '422', '500', '503']) assert.ok(post.responses[status], status);
    const remove = document.paths['/{lang}/api/config/clients/{id}'].delete;
    assert.ok(remove.responses['409']);
    assert.deepEqual(Object.keys(document.components.responses.NotFound.content), ['application/problem+json']);
  });

  test('privée is write-only, required on POST only, and has no example value', () => {
    const schemas = document.components.schemas;
    assert.equal(schemas.SshKeyCreate.properties['privée'].writeOnly, true);
    assert.ok(schemas.SshKeyCreate.required.includes('privée'));
    assert.ok(!schemas.SshKeyReplace.required.includes('privée'));
    assert.equal(schemas.SshKey.properties['privée'], undefined);
    const text = JSON.stringify(document);
    assert.doesNotMatch(text, /PRIVATE KEY/);
    for (const path of Object.values(document.paths) as any[]) {
      for (const operation of Object.values(path) as any[]) {
        const example = operation?.requestBody?.content?.['application/json']?.example;
        if (example !== undefined) assert.equal(example['privée'], undefined);
      }
    }
  });

  test('the request examples are accepted by the service', async () => {
    const example = document.paths['/{lang}/api/config/tags'].post.requestBody.content['application/json'].example;
    const reply = await server.request('POST', '/en/api/config/tags', { body: example });
    assert.equal(reply.status, 201, reply.text);
  });
});
