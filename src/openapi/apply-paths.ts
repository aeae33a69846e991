// The apply's part of the document (contract section 18): POST /{lang}/api/apply, its
// configuration document (JSON or YAML) and its plan. The document's entries are made from the
// registry as the write bodies are, a reference written as its target's natural key.
import { MAX_ID } from '../registry/field-types.js';
import { isManaged } from '../registry/managed-fields.js';
import type { ResourceDefinition } from '../registry/resource-definition.js';
import { headerRef, json, parameterRef, plain, ref, type DocumentContext, type JsonObject } from './document-parts.js';
import { ACCESS, ALWAYS, errors, STORAGE_ERRORS } from './error-responses.js';
import { applyTexts } from './apply-texts.js';
import { CONFIGURATION_TAG } from './export-paths.js';

const YAML_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml'];
const ETAG_PATTERN = '^(W/)?"[^"]*"$';
const DOCUMENT_EXAMPLE = {
  version: 1,
  tags: [{ name: 'galera' }],
  clients: [{ libelle: 'ACME' }],
  servers: [{ ip: '192.0.2.20', port: 3306, hostname: 'db-01', id_client: 'ACME', id_environment: 'prod', tags: ['galera'] }],
};

function documentEntryName(resource: ResourceDefinition): string {
  return `Document${resource.schemaName}`;
}

/** An entry of the document: the resource's fields a request may set, references as text. */
function documentEntrySchema(context: DocumentContext, resource: ResourceDefinition): JsonObject {
  const c = applyTexts(context.language);
  const properties: JsonObject = {};
  for (const [name, field] of Object.entries(resource.fields)) {
    if (isManaged(resource, name)) continue;
    const description = field.description[context.language];
    const reference = field.type.references;
    if (reference === undefined) properties[name] = plain(field.type.input, { description, ...(field.writeOnly ? { writeOnly: true } : {}) });
    else if (reference.many) properties[name] = { type: 'array', items: { type: 'string' }, description: `${description} ${c.referenceByKey(reference.resource)}` };
    else properties[name] = { type: ['string', 'null'], description: `${description} ${c.referenceByKey(reference.resource)}` };
  }
  return { type: 'object', description: c.entry(resource.name, resource.naturalKey!.join(', ')), additionalProperties: false, properties };
}

export function applySchemas(context: DocumentContext): [string, JsonObject][] {
  const c = applyTexts(context.language);
  const resources = context.registry.dependencyOrder();
  const change = {
    type: 'object',
    required: ['action', 'resource', 'key', 'id'],
    additionalProperties: false,
    properties: {
      action: { type: 'string', enum: ['create', 'update', 'delete'] },
      resource: { type: 'string', enum: resources.map((resource) => resource.name) },
      key: { type: 'string', description: c.key },
      id: { type: ['integer', 'null'], minimum: 1, maximum: MAX_ID, description: c.id },
      fields: { type: 'object', description: c.fields, additionalProperties: { type: 'array', minItems: 2, maxItems: 2 } },
    },
  };
  const count = { type: 'integer', minimum: 0 };
  return [
    ...resources.map((resource): [string, JsonObject] => [documentEntryName(resource), documentEntrySchema(context, resource)]),
    [
      'ApplyDocument',
      {
        type: 'object',
        description: c.document,
        additionalProperties: false,
        properties: {
          version: { type: 'integer', const: 1 },
          change_id: { type: 'integer', minimum: 0, description: c.changeId },
          ...Object.fromEntries(resources.map((resource) => [resource.name, { type: 'array', items: ref(documentEntryName(resource)) }])),
        },
        examples: [DOCUMENT_EXAMPLE],
      },
    ],
    ['ApplyChange', change],
    [
      'ApplyPlan',
      {
        type: 'object',
        description: c.plan,
        required: ['change_id', 'counts', 'changes'],
        additionalProperties: false,
        properties: {
          change_id: { type: 'integer', minimum: 0, description: c.planChangeId },
          counts: { type: 'object', required: ['create', 'update', 'delete', 'unchanged'], additionalProperties: false, properties: { create: count, update: count, delete: count, unchanged: count } },
          changes: { type: 'array', items: ref('ApplyChange') },
        },
        examples: [
          {
            change_id: 42,
            counts: { create: 1, update: 1, delete: 0, unchanged: 12 },
            changes: [
              { action: 'create', resource: 'tags', key: 'galera', id: 8 },
              { action: 'update', resource: 'servers', key: '10.0.0.5:3306', id: 7, fields: { hostname: ['db-05', 'db-05.example'] } },
            ],
          },
        ],
      },
    ],
  ];
}

export function applyPaths(context: DocumentContext): [string, JsonObject][] {
  const c = applyTexts(context.language);
  const schema = ref('ApplyDocument');
  const resources = context.registry.dependencyOrder().map((resource) => resource.name);
  return [
    [
      '/{lang}/api/apply',
      {
        parameters: [parameterRef('Lang')],
        post: {
          operationId: 'applyConfiguration',
          tags: [CONFIGURATION_TAG],
          summary: c.summary,
          description: c.description,
          parameters: [
            { name: 'dry_run', in: 'query', description: c.dryRun, schema: { type: 'boolean' } },
            { name: 'prune', in: 'query', description: c.prune, style: 'form', explode: false, schema: { type: 'array', uniqueItems: true, items: { type: 'string', enum: resources } } },
            { name: 'If-Match', in: 'header', description: c.ifMatch, schema: { type: 'string' } },
          ],
          requestBody: {
            required: true,
            content: { 'application/json': { schema, example: DOCUMENT_EXAMPLE }, ...Object.fromEntries(YAML_TYPES.map((type) => [type, { schema, example: DOCUMENT_EXAMPLE }])) },
          },
          responses: {
            '200': {
              description: c.applied,
              headers: { ETag: { description: c.etag, required: true, schema: { type: 'string', pattern: ETAG_PATTERN } }, 'Dry-Run': headerRef('DryRun') },
              content: json(ref('ApplyPlan')),
            },
            ...errors(...ALWAYS, ...ACCESS, 'MalformedJson', 'PayloadTooLarge', 'UnsupportedMediaType', 'ValidationFailed', 'DeleteConflict', 'PreconditionFailed', ...STORAGE_ERRORS),
          },
        },
      },
    ],
  ];
}
