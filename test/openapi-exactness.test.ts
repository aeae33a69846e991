// The document must be exact for real client code and for tools nobody here wrote: a body may
// carry the read-only fields an entry was read with, enums are plain `enum`, HEAD, OPTIONS and
// 304 are declared (each path with the methods its route serves), path parameters have
// examples, the YAML rendition is declared as text, and the change log's records are typed by
// the resource they belong to.
// Checked on the documents buildOpenApiDocument makes (the server serves the same ones, see
// test/openapi.test.ts), in both languages.
// @backend-independent (runs once, not once per backend): the document built from the registry, in memory.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { buildOpenApiDocument } from '../src/openapi/build-openapi-document.js';
import { ALLOWED_METHODS, type Endpoint } from '../src/pipeline/request-target.js';
import { DEFAULT_REGISTRY } from '../src/registry/registry.js';

const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** Every node of a JSON value, with its JSON pointer. */
function* nodes(value: unknown, pointer = '#'): Generator<[string, any]> {
  if (typeof value !== 'object' || value === null) return;
  yield [pointer, value];
  for (const [key, child] of Object.entries(value)) yield* nodes(child, `${pointer}/${key}`);
}

/** A local reference, followed. */
function resolve(document: any, node: any): any {
  return typeof node?.$ref === 'string' ? node.$ref.slice(2).split('/').reduce((at: any, key: string) => at[key.replace(/~1/g, '/')], document) : node;
}

/** The endpoint (src/pipeline/request-target.ts) that serves a path of the document under /{lang}/api/. */
function endpointOf(path: string): Endpoint | undefined {
  const rules: [RegExp, Endpoint][] = [
    [/^\/\{lang\}\/api\/config\/[a-z-]+$/, 'collection'],
    [/^\/\{lang\}\/api\/config\/[a-z-]+\/\{id\}$/, 'item'],
    [/^\/\{lang\}\/api\/config\/[a-z-]+\/\{id\}\/restore$/, 'restore'],
    [/^\/\{lang\}\/api\/config\/[a-z-]+\/\{id\}\/history$/, 'history'],
    [/^\/\{lang\}\/api\/tokens$/, 'tokens'],
    [/^\/\{lang\}\/api\/tokens\/\{id\}$/, 'token'],
    [/^\/\{lang\}\/api\/webhooks$/, 'webhooks'],
    [/^\/\{lang\}\/api\/webhooks\/\{id\}$/, 'webhook'],
    [/^\/\{lang\}\/api\/webhooks\/\{id\}\/rotate-secret$/, 'webhookRotate'],
    [/^\/\{lang\}\/api\/webhooks\/\{id\}\/ping$/, 'webhookPing'],
    [/^\/\{lang\}\/api\/webhooks\/\{id\}\/deliveries$/, 'webhookDeliveries'],
    [/^\/\{lang\}\/api\/webhooks\/\{id\}\/deliveries\/\{delivery_id\}\/redeliver$/, 'webhookRedeliver'],
    [/^\/\{lang\}\/api\/changes$/, 'changes'],
    [/^\/\{lang\}\/api\/changes\/stream$/, 'changeStream'],
    [/^\/\{lang\}\/api\/openApi(\.yaml)?$/, 'openapi'],
    [/^\/\{lang\}\/api\/docs(\/\{asset\})?$/, 'docs'],
    [/^\/\{lang\}\/api\/sd\/prometheus$/, 'prometheusTargets'],
    [/^\/\{lang\}\/api\/inventory\/ansible$/, 'ansibleInventory'],
    [/^\/\{lang\}\/api\/export$/, 'configurationExport'],
    [/^\/\{lang\}\/api\/apply$/, 'apply'],
  ];
  return rules.find(([pattern]) => pattern.test(path))?.[1];
}

/** What Prism does to a request body schema before it validates: read-only properties go. */
function withoutReadOnly(schema: any): any {
  const kept = Object.entries(schema.properties).filter(([, property]: [string, any]) => property.readOnly !== true);
  const names = new Set(kept.map(([name]) => name));
  return { ...schema, properties: Object.fromEntries(kept), ...(schema.required ? { required: schema.required.filter((name: string) => names.has(name)) } : {}) };
}

for (const language of ['en', 'fr'] as const) {
  const document: any = buildOpenApiDocument(DEFAULT_REGISTRY, '0.0.0', language);
  const schemas = document.components.schemas;

  describe(`the ${language} document, for client code`, () => {
    test('a body may carry the read-only fields of an entry as read: "read, change a field, PUT it back" is valid, also once a validating proxy drops readOnly properties', () => {
      const ajv = new Ajv2020({ strict: false, allErrors: true });
      addFormats(ajv);
      for (const resource of DEFAULT_REGISTRY.resources) {
        const s = resource.schemaName;
        // The entry as a GET shows it, with one field changed to the value of the registry's example.
        const [field, value] = Object.entries(resource.example)[0]!;
        const changed = { ...(schemas[s].examples[0] as object), [field]: value };
        for (const suffix of ['Replace', 'Patch']) {
          const body = schemas[`${s}${suffix}`];
          for (const name of Object.keys(schemas[s].properties).filter((field) => schemas[s].properties[field].readOnly)) {
            assert.equal(body.properties[name]?.readOnly, true, `${s}${suffix}.${name} is declared readOnly`);
          }
          for (const [label, schema] of [['as declared', body], ['without readOnly properties', withoutReadOnly(body)]] as const) {
            const validate = ajv.compile(schema);
            assert.ok(validate(changed), `${s}${suffix} ${label}: ${ajv.errorsText(validate.errors)}`);
            assert.ok(!validate({ ...changed, no_such_field: 1 }), `${s}${suffix} ${label} refuses an unknown field`);
          }
        }
      }
    });

    test('enums are plain `enum`, never `anyOf` of `const`', () => {
      for (const [pointer, node] of nodes(document)) {
        for (const keyword of ['anyOf', 'oneOf']) {
          const members = node[keyword];
          if (Array.isArray(members)) assert.ok(!members.every((member: any) => 'const' in member), `${pointer}/${keyword} is a choice of constants`);
        }
      }
      assert.deepEqual(schemas.SshKey.properties.type.enum, ['ED25519', 'RSA']);
      assert.equal(schemas.SshKey.properties.type.type, 'string');
      assert.deepEqual(schemas.Server.properties.is_deleted.enum, [0, 1]);
    });

    test('HEAD is declared wherever GET is (but on the change stream, served by GET alone), with its statuses and headers and no body; OPTIONS everywhere, 204 with Allow', () => {
      for (const [path, item] of Object.entries(document.paths) as [string, any][]) {
        if (path === '/{lang}/api/changes/stream') {
          assert.equal(item.head, undefined, 'a stream has no end for HEAD to report: the route answers HEAD 405');
        } else if (item.get !== undefined) {
          assert.ok(item.head, `HEAD ${path}`);
          assert.deepEqual(Object.keys(item.head.responses), Object.keys(item.get.responses), `HEAD ${path}: GET's statuses`);
          assert.deepEqual(item.head.parameters, item.get.parameters, `HEAD ${path}: GET's parameters`);
          for (const [status, response] of Object.entries(item.head.responses)) {
            const resolved = resolve(document, response);
            assert.equal(resolved.content, undefined, `HEAD ${path} ${status} has no body`);
            assert.deepEqual(resolved.headers, resolve(document, item.get.responses[status]).headers, `HEAD ${path} ${status}: GET's headers`);
          }
        }
        const options = item.options;
        assert.ok(options, `OPTIONS ${path}`);
        const allowed = resolve(document, options.responses['204']);
        assert.equal(allowed.content, undefined);
        assert.equal(resolve(document, allowed.headers.Allow).required, true, `OPTIONS ${path}: Allow`);
        const reference = item.get ?? Object.values(item).find((operation: any) => operation?.responses);
        assert.deepEqual(options.security, reference.security, `OPTIONS ${path} needs what GET needs`);
      }
    });

    test('every path under /{lang}/api/ declares exactly the methods its route serves (ALLOWED_METHODS)', () => {
      for (const [path, item] of Object.entries(document.paths) as [string, any][]) {
        if (!path.startsWith('/{lang}/api/')) continue;
        const endpoint = endpointOf(path);
        assert.ok(endpoint !== undefined, `${path} is served by a known endpoint`);
        const declared = METHODS.filter((method) => item[method] !== undefined).map((method) => method.toUpperCase());
        assert.deepEqual(declared.sort(), [...ALLOWED_METHODS[endpoint]].sort(), path);
      }
    });

    test('304 is declared, without content, with the ETag the client sent back', () => {
      for (const [path, item] of Object.entries(document.paths) as [string, any][]) {
        for (const method of ['get', 'head']) {
          const notModified = item[method]?.responses['304'];
          if (notModified === undefined) continue;
          const resolved = resolve(document, notModified);
          assert.equal(resolved.content, undefined, `${method} ${path}`);
          assert.ok(resolved.headers.ETag, `${method} ${path}`);
          assert.ok(item[method].parameters.some((parameter: any) => resolve(document, parameter).name === 'If-None-Match'), `${method} ${path}`);
        }
      }
      assert.ok(document.paths['/{lang}/api/config/tags/{id}'].get.responses['304']);
    });

    test('every path parameter has an example that its schema accepts', () => {
      const ajv = new Ajv2020({ strict: false });
      for (const [path, item] of Object.entries(document.paths) as [string, any][]) {
        for (const method of ['parameters', ...METHODS]) {
          const parameters = method === 'parameters' ? item.parameters : item[method]?.parameters;
          for (const parameter of (parameters ?? []).map((p: any) => resolve(document, p)).filter((p: any) => p.in === 'path')) {
            assert.ok('example' in parameter, `${path}: {${parameter.name}} has an example`);
            assert.ok(ajv.validate(parameter.schema, parameter.example), `${path}: {${parameter.name}} example`);
          }
        }
      }
    });

    test('the YAML rendition of the document is declared as text', () => {
      const content = document.paths['/{lang}/api/openApi'].get.responses['200'].content;
      assert.equal(content['application/yaml'].schema.type, 'string');
      assert.equal(content['application/json'].schema.type, 'object');
    });

    test('the change log: /changes and its stream under the `changes` tag, and a history per resource, with the resource’s own entry schema', () => {
      const tag = document.tags.find((candidate: any) => candidate.name === 'changes');
      assert.ok(tag?.description, 'a changes tag');
      const list = document.paths['/{lang}/api/changes'].get;
      const stream = document.paths['/{lang}/api/changes/stream'].get;
      for (const operation of [list, stream]) assert.deepEqual(operation.tags, ['changes']);
      assert.deepEqual(list.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/ChangeList' });
      assert.deepEqual(schemas.ChangeList.properties.items.items, { $ref: '#/components/schemas/ChangeRecord' });
      const names = (operation: any): string[] => operation.parameters.map((parameter: any) => resolve(document, parameter).name);
      assert.deepEqual(names(list), ['since', 'resource', 'entry_id', 'actor', 'action', 'limit']);
      assert.deepEqual(names(stream), ['since', 'resource', 'entry_id', 'actor', 'action', 'Last-Event-ID']);
      assert.deepEqual(schemas.ChangeRecord.required, ['id', 'at', 'action', 'resource', 'entry_id', 'actor', 'request_id', 'before', 'after', 'secrets_changed']);

      const ajv = new Ajv2020({ strict: false, allErrors: true });
      addFormats(ajv);
      ajv.addSchema({ $id: 'urn:config-api:exactness', components: document.components });
      const validator = (name: string) => ajv.getSchema(`urn:config-api:exactness#/components/schemas/${name}`)!;
      for (const resource of DEFAULT_REGISTRY.resources) {
        const s = resource.schemaName;
        const path = document.paths[`/{lang}/api/config/${resource.name}/{id}/history`];
        assert.ok(path, `${resource.name} has a history`);
        assert.deepEqual(Object.keys(path).filter((key) => key !== 'parameters').sort(), ['get', 'head', 'options']);
        assert.equal(path.get.operationId, `get${s}History`);
        assert.deepEqual(path.get.tags, [resource.name]);
        assert.deepEqual(path.get.responses['200'].content['application/json'].schema, { $ref: `#/components/schemas/${s}ChangeHistory` });
        assert.ok(path.get.responses['404'], `${resource.name}: 404 for an entry that never existed`);
        assert.deepEqual(names(path.get), ['limit', 'offset']);
        const record = schemas[`${s}ChangeRecord`];
        assert.deepEqual(schemas[`${s}ChangeHistory`].properties.items.items, { $ref: `#/components/schemas/${s}ChangeRecord` });
        for (const side of ['before', 'after']) assert.deepEqual(record.properties[side].anyOf, [{ $ref: `#/components/schemas/${s}` }, { type: 'null' }], `${s}.${side}`);
        assert.equal(record.properties.action.enum.includes('restore'), resource.deletion.mode === 'soft', `${resource.name}: restore only where deletes are soft`);

        // A record made of the entry as GET shows it is valid; a write-only field in it is not.
        const entry = schemas[s].examples[0];
        const secrets = Object.entries(resource.fields).filter(([, field]) => field.writeOnly).map(([name]) => name);
        const valid = {
          id: 7, at: '2026-11-22T10:00:00.000Z', action: 'update', resource: resource.name, entry_id: 1, actor: 'anonymous',
          request_id: 'req-1', before: entry, after: entry, secrets_changed: secrets,
        };
        for (const name of [`${s}ChangeRecord`, 'ChangeRecord']) {
          const validate = validator(name);
          assert.ok(validate(valid), `${name}: ${ajv.errorsText(validate.errors)}`);
          assert.ok(validate({ ...valid, action: 'create', before: null }), `${name}: a create`);
          assert.ok(!validate({ ...valid, action: 'rename' }), `${name} refuses an unknown action`);
          assert.ok(!validate({ ...valid, request_id: 'has spaces' }), `${name} refuses a request id the service never keeps`);
        }
        const typed = validator(`${s}ChangeRecord`);
        assert.ok(!typed({ ...valid, after: { ...entry, 'privée': 'x' } }), `${s}ChangeRecord refuses a write-only field in after`);
        assert.ok(!typed({ ...valid, resource: 'other' }), `${s}ChangeRecord is of ${resource.name} only`);
        assert.ok(!typed({ ...valid, secrets_changed: ['name'] }), `${s}ChangeRecord: secrets_changed names write-only fields only`);
      }
      assert.deepEqual(schemas.SshKeyChangeRecord.properties.secrets_changed.items.enum, ['privée']);
    });

    test('the change stream is GET only, text/event-stream, never cached; its example is what the service sends', () => {
      const item = document.paths['/{lang}/api/changes/stream'];
      assert.deepEqual(Object.keys(item).filter((key) => key !== 'parameters').sort(), ['get', 'options']);
      const ok = item.get.responses['200'];
      assert.deepEqual(Object.keys(ok.content), ['text/event-stream']);
      assert.equal(resolve(document, ok.headers['Cache-Control']).schema.const, 'no-store');
      const media = ok.content['text/event-stream'];
      const pattern = new RegExp(media.schema.pattern);
      assert.match(media.example, pattern);
      assert.doesNotMatch('id: 1\nevent: change\ndata: {}\n', pattern, 'an event ends with a blank line');
      assert.doesNotMatch('event: change\ndata: {}\n\n', pattern, 'an event has its id');
      const ajv = new Ajv2020({ strict: false });
      addFormats(ajv);
      ajv.addSchema({ $id: 'urn:config-api:stream', components: document.components });
      const validate = ajv.getSchema('urn:config-api:stream#/components/schemas/ChangeRecord')!;
      const data = [...media.example.matchAll(/^data: (.*)$/gm)].map((match: RegExpMatchArray) => JSON.parse(match[1]!));
      assert.ok(data.length > 0);
      for (const record of data) assert.ok(validate(record), ajv.errorsText(validate.errors));
    });
  });
}
