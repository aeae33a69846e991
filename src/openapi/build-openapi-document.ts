// The OpenAPI 3.1 document, generated from the registry: the same TypeBox schemas that
// validate requests describe them here, so the document cannot drift from the service.
// Every response the test suite provokes is checked against this document
// (test/support/openapi-response-checker.ts), so what it promises is what the service does.
// Its parts: resource-schemas.ts and resource-paths.ts (one resource), token-paths.ts (the API
// tokens), change-paths.ts (the change log, its stream, each entry's history),
// integration-paths.ts (Prometheus service discovery, the Ansible inventory),
// error-responses.ts, service-paths.ts (the document, the docs page, the probes).
import type { MessageLanguage } from '../messages/languages.js';
import { PLATFORM_LANGUAGES } from '../messages/languages.js';
import { LIMIT_DEFAULT, LIMIT_MAX, OFFSET_MAX, SEARCH_MAX } from '../pipeline/parse-list-query.js';
import { MAX_ID } from '../registry/field-types.js';
import type { Registry } from '../registry/registry.js';
import { CHANGE_STREAM_PATH, changeHeaders, changePaths, changeSchemas, changesTag } from './change-paths.js';
import { ref, type DocumentContext, type JsonObject } from './document-parts.js';
import { documentTexts, type DocumentTexts } from './document-texts.js';
import { errorResponses, problemSchema } from './error-responses.js';
import { addImplicitOperations } from './implicit-operations.js';
import { integrationPaths, integrationSchemas, integrationsTag } from './integration-paths.js';
import { configurationTag, exportPaths, exportSchemas } from './export-paths.js';
import { applyPaths, applySchemas } from './apply-paths.js';
import { resourcePaths } from './resource-paths.js';
import { resourceSchemas } from './resource-schemas.js';
import { documentationPaths, probePaths } from './service-paths.js';
import { consolePaths } from './console-paths.js';
import { tokenPaths, tokenSchemas, tokenTag } from './token-paths.js';
import { webhookPaths, webhookSchemas, webhookTag } from './webhook-paths.js';
import { tokenTexts } from './token-texts.js';

function sharedParameters(context: DocumentContext): JsonObject {
  const t = context.t;
  return {
    Lang: {
      name: 'lang',
      in: 'path',
      required: true,
      description: t.lang,
      // The language of this document, so that "Try it out" answers in the reader's language.
      schema: { type: 'string', enum: [...PLATFORM_LANGUAGES], default: context.language },
      example: context.language,
    },
    Id: { name: 'id', in: 'path', required: true, description: t.id, schema: { type: 'integer', minimum: 1, maximum: MAX_ID }, example: 1 },
    Limit: { name: 'limit', in: 'query', description: t.limit, schema: { type: 'integer', minimum: 1, maximum: LIMIT_MAX, default: LIMIT_DEFAULT } },
    Offset: { name: 'offset', in: 'query', description: t.offset, schema: { type: 'integer', minimum: 0, maximum: OFFSET_MAX, default: 0 } },
    Search: { name: 'q', in: 'query', description: t.q, schema: { type: 'string', minLength: 1, maxLength: SEARCH_MAX } },
    IncludeDeleted: { name: 'include_deleted', in: 'query', description: t.includeDeleted, schema: { type: 'boolean', default: false } },
    DryRun: { name: 'dry_run', in: 'query', description: t.dryRun, schema: { type: 'boolean', default: false } },
    IfMatch: { name: 'If-Match', in: 'header', description: t.ifMatch, schema: { type: 'string' } },
    IfNoneMatch: { name: 'If-None-Match', in: 'header', description: t.ifNoneMatch, schema: { type: 'string' } },
    IfNoneMatchList: { name: 'If-None-Match', in: 'header', description: t.ifNoneMatchList, schema: { type: 'string' } },
  };
}

function sharedHeaders(context: DocumentContext): JsonObject {
  const t = context.t;
  return {
    ...changeHeaders(context),
    ETag: { description: t.etag, required: true, schema: { type: 'string', pattern: '^(W/)?"[^"]*"$' } },
    // A create of one entry that is not a dry run has these; a bulk create or a dry run not.
    Location: { description: t.location, schema: { type: 'string', format: 'uri-reference' } },
    ETagOfList: { description: t.etagOfList, required: true, schema: { type: 'string', pattern: '^(W/)?"[^"]*"$' } },
    ETagOfOne: { description: t.etag, schema: { type: 'string', pattern: '^(W/)?"[^"]*"$' } },
    DryRun: { description: t.dryRunHeader, schema: { type: 'string', const: 'true' } },
    Allow: { description: t.allow, required: true, schema: { type: 'string' } },
    WWWAuthenticate: { description: t.wwwAuthenticate, required: true, schema: { type: 'string' } },
    RetryAfter: { description: t.retryAfter, required: true, schema: { type: 'integer', minimum: 0 } },
    RetryAfterBusy: { description: t.retryAfterBusy, required: false, schema: { type: 'integer', minimum: 0 } },
  };
}

/** One document per language (`fr` or `en`); the service builds both once, at start-up. */
export function buildOpenApiDocument(registry: Registry, version: string, language: MessageLanguage = 'en'): JsonObject {
  const t = documentTexts(language);
  const context: DocumentContext = { t, language, registry };
  const { resources } = registry;
  const document = {
    openapi: '3.1.0',
    info: { title: t.title, version, description: t.info(resources.map((resource) => resource.name).join(', ')) },
    servers: [{ url: '/', description: t.server }],
    // Anonymous access or a bearer token: which one applies depends on how the service is run.
    security: [{}, { bearerAuth: [] }],
    tags: [
      ...resources.map((resource) => ({ name: resource.name, description: resource.description[language] })),
      tokenTag(context),
      webhookTag(context),
      changesTag(context),
      integrationsTag(context),
      configurationTag(context),
      { name: 'documentation', description: t.documentationTag },
      { name: 'probes', description: t.probesTag },
    ],
    paths: Object.fromEntries([
      ...resources.flatMap((resource) => resourcePaths(context, resource)),
      ...tokenPaths(context),
      ...webhookPaths(context),
      ...changePaths(context),
      ...integrationPaths(context),
      ...exportPaths(context),
      ...applyPaths(context),
      ...documentationPaths(context),
      ...consolePaths(context),
      ...probePaths(context),
    ]),
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: tokenTexts(language).bearer } },
      parameters: sharedParameters(context),
      headers: sharedHeaders(context),
      schemas: {
        ...Object.fromEntries(resources.flatMap((resource) => resourceSchemas(context, resource))),
        ...Object.fromEntries(tokenSchemas(context)),
        ...Object.fromEntries(webhookSchemas(context)),
        ...Object.fromEntries(changeSchemas(context)),
        ...Object.fromEntries(integrationSchemas(context)),
        ...Object.fromEntries(exportSchemas(context)),
        ...Object.fromEntries(applySchemas(context)),
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
        Problem: problemSchema(t),
        Health: {
          type: 'object',
          required: ['status', 'uptimeSeconds'],
          properties: { status: { type: 'string', const: 'ok' }, uptimeSeconds: { type: 'integer', minimum: 0 } },
        },
        Readiness: {
          type: 'object',
          required: ['status'],
          properties: { status: { type: 'string', const: 'ready' }, readOnly: { type: 'boolean', const: true, description: t.readOnlyReady }, disk: ref('DiskSpace') },
        },
        DiskSpace: {
          type: 'object',
          description: t.diskSpace,
          required: ['freeBytes', 'totalBytes', 'level'],
          additionalProperties: false,
          properties: {
            freeBytes: { type: 'integer', minimum: 0 },
            totalBytes: { type: 'integer', minimum: 0 },
            level: { type: 'string', enum: ['ok', 'low', 'flood'] },
          },
        },
      },
      responses: {
        NotModified: { description: t.notModified, headers: { ETag: { $ref: '#/components/headers/ETag' } } },
        ListNotModified: { description: t.listNotModified, headers: { ETag: { $ref: '#/components/headers/ETagOfList' } } },
        ...errorResponses(context),
      },
    },
  };
  addImplicitOperations(document, t, new Set([CHANGE_STREAM_PATH]));
  return document;
}
