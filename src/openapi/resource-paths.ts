// The two paths of one resource, `/{lang}/api/config/{resource}` and `…/{id}`, with every
// operation, parameter and response they serve.
import { SORT_KEYS_MAX } from '../pipeline/parse-list-query.js';
import { shownFields } from '../registry/managed-fields.js';
import type { ResourceDefinition } from '../registry/resource-definition.js';
import { json, parameterRef, ref, type DocumentContext, type JsonObject } from './document-parts.js';
import { ALWAYS, BODY_ERRORS, ACCESS, errors, type ErrorName } from './error-responses.js';
import { querySchema } from './resource-schemas.js';

/** `Tags` for tags, `StorageAreas` for storage-areas: operation ids read as English. */
function pascalPlural(resource: ResourceDefinition): string {
  return resource.name.replace(/(^|-)([a-z])/g, (_whole, _dash: string, letter: string) => letter.toUpperCase());
}

/** Sort keys and filters: every field a response shows (contract section 7). */
export function listParameters(context: DocumentContext, resource: ResourceDefinition): JsonObject[] {
  const t = context.t;
  const fields = shownFields(resource).map(([name, field]) => [name, querySchema(field)] as const);
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

function deleteDescription(context: DocumentContext, resource: ResourceDefinition, users: readonly string[], guarded: boolean): string {
  const t = context.t;
  return [
    resource.deletion.mode === 'soft' ? t.removeSoft : t.removeHard,
    ...(guarded ? [t.removeGuarded] : []),
    ...(users.length > 0 ? [t.removeReferenced(users.join(', '))] : []),
    t.removeIfMatch,
  ].join(' ');
}

export function resourcePaths(context: DocumentContext, resource: ResourceDefinition): [string, JsonObject][] {
  const t = context.t;
  const s = resource.schemaName;
  const plural = pascalPlural(resource);
  const tags = [resource.name];
  const description = resource.description[context.language];
  const body = (suffix: string): JsonObject => ({
    required: true,
    content: { 'application/json': { schema: ref(`${s}${suffix}`), example: resource.example } },
  });
  const etag = { ETag: { $ref: '#/components/headers/ETag' } };
  const updated = { description: t.updated, headers: etag, content: json(ref(`${s}Updated`)) };

  const users = context.registry.referencesTo(resource).map((reference) => reference.resource.name);
  const guarded = resource.deletion.mode === 'hard' && resource.deletion.guarded !== undefined;
  const deleteErrors: ErrorName[] = [...ALWAYS, ...ACCESS, 'PreconditionFailed', 'BadQuery'];
  if (guarded || users.length > 0) deleteErrors.push('DeleteConflict');
  const change = (operationId: string, summary: string, operationDescription: string, suffix: string): JsonObject => ({
    operationId,
    tags,
    summary,
    description: operationDescription,
    parameters: [parameterRef('IfMatch')],
    requestBody: body(suffix),
    responses: { '200': updated, ...errors(...ALWAYS, ...ACCESS, ...BODY_ERRORS, 'PreconditionFailed') },
  });

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
          parameters: listParameters(context, resource),
          responses: { '200': { description: t.listed, content: json(ref(`${s}List`)) }, ...errors(...ALWAYS, ...ACCESS, 'BadQuery') },
        },
        post: {
          operationId: `create${s}`,
          tags,
          summary: t.create(resource.name),
          description: t.createDescription(description),
          requestBody: body('Create'),
          responses: {
            '201': { description: t.created, headers: { Location: { $ref: '#/components/headers/Location' }, ...etag }, content: json(ref(`${s}Created`)) },
            ...errors(...ALWAYS, ...ACCESS, ...BODY_ERRORS),
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
            ...errors(...ALWAYS, ...ACCESS, 'BadQuery'),
          },
        },
        put: change(`replace${s}`, t.replace(resource.name), t.replaceDescription, 'Replace'),
        patch: change(`update${s}`, t.update(resource.name), t.updateDescription, 'Patch'),
        delete: {
          operationId: `delete${s}`,
          tags,
          summary: t.remove(resource.name),
          description: deleteDescription(context, resource, users, guarded),
          parameters: [parameterRef('IfMatch')],
          responses: { '200': { description: t.deleted, content: json(ref('Deleted')) }, ...errors(...deleteErrors) },
        },
      },
    ],
  ];
}
