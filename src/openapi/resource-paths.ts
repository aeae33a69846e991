// The paths of one resource, `/{lang}/api/config/{resource}`, `…/{id}`, `…/{id}/restore` where
// deletes are soft and `…/{id}/history` (change-paths.ts), with every operation, parameter and
// response they serve.
import { SORT_KEYS_MAX } from '../pipeline/parse-list-query.js';
import { BULK_MAX } from '../pipeline/parse-request.js';
import type { CompiledResource } from '../registry/compiled-resource.js';
import { MAX_ID } from '../registry/field-types.js';
import { headerRef, json, parameterRef, ref, type DocumentContext, type JsonObject } from './document-parts.js';
import { historyPath } from './change-paths.js';
import { ALWAYS, BODY_ERRORS, ACCESS, STORAGE_ERRORS, errors, type ErrorName } from './error-responses.js';
import { querySchema } from './resource-schemas.js';

/** `Tags` for tags, `StorageAreas` for storage-areas: operation ids read as English. */
function pascalPlural(resource: CompiledResource): string {
  return resource.name.replace(/(^|-)([a-z])/g, (_whole, _dash: string, letter: string) => letter.toUpperCase());
}

/** Sort keys and filters: every field a response shows (contract section 7). */
export function listParameters(context: DocumentContext, resource: CompiledResource): JsonObject[] {
  const t = context.t;
  const fields = resource.shownFields
    .filter(([, field]) => field.link === undefined)
    .map(([name, field]) => [name, querySchema(field)] as const);
  const key = `-?(${fields.map(([name]) => name).join('|')})`;
  const parameters: JsonObject[] = [
    parameterRef('Limit'),
    parameterRef('Offset'),
    { name: 'sort', in: 'query', description: t.sort, schema: { type: 'string', pattern: `^${key}(,${key}){0,${SORT_KEYS_MAX - 1}}$`, default: '-id' } },
    parameterRef('Search'),
    { name: 'after', in: 'query', description: t.after, schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,4000}$' } },
  ];
  if (resource.deletion.mode === 'soft') parameters.push(parameterRef('IncludeDeleted'));
  for (const [name, schema] of fields) parameters.push({ name, in: 'query', description: t.filter(name), schema });
  for (const [name, field] of Object.entries(resource.fields)) {
    if (field.link === undefined) continue;
    parameters.push({
      name: field.link.filter,
      in: 'query',
      description: t.linkFilter(name),
      schema: { type: 'array', items: { type: 'integer', minimum: 1, maximum: MAX_ID } },
      style: 'form',
      explode: true,
    });
  }
  return parameters;
}

/** One entry of a bulk PATCH: the id and the first field of the registry's example. */
function bulkPatchExample(resource: CompiledResource): JsonObject[] {
  const [name, value] = Object.entries(resource.example).find(([field]) => !resource.fields[field]?.readOnly) ?? [];
  return [name === undefined ? { id: 1 } : { id: 1, [name]: value }];
}

function deleteDescription(context: DocumentContext, resource: CompiledResource, users: readonly string[], holders: readonly string[], guarded: boolean): string {
  const t = context.t;
  return [
    resource.deletion.mode === 'soft' ? t.removeSoft : t.removeHard,
    ...(guarded ? [t.removeGuarded] : []),
    ...(users.length > 0 ? [t.removeReferenced(users.join(', '))] : []),
    ...(holders.length > 0 ? [t.removeDetached(holders.join(', '))] : []),
    t.removeIfMatch,
  ].join(' ');
}

export function resourcePaths(context: DocumentContext, resource: CompiledResource): [string, JsonObject][] {
  const t = context.t;
  const s = resource.schemaName;
  const plural = pascalPlural(resource);
  const tags = [resource.name];
  const description = resource.description[context.language];
  const body = (suffix: string): JsonObject => ({
    required: true,
    content: { 'application/json': { schema: ref(`${s}${suffix}`), example: resource.example } },
  });
  const etag = { ETag: headerRef('ETag') };
  const dryRun = { 'Dry-Run': headerRef('DryRun') };
  const updated = { description: t.updated, headers: { ...etag, ...dryRun }, content: json(ref(`${s}Updated`)) };
  const entries = (items: JsonObject): JsonObject => ({ type: 'array', minItems: 1, maxItems: BULK_MAX, items });

  // A set of ids (a link table) lets go of a deleted entry; only a plain reference blocks its delete.
  const references = context.registry.referencesTo(resource);
  const users = references.filter((reference) => reference.link === undefined).map((reference) => reference.resource.name);
  const holders = references.filter((reference) => reference.link !== undefined).map((reference) => `${reference.resource.name}.${reference.field}`);
  const guarded = resource.deletion.mode === 'hard' && resource.deletion.guarded !== undefined;
  const deleteErrors: ErrorName[] = [...ALWAYS, ...ACCESS, ...STORAGE_ERRORS, 'PreconditionFailed', 'BadQuery'];
  if (guarded || users.length > 0) deleteErrors.push('DeleteConflict');
  const change = (operationId: string, summary: string, operationDescription: string, suffix: string): JsonObject => ({
    operationId,
    tags,
    summary,
    description: operationDescription,
    parameters: [parameterRef('IfMatch'), parameterRef('DryRun')],
    requestBody: body(suffix),
    responses: { '200': updated, ...errors(...ALWAYS, ...ACCESS, ...BODY_ERRORS, ...STORAGE_ERRORS, 'PreconditionFailed') },
  });
  const restorePath: [string, JsonObject][] =
    resource.deletion.mode !== 'soft'
      ? []
      : [
          [
            `/{lang}/api/config/${resource.name}/{id}/restore`,
            {
              parameters: [parameterRef('Lang'), parameterRef('Id')],
              post: {
                operationId: `restore${s}`,
                tags,
                summary: t.restore(resource.name),
                description: t.restoreDescription,
                parameters: [parameterRef('IfMatch'), parameterRef('DryRun')],
                responses: {
                  '200': { description: t.restored, headers: { ...etag, ...dryRun }, content: json(ref(`${s}Restored`)) },
                  ...errors(...ALWAYS, ...ACCESS, ...STORAGE_ERRORS, 'MalformedJson', 'ValidationFailed', 'WriteConflict', 'PreconditionFailed'),
                },
              },
            },
          ],
        ];

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
          parameters: [...listParameters(context, resource), parameterRef('IfNoneMatchList')],
          responses: {
            '200': { description: t.listed, headers: { ETag: headerRef('ETagOfList') }, content: json(ref(`${s}List`)) },
            '304': { $ref: '#/components/responses/ListNotModified' },
            ...errors(...ALWAYS, ...ACCESS, 'BadQuery'),
          },
        },
        post: {
          operationId: `create${s}`,
          tags,
          summary: t.bulkCreate(resource.name),
          description: `${t.createDescription(description)}\n\n${t.bulkCreateDescription}`,
          parameters: [parameterRef('DryRun')],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { oneOf: [ref(`${s}Create`), entries(ref(`${s}Create`))] }, example: resource.example } },
          },
          responses: {
            '201': {
              description: t.created,
              headers: { Location: headerRef('Location'), ETag: headerRef('ETagOfOne'), ...dryRun },
              content: json({ anyOf: [ref(`${s}Created`), ref(`${s}DryRunCreated`), ref(`${s}BulkCreated`)] }),
            },
            ...errors(...ALWAYS, ...ACCESS, ...BODY_ERRORS, ...STORAGE_ERRORS),
          },
        },
        patch: {
          operationId: `update${plural}`,
          tags,
          summary: t.bulkUpdate(resource.name),
          description: t.bulkUpdateDescription,
          parameters: [parameterRef('DryRun')],
          requestBody: { required: true, content: { 'application/json': { schema: entries(ref(`${s}BulkPatch`)), example: bulkPatchExample(resource) } } },
          responses: {
            '200': { description: t.bulkDone, headers: dryRun, content: json(ref(`${s}BulkUpdated`)) },
            ...errors(...ALWAYS, ...ACCESS, ...BODY_ERRORS, ...STORAGE_ERRORS),
          },
        },
        delete: {
          operationId: `delete${plural}`,
          tags,
          summary: t.bulkRemove(resource.name),
          description: t.bulkRemoveDescription,
          parameters: [
            { name: 'id', in: 'query', required: true, description: t.bulkIds, schema: { type: 'string', pattern: '^[1-9][0-9]{0,9}(,[1-9][0-9]{0,9}){0,999}$' } },
            parameterRef('DryRun'),
          ],
          responses: { '200': { description: t.bulkDone, headers: dryRun, content: json(ref(`${s}BulkDeleted`)) }, ...errors(...deleteErrors) },
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
            ...errors(...ALWAYS, ...ACCESS, 'BadQuery'),
          },
        },
        put: change(`replace${s}`, t.replace(resource.name), t.replaceDescription, 'Replace'),
        patch: change(`update${s}`, t.update(resource.name), t.updateDescription, 'Patch'),
        delete: {
          operationId: `delete${s}`,
          tags,
          summary: t.remove(resource.name),
          description: deleteDescription(context, resource, users, holders, guarded),
          parameters: [parameterRef('IfMatch'), parameterRef('DryRun')],
          responses: { '200': { description: t.deleted, headers: dryRun, content: json(ref('Deleted')) }, ...errors(...deleteErrors) },
        },
      },
    ],
    ...restorePath,
    // One history path per resource, as every other path of a resource (see change-paths.ts).
    historyPath(context, resource, `get${s}History`),
  ];
}
