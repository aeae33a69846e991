// The schemas of one resource: the entry as responses show it, the bodies of POST, PUT and
// PATCH, and the envelopes of the answers. Made from the registry's field types, the very
// schemas that validate requests, so the document cannot drift from the service.
import { LIMIT_MAX } from '../pipeline/parse-list-query.js';
import { BULK_MAX } from '../pipeline/parse-request.js';
import type { CompiledResource } from '../registry/compiled-resource.js';
import { MAX_ID } from '../registry/field-types.js';
import { isRequired, type WriteMode } from '../registry/managed-fields.js';
import type { FieldDefinition } from '../registry/resource-definition.js';
import { plain, ref, type DocumentContext, type JsonObject } from './document-parts.js';

const EXAMPLE_TIME = '2025-01-31T08:30:00.000Z';

/** The registry's request example as the service would show it: defaults filled in, no secret. */
export function entryExample(resource: CompiledResource): JsonObject {
  const example: JsonObject = {};
  for (const [name, field] of resource.shownFields) {
    if (name === 'id') example.id = 1;
    else if (field.readOnly && !Object.hasOwn(resource.fields, name)) example[name] = EXAMPLE_TIME;
    else if (name in resource.example) example[name] = resource.example[name];
    else if ('default' in field) example[name] = field.default;
  }
  return example;
}

function entrySchema(context: DocumentContext, resource: CompiledResource): JsonObject {
  const properties: JsonObject = {};
  for (const [name, field] of resource.shownFields) {
    const extra: JsonObject = { description: field.description[context.language] };
    if (field.readOnly) extra.readOnly = true;
    // What an entry holds when its POST left the field out: the reader of an entry learns it here.
    if ('default' in field) extra.default = field.default;
    properties[name] = plain(field.type.output, extra);
  }
  return {
    type: 'object',
    description: resource.description[context.language],
    required: Object.keys(properties),
    // Strict on purpose: a response that shows a write-only field (privée) breaks the document.
    additionalProperties: false,
    properties,
    examples: [entryExample(resource)],
  };
}

/**
 * A POST, PUT or PATCH body. It may carry the read-only fields, as an entry read and sent back
 * does (the service ignores them): they are declared `readOnly`, typed as responses show them,
 * so that "read, change a field, PUT it back" type-checks in generated clients. Any other name
 * is refused, which `propertyNames` says rather than `additionalProperties: false`: validating
 * proxies (Prism) drop `readOnly` properties from request schemas, and would then refuse them.
 */
function writeSchema(context: DocumentContext, resource: CompiledResource, mode: WriteMode): JsonObject {
  const t = context.t;
  const properties: JsonObject = {};
  const required: string[] = [];
  for (const [name, field] of resource.bodyFields) {
    const extra: JsonObject = { description: field.description[context.language] };
    if (field.readOnly) {
      properties[name] = plain(field.type.output, { ...extra, readOnly: true });
      continue;
    }
    if (field.writeOnly) extra.writeOnly = true;
    if ('default' in field && mode !== 'patch') extra.default = field.default;
    properties[name] = plain(field.type.input, extra);
    if (isRequired(field, mode)) required.push(name);
    // A set kept in a link table can also be changed piecemeal, by PATCH only.
    if (field.link !== undefined && mode === 'patch') {
      properties[field.link.addField] = plain(field.type.input, { writeOnly: true, description: t.linkAdd(name) });
      properties[field.link.removeField] = plain(field.type.input, { writeOnly: true, description: t.linkRemove(name) });
    }
  }
  const purpose = { create: t.writeCreate, replace: t.writeReplace, patch: t.writePatch }[mode];
  const schema: JsonObject = {
    type: 'object',
    description: `${purpose} ${t.writeCommon}`,
    properties,
    propertyNames: { type: 'string', enum: Object.keys(properties) },
  };
  if (required.length > 0) schema.required = required;
  return schema;
}

/** One entry of a bulk PATCH: the PATCH body, with the id of its entry. */
function bulkPatchSchema(context: DocumentContext, resource: CompiledResource): JsonObject {
  const patch = writeSchema(context, resource, 'patch') as { properties: JsonObject };
  const id = { type: 'integer', minimum: 1, maximum: MAX_ID, description: context.t.bulkEntryId };
  // The PATCH body may carry the entry's id read-only (ignored); here it names the entry.
  const { id: _readOnlyId, ...fields } = patch.properties;
  return { ...patch, required: ['id'], properties: { id, ...fields } };
}

const object = (properties: JsonObject): JsonObject => ({ type: 'object', required: Object.keys(properties), additionalProperties: false, properties });

/** The schemas of bulk writes (contract section 12) and of the dry run of a create. */
function bulkSchemas(context: DocumentContext, resource: CompiledResource): [string, JsonObject][] {
  const t = context.t;
  const s = resource.schemaName;
  const name = { type: 'string', const: resource.name };
  const count = { type: 'integer', minimum: 1, maximum: BULK_MAX, description: t.bulkCount };
  const entries = (items: JsonObject): JsonObject => ({ type: 'array', minItems: 1, maxItems: BULK_MAX, items });
  const { examples: _examples, ...entry } = entrySchema(context, resource) as { properties: JsonObject; examples: unknown };
  return [
    // A created entry of a dry run: everything as it would be, but no id yet.
    [`${s}Unassigned`, { ...entry, properties: { ...entry.properties, id: { type: 'null', description: t.unassignedId } } }],
    [`${s}BulkPatch`, bulkPatchSchema(context, resource)],
    [`${s}BulkCreated`, object({ resource: name, count, items: entries({ anyOf: [ref(s), ref(`${s}Unassigned`)] }) })],
    [`${s}BulkUpdated`, object({ resource: name, count, items: entries(ref(s)) })],
    [
      `${s}BulkDeleted`,
      object({ resource: name, count, deleted: entries(object({ id: { type: 'integer', minimum: 1, maximum: MAX_ID }, mode: { type: 'string', enum: ['hard', 'soft'] } })) }),
    ],
  ];
}

/** Every schema of a resource, by name (components.schemas). */
export function resourceSchemas(context: DocumentContext, resource: CompiledResource): [string, JsonObject][] {
  const s = resource.schemaName;
  const id = { type: 'integer', minimum: 1, maximum: MAX_ID };
  const name = { type: 'string', const: resource.name };
  const restored = resource.deletion.mode === 'soft' ? [[`${s}Restored`, object({ id, resource: name, restored: { type: 'boolean', const: true }, item: ref(s) })] as [string, JsonObject]] : [];
  return [
    [s, entrySchema(context, resource)],
    [`${s}Create`, writeSchema(context, resource, 'create')],
    [`${s}Replace`, writeSchema(context, resource, 'replace')],
    [`${s}Patch`, writeSchema(context, resource, 'patch')],
    [
      `${s}List`,
      object({
        items: { type: 'array', items: ref(s) },
        total: { type: 'integer', minimum: 0, description: context.t.total },
        total_exact: { type: 'boolean', description: context.t.totalExact },
        limit: { type: 'integer', minimum: 1, maximum: LIMIT_MAX },
        offset: { type: 'integer', minimum: 0 },
        next: { type: ['string', 'null'], description: context.t.next },
      }),
    ],
    [`${s}Item`, object({ item: ref(s) })],
    [`${s}Created`, object({ id, resource: name, item: ref(s) })],
    [`${s}DryRunCreated`, object({ id: { type: 'null', description: context.t.unassignedId }, resource: name, item: ref(`${s}Unassigned`) })],
    [`${s}Updated`, object({ id, resource: name, updated: { type: 'boolean', const: true }, item: ref(s) })],
    ...restored,
    ...bulkSchemas(context, resource),
  ];
}

/** A query parameter holds text: a field's schema as a filter value, null left out. */
export function querySchema(field: FieldDefinition): JsonObject {
  const schema = plain(field.type.output);
  const members = (schema.anyOf as JsonObject[] | undefined)?.filter((member) => member.type !== 'null');
  if (members === undefined) return schema;
  return members.length === 1 ? members[0]! : { ...schema, anyOf: members };
}
