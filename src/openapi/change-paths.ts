// The change log's part of the document (contract section 13): `/changes`, its Server-Sent
// Events stream `/changes/stream`, the history of one entry, and their schemas.
//
// The history is documented per resource (`/{lang}/api/config/tags/{id}/history`, …), not as
// one path with a `{resource}` enum, because every resource path is: each resource has its own
// paths, operation ids and schemas (resource-paths.ts; `…/restore` exists only where deletes
// are soft), so a client's types name the entry it reads. Here that gives each history its
// own record schema, `{Schema}ChangeRecord`, whose `before` and `after` are the resource's own
// entry schema (strict: a write-only field in a record breaks the document), whose `action`
// has `restore` only where deletes are soft, and whose `secrets_changed` names only the
// resource's write-only fields.
//
// `/changes` and the stream mix resources, and keep the records of a resource that the
// registry no longer has, under its name: their ChangeRecord has a generic entry (any object)
// and `resource` a string; the record's `resource` says which entry schema applies.
import { MAX_ID, timestamp } from '../registry/field-types.js';
import type { ResourceDefinition } from '../registry/resource-definition.js';
import { CHANGE_ACTIONS } from '../store/change-log.js';
import { CHANGES_LIMIT_DEFAULT, CHANGES_LIMIT_MAX, HISTORY_OFFSET_MAX, SINCE_MAX, changeResources } from '../pipeline/parse-change-query.js';
import { REQUEST_ID_PATTERN } from '../pipeline/request-id.js';
import { changeTexts } from './change-texts.js';
import { headerRef, json, parameterRef, plain, ref, type DocumentContext, type JsonObject } from './document-parts.js';
import { ACCESS, ALWAYS, errors } from './error-responses.js';
import { entryExample } from './resource-schemas.js';

export const CHANGES_TAG = 'changes';
export const CHANGES_PATH = '/{lang}/api/changes';
/** Served by GET only: a stream has no end for a HEAD to report (the route allows GET and OPTIONS). */
export const CHANGE_STREAM_PATH = '/{lang}/api/changes/stream';

// What the stream's body is made of: comment lines, and one `change` event per record, its data
// one line of JSON (src/store/change-feed.ts, eventOf).
const EVENT_STREAM_PATTERN = '^(:[^\\n]*\\n\\n|id: [1-9][0-9]*\\nevent: change\\ndata: \\{[^\\n]*\\}\\n\\n)*$';
const EXAMPLE_TIME = '2026-11-22T10:00:00.000Z';
const EXAMPLE_REQUEST_ID = '5b0c2f7e-3f4a-4a8e-9a43-2d9c1b7e6f10';

const object = (properties: JsonObject): JsonObject => ({ type: 'object', required: Object.keys(properties), additionalProperties: false, properties });
const idSchema = { type: 'integer', minimum: 1, maximum: MAX_ID };

export function changesTag(context: DocumentContext): JsonObject {
  return { name: CHANGES_TAG, description: changeTexts(context.language).changesTag };
}

/** A record: the same fields for every resource; `entry`, `resource`, `actions` and `secrets`
 * are what a resource of the registry makes exact. */
function recordSchema(context: DocumentContext, entry: JsonObject, resource: JsonObject, actions: readonly string[], secrets: JsonObject): JsonObject {
  const c = changeTexts(context.language);
  return {
    ...object({
      id: { type: 'integer', minimum: 1, description: c.id },
      at: plain(timestamp().output, { description: c.at }),
      action: { type: 'string', enum: [...actions], description: c.actionField },
      resource: { ...resource, description: c.resourceField },
      entry_id: { ...idSchema, description: c.entryIdField },
      actor: { type: 'string', minLength: 1, maxLength: 64, description: c.actorField },
      request_id: { type: 'string', pattern: REQUEST_ID_PATTERN, description: c.requestId },
      before: { anyOf: [entry, { type: 'null' }], description: c.before },
      after: { anyOf: [entry, { type: 'null' }], description: c.after },
      secrets_changed: { type: 'array', uniqueItems: true, items: secrets, description: c.secretsChanged },
    }),
    description: c.record,
  };
}

/** The record of a resource's history: its own entry schema, actions and write-only fields. */
function resourceRecordSchema(context: DocumentContext, resource: ResourceDefinition): JsonObject {
  const secrets = Object.entries(resource.fields)
    .filter(([, field]) => field.writeOnly === true)
    .map(([name]) => name);
  const actions = CHANGE_ACTIONS.filter((action) => action !== 'restore' || resource.deletion.mode === 'soft');
  const schema = recordSchema(context, ref(resource.schemaName), { type: 'string', const: resource.name }, actions, { type: 'string', enum: secrets }) as {
    properties: Record<string, JsonObject>;
  };
  // No write-only field: the list is always empty (an empty enum is not valid JSON Schema).
  if (secrets.length === 0) schema.properties.secrets_changed = { type: 'array', maxItems: 0, items: { type: 'string' }, description: changeTexts(context.language).secretsChanged };
  return schema;
}

/** A record as `/changes` and the stream show it, made from the first resource's example. */
function recordExample(context: DocumentContext): JsonObject {
  const resource = context.registry.resources[0]!;
  return {
    id: 41,
    at: EXAMPLE_TIME,
    action: 'create',
    resource: resource.name,
    entry_id: 1,
    actor: 'deploy-bot',
    request_id: EXAMPLE_REQUEST_ID,
    before: null,
    after: { ...entryExample(resource), created_at: EXAMPLE_TIME, updated_at: EXAMPLE_TIME },
    secrets_changed: [],
  };
}

function historySchema(context: DocumentContext, record: JsonObject): JsonObject {
  const c = changeTexts(context.language);
  return object({
    items: { type: 'array', items: record },
    total: { type: 'integer', minimum: 0, description: c.total },
    limit: { type: 'integer', minimum: 1, maximum: CHANGES_LIMIT_MAX },
    offset: { type: 'integer', minimum: 0, maximum: HISTORY_OFFSET_MAX },
  });
}

/** ChangeRecord and ChangeList (`/changes`, the stream), and each resource's history schemas. */
export function changeSchemas(context: DocumentContext): [string, JsonObject][] {
  const c = changeTexts(context.language);
  const entry = { type: 'object', additionalProperties: true, description: c.snapshot };
  const record = { ...recordSchema(context, entry, { type: 'string', minLength: 1 }, CHANGE_ACTIONS, { type: 'string' }), examples: [recordExample(context)] };
  return [
    ['ChangeRecord', record],
    ['ChangeList', object({ items: { type: 'array', maxItems: CHANGES_LIMIT_MAX, items: ref('ChangeRecord') }, next: { type: 'integer', minimum: 0, description: c.next } })],
    ...context.registry.resources.flatMap((resource): [string, JsonObject][] => [
      [`${resource.schemaName}ChangeRecord`, resourceRecordSchema(context, resource)],
      [`${resource.schemaName}ChangeHistory`, historySchema(context, ref(`${resource.schemaName}ChangeRecord`))],
    ]),
  ];
}

/** The query of `/changes` and of the stream (which has no limit). */
function filterParameters(context: DocumentContext): JsonObject[] {
  const c = changeTexts(context.language);
  return [
    { name: 'since', in: 'query', description: c.since, schema: { type: 'integer', minimum: 0, maximum: SINCE_MAX, default: 0 } },
    { name: 'resource', in: 'query', description: c.resource, schema: { type: 'string', enum: changeResources(context.registry) } },
    { name: 'entry_id', in: 'query', description: c.entryId, schema: idSchema },
    { name: 'actor', in: 'query', description: c.actor, schema: { type: 'string', minLength: 1, maxLength: 64 } },
    { name: 'action', in: 'query', description: c.action, schema: { type: 'string', enum: [...CHANGE_ACTIONS] } },
  ];
}

function limitParameter(context: DocumentContext): JsonObject {
  return { name: 'limit', in: 'query', description: changeTexts(context.language).limit, schema: { type: 'integer', minimum: 1, maximum: CHANGES_LIMIT_MAX, default: CHANGES_LIMIT_DEFAULT } };
}

/** `/{lang}/api/config/{resource}/{id}/history` of one resource (resource-paths.ts adds it to the resource's paths). */
export function historyPath(context: DocumentContext, resource: ResourceDefinition, operationId: string): [string, JsonObject] {
  const c = changeTexts(context.language);
  return [
    `/{lang}/api/config/${resource.name}/{id}/history`,
    {
      parameters: [parameterRef('Lang'), parameterRef('Id')],
      get: {
        operationId,
        tags: [resource.name],
        summary: c.history(resource.name),
        description: c.historyDescription,
        parameters: [
          limitParameter(context),
          { name: 'offset', in: 'query', description: c.offset, schema: { type: 'integer', minimum: 0, maximum: HISTORY_OFFSET_MAX, default: 0 } },
        ],
        responses: {
          '200': { description: c.historyListed, content: json(ref(`${resource.schemaName}ChangeHistory`)) },
          ...errors(...ALWAYS, ...ACCESS, 'BadQuery'),
        },
      },
    },
  ];
}

export function changePaths(context: DocumentContext): [string, JsonObject][] {
  const c = changeTexts(context.language);
  const tags = [CHANGES_TAG];
  const example = recordExample(context);
  const events = `: change stream open\n\nid: ${String(example.id)}\nevent: change\ndata: ${JSON.stringify(example)}\n\n: keep-alive\n\n`;
  return [
    [
      CHANGES_PATH,
      {
        parameters: [parameterRef('Lang')],
        get: {
          operationId: 'listChanges',
          tags,
          summary: c.list,
          description: c.listDescription,
          parameters: [...filterParameters(context), limitParameter(context)],
          responses: { '200': { description: c.listed, content: json(ref('ChangeList')) }, ...errors(...ALWAYS, ...ACCESS, 'BadQuery') },
        },
      },
    ],
    [
      CHANGE_STREAM_PATH,
      {
        parameters: [parameterRef('Lang')],
        get: {
          operationId: 'streamChanges',
          tags,
          summary: c.stream,
          description: c.streamDescription,
          parameters: [
            ...filterParameters(context),
            { name: 'Last-Event-ID', in: 'header', description: c.lastEventId, schema: { type: 'integer', minimum: 0, maximum: SINCE_MAX } },
          ],
          responses: {
            '200': {
              description: c.streamed,
              headers: { 'Cache-Control': headerRef('NoStore') },
              content: { 'text/event-stream': { schema: { type: 'string', pattern: EVENT_STREAM_PATTERN, description: c.streamBody }, example: events } },
            },
            // Its 429 also says when a token or an address holds too many streams.
            ...errors(...ALWAYS, ...ACCESS.filter((name) => name !== 'RateLimited'), 'StreamLimited', 'BadQuery'),
          },
        },
      },
    ],
  ];
}

/** The headers of the stream's answer (components.headers). */
export function changeHeaders(context: DocumentContext): JsonObject {
  return { NoStore: { description: changeTexts(context.language).cacheControl, required: true, schema: { type: 'string', const: 'no-store' } } };
}
