// GET /{lang}/api/openApi: a valid OpenAPI 3.1 document that describes every path, method,
// schema and error response of the service, generated from the registry.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse as parseYaml } from 'yaml';
import { lintOpenApiDocuments } from '../scripts/lint-openapi.js';
import { buildOpenApiDocument } from '../src/openapi/build-openapi-document.js';
import { DEFAULT_REGISTRY } from '../src/registry/registry.js';
import { startServer, type TestServer } from './support/server.js';
import { makeKeyPair } from './support/ssh-keys.js';

const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];
const PRIV = 'privée';

/** Every operation of a document, with its path and method. */
function operations(doc: any): { path: string; method: string; operation: any }[] {
  return Object.entries(doc.paths).flatMap(([path, item]: [string, any]) =>
    HTTP_METHODS.filter((method) => item[method] !== undefined).map((method) => ({ path, method, operation: item[method] })),
  );
}

const RESOURCES = DEFAULT_REGISTRY.resources.map((resource) => resource.name);

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
      // PATCH and DELETE of a collection: bulk writes (section 12).
      assert.deepEqual(Object.keys(collection).filter((k) => k !== 'parameters').sort(), ['delete', 'get', 'head', 'options', 'patch', 'post']);
      assert.deepEqual(Object.keys(item).filter((k) => k !== 'parameters').sort(), ['delete', 'get', 'head', 'options', 'patch', 'put']);
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
      // Every name it declares, read-only ones included, and no other (propertyNames, see below).
      assert.deepEqual(schemas[`${name}Create`].propertyNames.enum, Object.keys(schemas[`${name}Create`].properties));
    }
    assert.deepEqual(schemas.TagCreate.required, ['name']);
    assert.equal(schemas.TagPatch.required, undefined);
    assert.equal(schemas.TagCreate.properties.color.default, '#ffffff');
    assert.equal(schemas.TagCreate.properties.color.pattern, '^#[0-9a-fA-F]{6}$');
    assert.deepEqual(schemas.Environment.properties.class, {
      type: 'string',
      enum: ['danger', 'warning', 'default', 'info', 'success', 'primary'],
      description: schemas.Environment.properties.class.description,
    });
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
    const example = (resource: string): Record<string, unknown> =>
      document.paths[`/{lang}/api/config/${resource}`].post.requestBody.content['application/json'].example;
    // In this order, the references of the examples (server 1, SSH key 1) exist when used.
    for (const resource of ['tags', 'clients', 'environments', 'servers', 'aliases']) {
      const reply = await server.request('POST', `/en/api/config/${resource}`, { body: example(resource) });
      assert.equal(reply.status, 201, `${resource}: ${reply.text}`);
    }
    const pair = makeKeyPair('ED25519');
    // The ssh-keys example cannot carry a key (no key material in the document): send a real one.
    const key = await server.request('POST', '/en/api/config/ssh-keys', { body: { type: pair.type, pub: pair.pub, [PRIV]: pair.openssh } });
    assert.equal(key.body.id, example('storage-areas').ssh_key);
    const area = await server.request('POST', '/en/api/config/storage-areas', { body: example('storage-areas') });
    assert.equal(area.status, 201, area.text);
  });

  test('documents the change log (section 13): /changes, its stream and a history per resource, in both languages', async () => {
    const fr = (await server.request('GET', '/fr/api/openApi')).body;
    for (const doc of [document, fr]) {
      assert.ok(doc.tags.some((tag: any) => tag.name === 'changes'));
      assert.equal(doc.paths['/{lang}/api/changes'].get.operationId, 'listChanges');
      assert.equal(doc.paths['/{lang}/api/changes/stream'].get.operationId, 'streamChanges');
      for (const name of ['ChangeRecord', 'ChangeList']) assert.ok(doc.components.schemas[name], name);
      for (const resource of DEFAULT_REGISTRY.resources) {
        assert.ok(doc.paths[`/{lang}/api/config/${resource.name}/{id}/history`].get, resource.name);
        for (const suffix of ['ChangeRecord', 'ChangeHistory']) assert.ok(doc.components.schemas[`${resource.schemaName}${suffix}`], `${resource.schemaName}${suffix}`);
      }
    }
    assert.match(fr.paths['/{lang}/api/changes'].get.summary, /^Lister les modifications/);
    assert.match(fr.tags.find((tag: any) => tag.name === 'changes').description, /journal des modifications/);
    assert.match(fr.paths['/{lang}/api/config/tags/{id}/history'].get.summary, /^L’historique/);
    assert.match(document.paths['/{lang}/api/config/tags/{id}/history'].get.summary, /^The history/);
    assert.ok(!JSON.stringify(document.components.schemas.SshKeyChangeRecord).includes('PRIVATE KEY'));
  });

  test('the change log’s parameters have the bounds and defaults the service checks', async () => {
    const parameter = (path: string, name: string): any =>
      document.paths[path].get.parameters.map((p: any) => (p.$ref ? document.components.parameters[p.$ref.split('/').pop()] : p)).find((p: any) => p.name === name).schema;
    const status = async (url: string, headers: Record<string, string> = {}): Promise<number> => (await server.request('GET', url, { headers })).status;
    const CHANGES = '/{lang}/api/changes';
    const since = parameter(CHANGES, 'since');
    assert.equal(await status(`/en/api/changes?since=${since.maximum}`), 200);
    assert.equal((await server.request('GET', '/en/api/changes?since=' + since.maximum)).body.next, since.maximum);
    for (const url of [`/en/api/changes?since=${since.maximum + 1}`, '/en/api/changes?since=-1', `/en/api/changes/stream?since=${since.maximum + 1}`]) assert.equal(await status(url), 400, url);
    const lastEventId = parameter('/{lang}/api/changes/stream', 'Last-Event-ID');
    assert.equal(await status('/en/api/changes/stream', { 'last-event-id': String(lastEventId.maximum + 1) }), 400);
    const limit = parameter(CHANGES, 'limit');
    for (const [value, expected] of [[limit.minimum, 200], [limit.maximum, 200], [limit.minimum - 1, 400], [limit.maximum + 1, 400]]) {
      assert.equal(await status(`/en/api/changes?limit=${value}`), expected, `limit=${value}`);
    }
    const entryId = parameter(CHANGES, 'entry_id');
    assert.equal(await status(`/en/api/changes?entry_id=${entryId.maximum}`), 200);
    assert.equal(await status(`/en/api/changes?entry_id=${entryId.maximum + 1}`), 400);
    const actor = parameter(CHANGES, 'actor');
    assert.equal(await status(`/en/api/changes?actor=${'a'.repeat(actor.maxLength)}`), 200);
    assert.equal(await status(`/en/api/changes?actor=${'a'.repeat(actor.maxLength + 1)}`), 400);
    for (const resource of parameter(CHANGES, 'resource').enum) assert.equal(await status(`/en/api/changes?resource=${resource}`), 200, resource);
    for (const action of parameter(CHANGES, 'action').enum) assert.equal(await status(`/en/api/changes?action=${action}`), 200, action);
    assert.equal(await status('/en/api/changes?action=rename'), 400);

    // The built-in environment 1 exists without a record: an empty history, with the defaults.
    const HISTORY = '/{lang}/api/config/environments/{id}/history';
    const historyLimit = parameter(HISTORY, 'limit');
    const offset = parameter(HISTORY, 'offset');
    const empty = await server.request('GET', '/en/api/config/environments/1/history');
    assert.deepEqual(empty.body, { items: [], total: 0, limit: historyLimit.default, offset: offset.default });
    assert.equal(parameter(CHANGES, 'limit').default, historyLimit.default);
    for (const [query, expected] of [
      [`limit=${historyLimit.maximum}`, 200], [`limit=${historyLimit.maximum + 1}`, 400], [`limit=${historyLimit.minimum - 1}`, 400],
      [`offset=${offset.maximum}`, 200], [`offset=${offset.maximum + 1}`, 400],
    ] as const) {
      assert.equal(await status(`/en/api/config/environments/1/history?${query}`), expected, query);
    }
  });

  test('is served in the language of the path: French under /fr/, English under every other', async () => {
    const fr = (await server.request('GET', '/fr/api/openApi')).body;
    assert.equal(fr.info.title, 'API de configuration PmaControl');
    assert.match(fr.tags.find((tag: any) => tag.name === 'tags').description, /Étiquettes/);
    assert.match(fr.components.schemas.Tag.properties.color.description, /Couleur du texte/);
    assert.match(fr.paths['/{lang}/api/config/tags'].get.summary, /^Lister/);
    assert.equal(fr.components.parameters.Lang.schema.default, 'fr');
    assert.equal(document.info.title, 'PmaControl configuration API');
    assert.equal(document.components.parameters.Lang.schema.default, 'en');
    assert.deepEqual((await server.request('GET', '/de/api/openApi')).body, document);
    // The same API in both: only the words differ.
    assert.deepEqual(Object.keys(fr.paths), Object.keys(document.paths));
    assert.deepEqual(Object.keys(fr.components.schemas), Object.keys(document.components.schemas));
  });

  test('?format=yaml gives the same document as YAML; any other format or parameter is 400 BAD_QUERY', async () => {
    for (const lang of ['en', 'fr']) {
      const yaml = await server.request('GET', `/${lang}/api/openApi?format=yaml`);
      assert.equal(yaml.status, 200);
      assert.equal(yaml.headers.get('content-type'), 'application/yaml; charset=utf-8');
      assert.deepEqual(parseYaml(yaml.text), (await server.request('GET', `/${lang}/api/openApi?format=json`)).body);
    }
    for (const query of ['format=xml', 'format=', 'format=YAML', 'format=json&format=yaml', 'pretty=true']) {
      const reply = await server.request('GET', `/en/api/openApi?${query}`);
      assert.equal(reply.status, 400, query);
      assert.equal(reply.body.code, 'BAD_QUERY', query);
    }
  });

  test('/{lang}/api/openApi.yaml is the YAML document, public, and takes no parameter', async () => {
    for (const lang of ['en', 'fr']) {
      const yaml = await server.request('GET', `/${lang}/api/openApi.yaml`);
      assert.equal(yaml.status, 200);
      assert.equal(yaml.headers.get('content-type'), 'application/yaml; charset=utf-8');
      assert.equal(yaml.text, (await server.request('GET', `/${lang}/api/openApi?format=yaml`)).text);
    }
    const reply = await server.request('GET', '/en/api/openApi.yaml?format=json');
    assert.equal(reply.status, 400);
    assert.equal(reply.body.code, 'BAD_QUERY');
  });

  test('a delete is described by its rule: a tag leaves the servers that hold it (no 409), a client a server uses is 409 REFERENCED', () => {
    const tagDelete = document.paths['/{lang}/api/config/tags/{id}'].delete;
    assert.match(tagDelete.description, /takes it out of servers\.tags/);
    assert.doesNotMatch(tagDelete.description, /REFERENCED/);
    assert.equal(tagDelete.responses['409'], undefined, 'deleting a tag is never refused 409');
    const clientDelete = document.paths['/{lang}/api/config/clients/{id}'].delete;
    assert.match(clientDelete.description, /REFERENCED/);
    assert.ok(clientDelete.responses['409']);
  });

  test('is the document buildOpenApiDocument makes (which the typed client and the lint script use)', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    assert.deepEqual(document, buildOpenApiDocument(DEFAULT_REGISTRY, version, 'en'));
    assert.deepEqual((await server.request('GET', '/fr/api/openApi')).body, buildOpenApiDocument(DEFAULT_REGISTRY, version, 'fr'));
  });

  test('passes redocly lint (recommended rules) and swagger-parser with no error and no warning, in both languages', { timeout: 60_000 }, async () => {
    const fr = (await server.request('GET', '/fr/api/openApi')).body;
    for (const report of await lintOpenApiDocuments({ en: document, fr })) {
      assert.deepEqual(report.problems, [], report.file);
      assert.equal(report.errors, 0);
      assert.equal(report.warnings, 0);
      assert.equal(report.swaggerParser, '', report.file);
    }
  });

  test('declares optional bearer access, a server, and public documentation and probes', () => {
    assert.deepEqual(document.security, [{}, { bearerAuth: [] }]);
    assert.deepEqual(document.components.securitySchemes.bearerAuth, {
      type: 'http',
      scheme: 'bearer',
      description: document.components.securitySchemes.bearerAuth.description,
    });
    assert.ok(document.servers.length >= 1 && typeof document.servers[0].url === 'string');
    for (const path of ['/{lang}/api/openApi', '/{lang}/api/docs', '/{lang}/api/docs/{asset}', '/healthz', '/readyz']) {
      assert.deepEqual(document.paths[path].get.security, [], path);
      assert.equal(document.paths[path].get.responses['401'], undefined, path);
    }
    const unauthorized = document.components.responses.Unauthorized;
    assert.equal(unauthorized.headers['WWW-Authenticate'].$ref, '#/components/headers/WWWAuthenticate');
    for (const { path, method, operation } of operations(document)) {
      if (operation.security?.length === 0) continue;
      assert.ok(operation.responses['401'], `${method} ${path} declares 401`);
      // A write with a read token, and any request from outside a token's allowed_ips.
      assert.ok(operation.responses['403'], `${method} ${path} declares 403`);
    }
    for (const path of ['/{lang}/api/tokens', '/{lang}/api/tokens/{id}']) {
      for (const operation of Object.values(document.paths[path]).filter((o: any) => o.operationId) as any[]) {
        assert.deepEqual(operation.security, [{}, { bearerAuth: ['admin'] }], `${operation.operationId} is for admins`);
      }
    }
  });

  test('every operation has an operationId, a summary, a description; every request body an example; every response a description', () => {
    for (const { path, method, operation } of operations(document)) {
      const label = `${method} ${path}`;
      assert.match(operation.operationId, /^[a-z][A-Za-z]+$/, label);
      assert.ok(operation.summary && operation.description, label);
      assert.ok(operation.tags?.length === 1, label);
      const body = operation.requestBody?.content?.['application/json'];
      if (operation.requestBody !== undefined) assert.ok(body.example, `${label} has a request example`);
      for (const [status, response] of Object.entries(operation.responses) as [string, any][]) {
        const resolved = response.$ref ? document.components.responses[response.$ref.split('/').pop()] : response;
        assert.ok(resolved.description, `${label} ${status}`);
      }
    }
  });

  test('ETag, If-None-Match (304) and If-Match (412) are declared on single entries', () => {
    for (const resource of RESOURCES) {
      const item = document.paths[`/{lang}/api/config/${resource}/{id}`];
      const collection = document.paths[`/{lang}/api/config/${resource}`];
      assert.deepEqual(item.get.parameters, [{ $ref: '#/components/parameters/IfNoneMatch' }]);
      assert.ok(item.get.responses['304']);
      assert.ok(item.get.responses['200'].headers.ETag);
      assert.ok(collection.post.responses['201'].headers.ETag);
      assert.ok(collection.post.responses['201'].headers.Location);
      for (const method of ['put', 'patch', 'delete']) {
        assert.deepEqual(item[method].parameters, [{ $ref: '#/components/parameters/IfMatch' }, { $ref: '#/components/parameters/DryRun' }], `${method} ${resource}`);
        assert.ok(item[method].responses['412'], `${method} ${resource}`);
      }
      assert.ok(item.put.responses['200'].headers.ETag);
    }
    assert.equal(document.components.headers.ETag.required, true);
    assert.deepEqual(document.components.responses.NotModified.content, undefined, '304 has no body');
  });

  test('lists declare limit, offset, sort, q, a filter per shown field (never privée) and 400 BAD_QUERY', () => {
    const parameterNames = (resource: string): string[] =>
      document.paths[`/{lang}/api/config/${resource}`].get.parameters.map((p: any) =>
        p.$ref ? document.components.parameters[p.$ref.split('/').pop()].name : p.name,
      );
    for (const resource of RESOURCES) {
      const names = parameterNames(resource);
      for (const name of ['limit', 'offset', 'sort', 'q', 'id', 'created_at', 'updated_at']) assert.ok(names.includes(name), `${resource} ${name}`);
      assert.equal(names.includes('include_deleted'), resource === 'servers', resource);
      assert.ok(!names.includes(PRIV));
      assert.ok(document.paths[`/{lang}/api/config/${resource}`].get.responses['400']);
    }
    assert.deepEqual(parameterNames('tags').slice(4), ['after', 'id', 'name', 'color', 'background', 'created_at', 'updated_at', 'If-None-Match']);
    assert.ok(parameterNames('storage-areas').includes('géolocalisation'));
    const sort = document.paths['/{lang}/api/config/tags'].get.parameters.find((p: any) => p.name === 'sort').schema;
    assert.match('-name,id', new RegExp(sort.pattern));
    assert.doesNotMatch('colour', new RegExp(sort.pattern));
  });

  test('server-assigned fields are readOnly, privée writeOnly, fingerprint writable', () => {
    const schemas = document.components.schemas;
    for (const name of ['Tag', 'Client', 'Environment', 'Alias', 'StorageArea', 'Server', 'SshKey']) {
      for (const field of ['id', 'created_at', 'updated_at']) assert.equal(schemas[name].properties[field].readOnly, true, `${name}.${field}`);
      assert.equal(schemas[name].additionalProperties, false, `${name} shows nothing else`);
    }
    assert.equal(schemas.Server.properties.is_deleted.readOnly, true);
    // A body may carry what a response shows (an entry read and sent back): declared read-only.
    for (const name of ['ServerCreate', 'ServerReplace', 'ServerPatch']) {
      for (const field of ['id', 'is_deleted', 'created_at', 'updated_at']) {
        // As the entry shows it, but with no default: a read-only field sent in a body is ignored.
        const { default: _default, ...shown } = schemas.Server.properties[field];
        assert.deepEqual(schemas[name].properties[field], shown, `${name}.${field}`);
        assert.ok(!(schemas[name].required ?? []).includes(field), `${name}.${field} is not required`);
      }
    }
    assert.equal(schemas.SshKeyCreate.properties.fingerprint.readOnly, undefined);
    assert.equal(schemas.SshKeyPatch.properties.fingerprint.readOnly, undefined);
    assert.equal(schemas.SshKey.properties.fingerprint.readOnly, undefined);
    for (const name of ['SshKeyCreate', 'SshKeyReplace', 'SshKeyPatch']) assert.equal(schemas[name].properties[PRIV].writeOnly, true);
  });

  test('every example in the document is valid against its schema', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ $id: 'urn:config-api:document', components: document.components });
    const check = (schema: any, example: unknown, where: string): void => {
      const anchored = JSON.parse(JSON.stringify(schema).replace(/"\$ref":"#/g, '"$ref":"urn:config-api:document#'));
      const validate = ajv.compile(anchored);
      assert.ok(validate(example), `${where}: ${ajv.errorsText(validate.errors)}`);
    };
    for (const [name, schema] of Object.entries(document.components.schemas) as [string, any][]) {
      for (const [index, example] of (schema.examples ?? []).entries()) check(schema, example, `schemas.${name}.examples[${index}]`);
    }
    for (const [name, response] of Object.entries(document.components.responses) as [string, any][]) {
      const media = response.content?.['application/problem+json'];
      if (media === undefined) continue;
      if (media.examples !== undefined) {
        for (const [key, example] of Object.entries(media.examples) as [string, any][]) check(media.schema, example.value, `responses.${name}.${key}`);
      } else {
        check(media.schema, media.example, `responses.${name}`);
      }
    }
    for (const { path, method, operation } of operations(document)) {
      const media = operation.requestBody?.content?.['application/json'];
      if (media === undefined) continue;
      // The one known exception: privée is required on POST, but never shown (see .redocly.lint-ignore.yaml).
      const example = path.endsWith('/ssh-keys') && method === 'post' ? { ...media.example, [PRIV]: 'x' } : media.example;
      check(media.schema, example, `${method} ${path}`);
    }
  });
});
