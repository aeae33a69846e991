// The fields every entry has and the service alone sets: `id`, `created_at`, `updated_at`
// (contract section 3). Stated here once; responses, lists, storage, validation and the
// document read them from here.
import { id, timestamp } from './field-types.js';
import type { FieldDefinition, ResourceDefinition } from './resource-definition.js';

export const ID_FIELD: FieldDefinition = {
  type: id(),
  column: 'id',
  readOnly: true,
  description: { en: 'Assigned by the service.', fr: 'Attribué par le service.' },
};

const TIMESTAMP: Omit<FieldDefinition, 'column'> = {
  type: timestamp(),
  readOnly: true,
  description: { en: 'ISO 8601, UTC, written by the service.', fr: 'ISO 8601, UTC, écrit par le service.' },
};

export const CREATED_AT_FIELD: FieldDefinition = { ...TIMESTAMP, column: 'created_at' };
export const UPDATED_AT_FIELD: FieldDefinition = { ...TIMESTAMP, column: 'updated_at' };

/** The managed fields by name; `id` first, the timestamps last in every response. */
export const MANAGED_FIELDS: Readonly<Record<'id' | 'created_at' | 'updated_at', FieldDefinition>> = {
  id: ID_FIELD,
  created_at: CREATED_AT_FIELD,
  updated_at: UPDATED_AT_FIELD,
};

export type NamedField = readonly [name: string, field: FieldDefinition];

/** Every field a body may carry, in response order: what a response shows (an entry read and
 * sent back), and the write-only ones. The managed fields among them are ignored. */
export function bodyFields(resource: ResourceDefinition): readonly NamedField[] {
  return [['id', MANAGED_FIELDS.id], ...Object.entries(resource.fields), ['created_at', MANAGED_FIELDS.created_at], ['updated_at', MANAGED_FIELDS.updated_at]];
}

/** Whether the service alone sets this field of the resource: a body that carries it (an
 * entry sent back as read) has it ignored. */
export function isManaged(resource: ResourceDefinition, name: string): boolean {
  if (Object.hasOwn(MANAGED_FIELDS, name)) return true;
  return Object.hasOwn(resource.fields, name) && resource.fields[name]!.readOnly === true;
}

export type WriteMode = 'create' | 'replace' | 'patch';

/**
 * Whether a body must send the field in this mode. PATCH requires nothing; a write-only
 * secret need not be sent again on PUT (the stored one is kept).
 */
export function isRequired(field: FieldDefinition, mode: WriteMode): boolean {
  if (mode === 'patch' || !field.required) return false;
  return mode === 'create' || !field.writeOnly;
}
