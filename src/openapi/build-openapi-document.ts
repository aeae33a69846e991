// The OpenAPI 3.1 document, generated from the registry: the same TypeBox schemas that
// validate requests describe them here, so the document cannot drift from the service.
// Every response the test suite provokes is checked against this document
// (test/support/openapi-response-checker.ts), so what it promises is what the service does.
import type { TSchema } from 'typebox';
import { DOCS_ASSET_NAMES } from '../docs/docs-assets.js';
import type { ErrorCode } from '../http/api-error.js';
import { PLATFORM_LANGUAGES, type MessageLanguage } from '../http/languages.js';
import { LIMIT_DEFAULT, LIMIT_MAX, OFFSET_MAX, SEARCH_MAX, SORT_KEYS_MAX } from '../pipeline/list-query.js';
import { MAX_ID } from '../registry/field-types.js';
import type { FieldDefinition, ResourceDefinition } from '../registry/resource-definition.js';
import { RESOURCES, referencesTo } from '../registry/resources.js';
import { documentTexts, type DocumentTexts } from './document-texts.js';
import { problemExample, type ProblemExampleName } from './problem-examples.js';

type JsonObject = Record<string, unknown>;

/** Every `code` a problem body may carry, in the order of their statuses. */
const PROBLEM_CODES = [
  'MALFORMED_JSON', 'BAD_QUERY', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'METHOD_NOT_ALLOWED', 'DELETE_GUARDED', 'REFERENCED',
  'CONFLICT', 'PRECONDITION_FAILED', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'VALIDATION_FAILED', 'RATE_LIMITED',
  'INTERNAL_ERROR', 'UNAVAILABLE',
] as const;
// A code added to the service but not to the list above fails the type check, here.
const EVERY_CODE_DOCUMENTED: [Exclude<ErrorCode, (typeof PROBLEM_CODES)[number]>] extends [never] ? true : never = true;
void EVERY_CODE_DOCUMENTED;

type ProblemCode = (typeof PROBLEM_CODES)[number];

/** The shared error responses: status, the codes a body may carry, and the text that explains them. */
const ERROR_RESPONSES = {
  BadQuery: { status: 400, codes: ['BAD_QUERY'], text: 'badQuery' },
  // Writes take no query parameter: one is refused like a body that cannot be read.
  MalformedJson: { status: 400, codes: ['MALFORMED_JSON', 'BAD_QUERY'], text: 'malformedJson' },
  Unauthorized: { status: 401, codes: ['UNAUTHORIZED'], text: 'unauthorized' },
  Forbidden: { status: 403, codes: ['FORBIDDEN'], text: 'forbidden' },
  NotFound: { status: 404, codes: ['NOT_FOUND'], text: 'notFound' },
  MethodNotAllowed: { status: 405, codes: ['METHOD_NOT_ALLOWED'], text: 'methodNotAllowed' },
  WriteConflict: { status: 409, codes: ['CONFLICT'], text: 'writeConflict' },
  DeleteConflict: { status: 409, codes: ['DELETE_GUARDED', 'REFERENCED', 'CONFLICT'], text: 'deleteConflict' },
  PreconditionFailed: { status: 412, codes: ['PRECONDITION_FAILED'], text: 'preconditionFailed' },
  PayloadTooLarge: { status: 413, codes: ['PAYLOAD_TOO_LARGE'], text: 'payloadTooLarge' },
  UnsupportedMediaType: { status: 415, codes: ['UNSUPPORTED_MEDIA_TYPE'], text: 'unsupportedMediaType' },
  ValidationFailed: { status: 422, codes: ['VALIDATION_FAILED'], text: 'validationFailed' },
  RateLimited: { status: 429, codes: ['RATE_LIMITED'], text: 'rateLimited' },
  InternalError: { status: 500, codes: ['INTERNAL_ERROR'], text: 'internalError' },
  Unavailable: { status: 503, codes: ['UNAVAILABLE'], text: 'unavailable' },
} as const satisfies Record<ProblemExampleName, { status: number; codes: readonly ProblemCode[]; text: keyof DocumentTexts }>;

type ErrorName = keyof typeof ERROR_RESPONSES;

const ref = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });
const parameterRef = (name: string): JsonObject => ({ $ref: `#/components/parameters/${name}` });
const json = (schema: JsonObject): JsonObject => ({ 'application/json': { schema } });

/** A plain JSON copy: TypeBox marks its schemas with symbols that have no place here. */
function plain(schema: TSchema, extra: JsonObject = {}): JsonObject {
  return { ...(JSON.parse(JSON.stringify(schema)) as JsonObject), ...extra };
}

/** `Tags` for tags, `StorageAreas` for storage-areas: operation ids read as English. */
function pascalPlural(resource: ResourceDefinition): string {
  return resource.name.replace(/(^|-)([a-z])/g, (_whole, _dash: string, letter: string) => letter.toUpperCase());
}

/** The responses an operation can give, each as a reference to a shared response. */
function errors(...names: ErrorName[]): JsonObject {
  const sorted = [...new Set(names)].sort((a, b) => ERROR_RESPONSES[a].status - ERROR_RESPONSES[b].status);
  const statuses = sorted.map((name) => ERROR_RESPONSES[name].status);
  // One response per status: two shared responses for one status would silently hide one.
  if (new Set(statuses).size !== statuses.length) throw new Error(`two error responses share a status: ${sorted.join(', ')}`);
  return Object.fromEntries(sorted.map((name) => [String(ERROR_RESPONSES[name].status), { $ref: `#/components/responses/${name}` }]));
}

/** Errors any path of the service can answer with. */
const ALWAYS: ErrorName[] = ['NotFound', 'MethodNotAllowed', 'InternalError', 'Unavailable'];
/** Added by bearer-token access on the configuration paths. */
const READ_ACCESS: ErrorName[] = ['Unauthorized', 'RateLimited'];
const WRITE_ACCESS: ErrorName[] = [...READ_ACCESS, 'Forbidden'];
const BODY_ERRORS: ErrorName[] = ['MalformedJson', 'PayloadTooLarge', 'UnsupportedMediaType', 'ValidationFailed', 'WriteConflict'];

class DocumentBuilder {
  private readonly t: DocumentTexts;

  constructor(
    private readonly version: string,
    private readonly language: MessageLanguage,
  ) {
    this.t = documentTexts(language);
  }

  build(): JsonObject {
    const t = this.t;
    return {
      openapi: '3.1.0',
      info: { title: t.title, version: this.version, description: t.info },
      servers: [{ url: '/', description: t.server }],
      // Anonymous access or a bearer token: which one applies depends on how the service is run.
      security: [{}, { bearerAuth: [] }],
      tags: [
        ...RESOURCES.map((resource) => ({ name: resource.name, description: resource.description[this.language] })),
        { name: 'documentation', description: t.documentationTag },
        { name: 'operations', description: t.operationsTag },
      ],
      paths: Object.fromEntries([
        ...RESOURCES.flatMap((resource) => this.resourcePaths(resource)),
        ...this.documentationPaths(),
        ...this.operationsPaths(),
      ]),
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: t.bearer } },
        parameters: this.sharedParameters(),
        headers: this.sharedHeaders(),
        schemas: {
          ...Object.fromEntries(RESOURCES.flatMap((resource) => this.resourceSchemas(resource))),
          Deleted: {
            type: 'object',
            required: ['id', 'deleted', 'mode'],
            additionalProperties: false,
            properties: {
              id: { type: 'integer', minimum: 1, maximum: MAX_ID },
              deleted: { type: 'boolean', const: true },
              mode: { type: 'string', enum: ['hard', 'soft'], description: t.deletedMode },
            },
          },
          Problem: this.problemSchema(),
          Health: {
            type: 'object',
            required: ['status', 'uptimeSeconds'],
            properties: { status: { type: 'string', const: 'ok' }, uptimeSeconds: { type: 'integer', minimum: 0 } },
          },
          Readiness: { type: 'object', required: ['status'], properties: { status: { type: 'string', const: 'ready' } } },
        },
        responses: {
          NotModified: { description: t.notModified, headers: { ETag: { $ref: '#/components/headers/ETag' } } },
          ...Object.fromEntries(Object.keys(ERROR_RESPONSES).map((name) => [name, this.errorResponse(name as ErrorName)])),
        },
      },
    };
  }

  private sharedParameters(): JsonObject {
    const t = this.t;
    return {
      Lang: {
        name: 'lang',
        in: 'path',
        required: true,
        description: t.lang,
        // The language of this document, so that "Try it out" answers in the reader's language.
        schema: { type: 'string', enum: [...PLATFORM_LANGUAGES], default: this.language },
      },
      Id: { name: 'id', in: 'path', required: true, description: t.id, schema: { type: 'integer', minimum: 1, maximum: MAX_ID } },
      Limit: { name: 'limit', in: 'query', description: t.limit, schema: { type: 'integer', minimum: 1, maximum: LIMIT_MAX, default: LIMIT_DEFAULT } },
      Offset: { name: 'offset', in: 'query', description: t.offset, schema: { type: 'integer', minimum: 0, maximum: OFFSET_MAX, default: 0 } },
      Search: { name: 'q', in: 'query', description: t.q, schema: { type: 'string', minLength: 1, maxLength: SEARCH_MAX } },
      IncludeDeleted: { name: 'include_deleted', in: 'query', description: t.includeDeleted, schema: { type: 'boolean', default: false } },
      IfMatch: { name: 'If-Match', in: 'header', description: t.ifMatch, schema: { type: 'string' } },
      IfNoneMatch: { name: 'If-None-Match', in: 'header', description: t.ifNoneMatch, schema: { type: 'string' } },
    };
  }

  private sharedHeaders(): JsonObject {
    const t = this.t;
    return {
      ETag: { description: t.etag, required: true, schema: { type: 'string', pattern: '^(W/)?"[^"]*"$' } },
      Location: { description: t.location, required: true, schema: { type: 'string', format: 'uri-reference' } },
      Allow: { description: t.allow, required: true, schema: { type: 'string' } },
      WWWAuthenticate: { description: t.wwwAuthenticate, required: true, schema: { type: 'string' } },
      RetryAfter: { description: t.retryAfter, required: true, schema: { type: 'integer', minimum: 0 } },
    };
  }

  private errorResponse(name: ErrorName): JsonObject {
    const { status, codes, text } = ERROR_RESPONSES[name];
    const schema = {
      allOf: [
        ref('Problem'),
        {
          type: 'object',
          properties: { status: { type: 'integer', const: status }, code: codes.length === 1 ? { type: 'string', const: codes[0] } : { type: 'string', enum: [...codes] } },
        },
      ],
    };
    const response: JsonObject = {
      description: this.t[text],
      content: { 'application/problem+json': { schema, example: problemExample(name, this.language) } },
    };
    const header = (key: string): JsonObject => ({ $ref: `#/components/headers/${key}` });
    if (name === 'MethodNotAllowed') response.headers = { Allow: header('Allow') };
    if (name === 'Unauthorized') response.headers = { 'WWW-Authenticate': header('WWWAuthenticate') };
    if (name === 'RateLimited') response.headers = { 'Retry-After': header('RetryAfter') };
    return response;
  }

  private problemSchema(): JsonObject {
    const t = this.t;
    return {
      type: 'object',
      description: t.problem,
      required: ['type', 'title', 'status', 'code', 'detail', 'error'],
      properties: {
        type: { type: 'string', const: 'about:blank' },
        title: { type: 'string' },
        status: { type: 'integer', minimum: 400, maximum: 599 },
        code: { type: 'string', enum: [...PROBLEM_CODES] },
        detail: { type: 'string' },
        error: { type: 'string' },
        errors: {
          type: 'array',
          description: t.problemErrors,
          items: {
            type: 'object',
            required: ['field', 'message'],
            additionalProperties: false,
            properties: { field: { type: 'string' }, message: { type: 'string' } },
          },
        },
        referenced_by: {
          type: 'array',
          description: t.referencedBy,
          items: {
            type: 'object',
            required: ['resource', 'ids'],
            additionalProperties: false,
            properties: { resource: { type: 'string' }, ids: { type: 'array', items: { type: 'integer', minimum: 1 } } },
          },
        },
      },
    };
  }

  private entrySchema(resource: ResourceDefinition): JsonObject {
    const t = this.t;
    const properties: JsonObject = { id: { type: 'integer', minimum: 1, maximum: MAX_ID, readOnly: true, description: t.entryId } };
    for (const [name, field] of Object.entries(resource.fields)) {
      if (field.writeOnly) continue;
      properties[name] = plain(field.type.output, { description: field.description[this.language], ...(field.readOnly ? { readOnly: true } : {}) });
    }
    const timestamp = { type: 'string', format: 'date-time', readOnly: true, description: t.timestamp };
    properties.created_at = timestamp;
    properties.updated_at = timestamp;
    return {
      type: 'object',
      description: resource.description[this.language],
      required: Object.keys(properties),
      // Strict on purpose: a response that shows a write-only field (privée) breaks the document.
      additionalProperties: false,
      properties,
      examples: [entryExample(resource)],
    };
  }

  private writeSchema(resource: ResourceDefinition, mode: 'create' | 'replace' | 'patch'): JsonObject {
    const t = this.t;
    const properties: JsonObject = {};
    const required: string[] = [];
    for (const [name, field] of Object.entries(resource.fields)) {
      if (field.readOnly) continue;
      const extra: JsonObject = { description: field.description[this.language] };
      if (field.writeOnly) extra.writeOnly = true;
      if ('default' in field && mode !== 'patch') extra.default = field.default;
      properties[name] = plain(field.type.input, extra);
      if (field.required && (mode === 'create' || (mode === 'replace' && !field.writeOnly))) required.push(name);
    }
    const purpose = { create: t.writeCreate, replace: t.writeReplace, patch: t.writePatch }[mode];
    const schema: JsonObject = { type: 'object', description: `${purpose} ${t.writeCommon}`, properties, additionalProperties: false };
    if (required.length > 0) schema.required = required;
    return schema;
  }

  private resourceSchemas(resource: ResourceDefinition): [string, JsonObject][] {
    const s = resource.schemaName;
    const id = { type: 'integer', minimum: 1, maximum: MAX_ID };
    const name = { type: 'string', const: resource.name };
    const object = (properties: JsonObject): JsonObject => ({ type: 'object', required: Object.keys(properties), additionalProperties: false, properties });
    return [
      [s, this.entrySchema(resource)],
      [`${s}Create`, this.writeSchema(resource, 'create')],
      [`${s}Replace`, this.writeSchema(resource, 'replace')],
      [`${s}Patch`, this.writeSchema(resource, 'patch')],
      [
        `${s}List`,
        object({
          items: { type: 'array', items: ref(s) },
          total: { type: 'integer', minimum: 0, description: this.t.total },
          limit: { type: 'integer', minimum: 1, maximum: LIMIT_MAX },
          offset: { type: 'integer', minimum: 0 },
        }),
      ],
      [`${s}Item`, object({ item: ref(s) })],
      [`${s}Created`, object({ id, resource: name, item: ref(s) })],
      [`${s}Updated`, object({ id, resource: name, updated: { type: 'boolean', const: true }, item: ref(s) })],
    ];
  }

  /** The fields a list can be sorted and filtered by: what a response shows (contract section 7). */
  private listableFields(resource: ResourceDefinition): [string, JsonObject][] {
    const fields: [string, JsonObject][] = [['id', { type: 'integer', minimum: 1, maximum: MAX_ID }]];
    for (const [name, field] of Object.entries(resource.fields)) {
      if (!field.writeOnly) fields.push([name, querySchema(field)]);
    }
    fields.push(['created_at', { type: 'string' }], ['updated_at', { type: 'string' }]);
    return fields;
  }

  private listParameters(resource: ResourceDefinition): JsonObject[] {
    const t = this.t;
    const fields = this.listableFields(resource);
    const key = `-?(${fields.map(([name]) => name).join('|')})`;
    const parameters: JsonObject[] = [
      parameterRef('Limit'),
      parameterRef('Offset'),
      { name: 'sort', in: 'query', description: t.sort, schema: { type: 'string', pattern: `^${key}(,${key}){0,${SORT_KEYS_MAX - 1}}$`, default: '-id' } },
      parameterRef('Search'),
    ];
    if (resource.deletion.mode === 'soft') parameters.push(parameterRef('IncludeDeleted'));
    for (const [name, schema] of fields) parameters.push({ name, in: 'query', description: t.filter(name), schema });
    return parameters;
  }

  private resourcePaths(resource: ResourceDefinition): [string, JsonObject][] {
    const t = this.t;
    const s = resource.schemaName;
    const plural = pascalPlural(resource);
    const tags = [resource.name];
    const description = resource.description[this.language];
    const body = (suffix: string): JsonObject => ({
      required: true,
      content: { 'application/json': { schema: ref(`${s}${suffix}`), example: resource.example } },
    });
    const etag = { ETag: { $ref: '#/components/headers/ETag' } };
    const updated = { description: t.updated, headers: etag, content: json(ref(`${s}Updated`)) };

    const deletion = resource.deletion;
    const users = referencesTo(resource).map((reference) => reference.resource.name);
    const guarded = deletion.mode === 'hard' && deletion.guarded !== undefined;
    const deleteNotes = [
      deletion.mode === 'soft' ? t.removeSoft : t.removeHard,
      ...(guarded ? [t.removeGuarded] : []),
      ...(users.length > 0 ? [t.removeReferenced(users.join(', '))] : []),
      t.removeIfMatch,
    ];
    const deleteErrors: ErrorName[] = [...ALWAYS, ...WRITE_ACCESS, 'PreconditionFailed', 'BadQuery'];
    if (guarded || users.length > 0) deleteErrors.push('DeleteConflict');

    return [
      [
        `/{lang}/api/config/${resource.name}`,
        {
          parameters: [parameterRef('Lang')],
          get: {
            operationId: `list${plural}`,
            tags,
            summary: t.list(resource.name),
            description: t.listDescription(description),
            parameters: this.listParameters(resource),
            responses: { '200': { description: t.listed, content: json(ref(`${s}List`)) }, ...errors(...ALWAYS, ...READ_ACCESS, 'BadQuery') },
          },
          post: {
            operationId: `create${s}`,
            tags,
            summary: t.create(resource.name),
            description: t.createDescription(description),
            requestBody: body('Create'),
            responses: {
              '201': {
                description: t.created,
                headers: { Location: { $ref: '#/components/headers/Location' }, ...etag },
                content: json(ref(`${s}Created`)),
              },
              ...errors(...ALWAYS, ...WRITE_ACCESS, ...BODY_ERRORS),
            },
          },
        },
      ],
      [
        `/{lang}/api/config/${resource.name}/{id}`,
        {
          parameters: [parameterRef('Lang'), parameterRef('Id')],
          get: {
            operationId: `get${s}`,
            tags,
            summary: t.read(resource.name),
            description: t.readDescription(description),
            parameters: [parameterRef('IfNoneMatch')],
            responses: {
              '200': { description: t.entry, headers: etag, content: json(ref(`${s}Item`)) },
              '304': { $ref: '#/components/responses/NotModified' },
              ...errors(...ALWAYS, ...READ_ACCESS, 'BadQuery'),
            },
          },
          put: {
            operationId: `replace${s}`,
            tags,
            summary: t.replace(resource.name),
            description: t.replaceDescription,
            parameters: [parameterRef('IfMatch')],
            requestBody: body('Replace'),
            responses: { '200': updated, ...errors(...ALWAYS, ...WRITE_ACCESS, ...BODY_ERRORS, 'PreconditionFailed') },
          },
          patch: {
            operationId: `update${s}`,
            tags,
            summary: t.update(resource.name),
            description: t.updateDescription,
            parameters: [parameterRef('IfMatch')],
            requestBody: body('Patch'),
            responses: { '200': updated, ...errors(...ALWAYS, ...WRITE_ACCESS, ...BODY_ERRORS, 'PreconditionFailed') },
          },
          delete: {
            operationId: `delete${s}`,
            tags,
            summary: t.remove(resource.name),
            description: deleteNotes.join(' '),
            parameters: [parameterRef('IfMatch')],
            responses: { '200': { description: t.deleted, content: json(ref('Deleted')) }, ...errors(...deleteErrors) },
          },
        },
      ],
    ];
  }

  private documentationPaths(): [string, JsonObject][] {
    const t = this.t;
    const tags = ['documentation'];
    // Public whatever the access settings: a client needs the document to learn how to log in.
    const security: JsonObject[] = [];
    const documentSchema = { type: 'object', description: t.documentBody };
    return [
      [
        '/{lang}/api/openApi',
        {
          parameters: [parameterRef('Lang')],
          get: {
            operationId: 'getOpenApiDocument',
            tags,
            summary: t.openApi,
            description: t.openApiDescription,
            security,
            parameters: [{ name: 'format', in: 'query', description: t.format, schema: { type: 'string', enum: ['json', 'yaml'], default: 'json' } }],
            responses: {
              '200': { description: t.document, content: { 'application/json': { schema: documentSchema }, 'application/yaml': { schema: documentSchema } } },
              ...errors(...ALWAYS, 'BadQuery'),
            },
          },
        },
      ],
      [
        '/{lang}/api/docs',
        {
          parameters: [parameterRef('Lang')],
          get: {
            operationId: 'getDocumentationPage',
            tags,
            summary: t.docs,
            description: t.docsDescription,
            security,
            responses: { '200': { description: t.docsPage, content: { 'text/html': { schema: { type: 'string' } } } }, ...errors(...ALWAYS) },
          },
        },
      ],
      [
        '/{lang}/api/docs/{asset}',
        {
          parameters: [parameterRef('Lang'), { name: 'asset', in: 'path', required: true, description: t.asset, schema: { type: 'string', enum: [...DOCS_ASSET_NAMES] } }],
          get: {
            operationId: 'getDocumentationAsset',
            tags,
            summary: t.docsAsset,
            description: t.docsAssetDescription,
            security,
            responses: {
              '200': {
                description: t.assetFile,
                content: {
                  'text/javascript': { schema: { type: 'string' } },
                  'text/css': { schema: { type: 'string' } },
                  'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } },
                },
              },
              ...errors(...ALWAYS),
            },
          },
        },
      ],
    ];
  }

  /** /healthz, /readyz and /metrics: no language; the probes never need a token, metrics do. */
  private operationsPaths(): [string, JsonObject][] {
    const t = this.t;
    const probe = (operationId: string, summary: string, description: string, ok: JsonObject, failures: ErrorName[]): JsonObject => ({
      get: {
        operationId,
        tags: ['operations'],
        summary,
        description,
        ...(failures.includes('Unauthorized') ? {} : { security: [] }),
        responses: { '200': ok, ...errors('MethodNotAllowed', 'InternalError', ...failures) },
      },
    });
    return [
      ['/healthz', probe('getLiveness', t.healthz, t.healthzDescription, { description: t.alive, content: json(ref('Health')) }, [])],
      ['/readyz', probe('getReadiness', t.readyz, t.readyzDescription, { description: t.ready, content: json(ref('Readiness')) }, ['Unavailable'])],
      [
        '/metrics',
        probe('getMetrics', t.metrics, t.metricsDescription, { description: t.metricsText, content: { 'text/plain': { schema: { type: 'string' } } } }, [
          'Unavailable',
          ...READ_ACCESS,
        ]),
      ],
    ];
  }
}

/** The registry's request example as the service would show it: defaults filled in, no secret. */
function entryExample(resource: ResourceDefinition): JsonObject {
  const example: JsonObject = { id: 1 };
  for (const [name, field] of Object.entries(resource.fields)) {
    if (field.writeOnly) continue;
    if (name in resource.example) example[name] = resource.example[name];
    else if ('default' in field) example[name] = field.default;
  }
  return { ...example, created_at: '2025-01-31T08:30:00.000Z', updated_at: '2025-01-31T08:30:00.000Z' };
}

/** A query parameter holds text: a field's schema as a filter value, null left out. */
function querySchema(field: FieldDefinition): JsonObject {
  const schema = plain(field.type.output);
  const members = (schema.anyOf as JsonObject[] | undefined)?.filter((member) => member.type !== 'null');
  if (members === undefined) return schema;
  if (members.length === 1) return members[0]!;
  // A choice of constants reads better as an enum in the documentation page.
  if (members.every((member) => 'const' in member && member.type === members[0]!.type)) {
    return { type: members[0]!.type, enum: members.map((member) => member.const) };
  }
  return { ...schema, anyOf: members };
}

/** One document per language (`fr` or `en`); both are built once, at start-up. */
export function buildOpenApiDocument(version: string, language: MessageLanguage = 'en'): JsonObject {
  return new DocumentBuilder(version, language).build();
}
