// The document must be exact for real client code and for tools nobody here wrote: a body may
// carry the read-only fields an entry was read with, enums are plain `enum`, HEAD, OPTIONS and
// 304 are declared, path parameters have examples, and the YAML rendition is declared as text.
// Checked on the documents buildOpenApiDocument makes (the server serves the same ones, see
// test/openapi.test.ts), in both languages.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { buildOpenApiDocument } from '../src/openapi/build-openapi-document.js';
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

    test('HEAD is declared wherever GET is, with its statuses and headers and no body; OPTIONS everywhere, 204 with Allow', () => {
      for (const [path, item] of Object.entries(document.paths) as [string, any][]) {
        if (item.get !== undefined) {
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
  });
}
