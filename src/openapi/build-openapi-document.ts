// The OpenAPI 3.1 document, generated from the registry: the same TypeBox schemas that
// validate requests describe them here, so the document cannot drift from the service.
import type { TSchema } from 'typebox';
import { PLATFORM_LANGUAGES } from '../http/languages.js';
import { MAX_ID } from '../registry/field-types.js';
import type { ResourceDefinition } from '../registry/resource-definition.js';
import { RESOURCES } from '../registry/resources.js';
import { LIMIT_DEFAULT, LIMIT_MAX } from '../pipeline/list-query.js';

type JsonObject = Record<string, unknown>;

const ref = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });
const responseRef = (name: string): JsonObject => ({ $ref: `#/components/responses/${name}` });
const json = (schema: JsonObject): JsonObject => ({ 'application/json': { schema } });

/** A plain JSON copy: TypeBox marks its schemas with symbols that have no place here. */
function plain(schema: TSchema, extra: JsonObject = {}): JsonObject {
  return { ...(JSON.parse(JSON.stringify(schema)) as JsonObject), ...extra };
}

const timestamp = { type: 'string', format: 'date-time', readOnly: true, description: 'ISO 8601, UTC.' };

function entrySchema(resource: ResourceDefinition): JsonObject {
  const properties: JsonObject = { id: { type: 'integer', minimum: 1, maximum: MAX_ID, readOnly: true } };
  for (const [name, field] of Object.entries(resource.fields)) {
    if (field.writeOnly) continue;
    properties[name] = plain(field.type.output, { description: field.description, ...(field.readOnly ? { readOnly: true } : {}) });
  }
  properties.created_at = timestamp;
  properties.updated_at = timestamp;
  return { type: 'object', description: resource.description, required: Object.keys(properties), properties };
}

type WriteMode = 'create' | 'replace' | 'patch';

function writeSchema(resource: ResourceDefinition, mode: WriteMode): JsonObject {
  const properties: JsonObject = {};
  const required: string[] = [];
  for (const [name, field] of Object.entries(resource.fields)) {
    if (field.readOnly) continue;
    const extra: JsonObject = { description: field.description };
    if (field.writeOnly) extra.writeOnly = true;
    if ('default' in field && mode !== 'patch') extra.default = field.default;
    properties[name] = plain(field.type.input, extra);
    if (field.required && (mode === 'create' || (mode === 'replace' && !field.writeOnly))) required.push(name);
  }
  const purpose = {
    create: 'Body of a POST: required fields must be sent; omitted ones take their default.',
    replace: 'Body of a PUT, a full replacement: omitted optional fields return to their default; a write-only field may be omitted to keep the stored value.',
    patch: 'Body of a PATCH: only the fields sent change.',
  }[mode];
  const schema: JsonObject = {
    type: 'object',
    description: `${purpose} Read-only fields (id, created_at, updated_at) are ignored; an unknown field is refused.`,
    properties,
    additionalProperties: false,
  };
  if (required.length > 0) schema.required = required;
  return schema;
}

const problemSchema: JsonObject = {
  type: 'object',
  description: 'RFC 9457 problem details; `error` repeats `detail` for clients of the older API.',
  required: ['type', 'title', 'status', 'code', 'detail', 'error'],
  properties: {
    type: { type: 'string', const: 'about:blank' },
    title: { type: 'string' },
    status: { type: 'integer' },
    code: {
      type: 'string',
      enum: [
        'MALFORMED_JSON', 'BAD_QUERY', 'NOT_FOUND', 'METHOD_NOT_ALLOWED', 'DELETE_GUARDED', 'REFERENCED', 'CONFLICT',
        'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'VALIDATION_FAILED', 'INTERNAL_ERROR', 'UNAVAILABLE',
      ],
    },
    detail: { type: 'string' },
    error: { type: 'string' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['field', 'message'],
        properties: { field: { type: 'string' }, message: { type: 'string' } },
      },
    },
    referenced_by: {
      type: 'array',
      description: 'With REFERENCED: the entries that still use the one to delete.',
      items: {
        type: 'object',
        required: ['resource', 'ids'],
        properties: { resource: { type: 'string' }, ids: { type: 'array', items: { type: 'integer' } } },
      },
    },
  },
};

const ERROR_RESPONSES: Record<string, string> = {
  BadRequest: 'Malformed JSON (MALFORMED_JSON) or an invalid query parameter (BAD_QUERY).',
  NotFound: 'Unknown language, resource, id or path (NOT_FOUND).',
  MethodNotAllowed: 'The path does not serve this method (METHOD_NOT_ALLOWED); see the Allow header.',
  Conflict: 'A unique field is taken (CONFLICT), the entry is built in (DELETE_GUARDED) or still referenced (REFERENCED).',
  PayloadTooLarge: 'The body is over the limit (PAYLOAD_TOO_LARGE).',
  UnsupportedMediaType: 'The body is not sent as application/json (UNSUPPORTED_MEDIA_TYPE).',
  ValidationFailed: 'The body breaks a field rule (VALIDATION_FAILED); `errors` lists each field.',
  InternalError: 'An unexpected error (INTERNAL_ERROR); the body shows no internals.',
  Unavailable: 'The database cannot be reached (UNAVAILABLE).',
};

function errorResponse(name: string, description: string): JsonObject {
  const response: JsonObject = { description, content: { 'application/problem+json': { schema: ref('Problem') } } };
  if (name === 'MethodNotAllowed') response.headers = { Allow: { schema: { type: 'string' }, description: 'Methods this path serves.' } };
  return response;
}

function errors(...names: string[]): JsonObject {
  const codes: Record<string, string> = {
    BadRequest: '400', NotFound: '404', MethodNotAllowed: '405', Conflict: '409', PayloadTooLarge: '413',
    UnsupportedMediaType: '415', ValidationFailed: '422', InternalError: '500', Unavailable: '503',
  };
  const all = [...names, 'NotFound', 'MethodNotAllowed', 'InternalError', 'Unavailable'];
  return Object.fromEntries(all.map((name) => [codes[name], responseRef(name)]));
}

const WRITE_ERRORS = ['BadRequest', 'PayloadTooLarge', 'UnsupportedMediaType', 'ValidationFailed', 'Conflict'];

function resourcePaths(resource: ResourceDefinition): [string, JsonObject][] {
  const s = resource.schemaName;
  const tag = resource.name;
  const body = (suffix: string): JsonObject => ({
    required: true,
    content: { 'application/json': { schema: ref(`${s}${suffix}`), example: resource.example } },
  });
  const listParameters: JsonObject[] = [{ $ref: '#/components/parameters/Lang' }, { $ref: '#/components/parameters/Limit' }, { $ref: '#/components/parameters/Offset' }];
  if (resource.deletion.mode === 'soft') listParameters.push({ $ref: '#/components/parameters/IncludeDeleted' });
  const updated = { description: 'Updated.', content: json(ref(`${s}Updated`)) };
  const deleteSummary =
    resource.deletion.mode === 'soft' ? 'Marks the entry deleted (is_deleted = 1); it stays readable by id.' : 'Deletes the entry for good.';

  return [
    [
      `/{lang}/api/config/${resource.name}`,
      {
        get: {
          operationId: `list${s}s`,
          tags: [tag],
          summary: `List ${resource.name}`,
          description: `${resource.description} Newest first.`,
          parameters: listParameters,
          responses: { '200': { description: 'A page of entries.', content: json(ref(`${s}List`)) }, ...errors('BadRequest') },
        },
        post: {
          operationId: `create${s}`,
          tags: [tag],
          summary: `Create an entry of ${resource.name}`,
          description: resource.description,
          parameters: [{ $ref: '#/components/parameters/Lang' }],
          requestBody: body('Create'),
          responses: {
            '201': {
              description: 'Created.',
              headers: { Location: { schema: { type: 'string' }, description: 'Path of the new entry.' } },
              content: json(ref(`${s}Created`)),
            },
            ...errors(...WRITE_ERRORS),
          },
        },
      },
    ],
    [
      `/{lang}/api/config/${resource.name}/{id}`,
      {
        parameters: [{ $ref: '#/components/parameters/Lang' }, { $ref: '#/components/parameters/Id' }],
        get: {
          operationId: `get${s}`,
          tags: [tag],
          summary: `Read one entry of ${resource.name}`,
          description: resource.description,
          responses: { '200': { description: 'The entry.', content: json(ref(`${s}Item`)) }, ...errors() },
        },
        put: {
          operationId: `replace${s}`,
          tags: [tag],
          summary: `Replace an entry of ${resource.name}`,
          description: 'Full replacement: omitted optional fields return to their default. Never creates an entry.',
          requestBody: body('Replace'),
          responses: { '200': updated, ...errors(...WRITE_ERRORS) },
        },
        patch: {
          operationId: `update${s}`,
          tags: [tag],
          summary: `Change some fields of an entry of ${resource.name}`,
          description: 'Partial update: only the fields sent change. Never creates an entry.',
          requestBody: body('Patch'),
          responses: { '200': updated, ...errors(...WRITE_ERRORS) },
        },
        delete: {
          operationId: `delete${s}`,
          tags: [tag],
          summary: `Delete an entry of ${resource.name}`,
          description: deleteSummary,
          responses: { '200': { description: 'Deleted.', content: json(ref('Deleted')) }, ...errors('Conflict') },
        },
      },
    ],
  ];
}

function resourceSchemas(resource: ResourceDefinition): [string, JsonObject][] {
  const s = resource.schemaName;
  const id = { type: 'integer', minimum: 1 };
  const name = { type: 'string', const: resource.name };
  return [
    [s, entrySchema(resource)],
    [`${s}Create`, writeSchema(resource, 'create')],
    [`${s}Replace`, writeSchema(resource, 'replace')],
    [`${s}Patch`, writeSchema(resource, 'patch')],
    [
      `${s}List`,
      {
        type: 'object',
        required: ['items', 'total', 'limit', 'offset'],
        properties: { items: { type: 'array', items: ref(s) }, total: { type: 'integer', minimum: 0 }, limit: { type: 'integer' }, offset: { type: 'integer' } },
      },
    ],
    [`${s}Item`, { type: 'object', required: ['item'], properties: { item: ref(s) } }],
    [`${s}Created`, { type: 'object', required: ['id', 'resource', 'item'], properties: { id, resource: name, item: ref(s) } }],
    [
      `${s}Updated`,
      { type: 'object', required: ['id', 'resource', 'updated', 'item'], properties: { id, resource: name, updated: { type: 'boolean', const: true }, item: ref(s) } },
    ],
  ];
}

export function buildOpenApiDocument(version: string): JsonObject {
  return {
    openapi: '3.1.0',
    info: {
      title: 'PmaControl configuration API',
      version,
      description:
        'Configuration of a MySQL/MariaDB monitoring platform: tags, clients, environments, DNS aliases, ' +
        'backup storage areas, monitored servers and SSH keys. Errors are application/problem+json (RFC 9457).',
    },
    servers: [{ url: '/', description: 'This service' }],
    tags: RESOURCES.map((resource) => ({ name: resource.name, description: resource.description })),
    paths: Object.fromEntries([
      ...RESOURCES.flatMap(resourcePaths),
      [
        '/{lang}/api/openApi',
        {
          get: {
            operationId: 'getOpenApi',
            tags: ['openapi'],
            summary: 'This OpenAPI document',
            description: 'The OpenAPI 3.1 description of the API, generated from the resource registry.',
            parameters: [{ $ref: '#/components/parameters/Lang' }],
            responses: { '200': { description: 'The document.', content: json({ type: 'object' }) }, ...errors() },
          },
        },
      ],
    ]),
    components: {
      parameters: {
        Lang: {
          name: 'lang',
          in: 'path',
          required: true,
          description: 'Language of messages: fr or en; the other platform languages answer in English.',
          schema: { type: 'string', enum: [...PLATFORM_LANGUAGES] },
        },
        Id: { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1, maximum: MAX_ID } },
        Limit: { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: LIMIT_MAX, default: LIMIT_DEFAULT } },
        Offset: { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
        IncludeDeleted: {
          name: 'include_deleted',
          in: 'query',
          description: 'true also lists soft-deleted entries.',
          schema: { type: 'boolean', default: false },
        },
      },
      schemas: {
        ...Object.fromEntries(RESOURCES.flatMap(resourceSchemas)),
        Deleted: {
          type: 'object',
          required: ['id', 'deleted', 'mode'],
          properties: { id: { type: 'integer', minimum: 1 }, deleted: { type: 'boolean', const: true }, mode: { type: 'string', enum: ['hard', 'soft'] } },
        },
        Problem: problemSchema,
      },
      responses: Object.fromEntries(Object.entries(ERROR_RESPONSES).map(([name, description]) => [name, errorResponse(name, description)])),
    },
  };
}
