// Entries to rows and back, driven by the registry: columns come from the field definitions,
// values pass through each field type's column form, and secrets are sealed on the way in.
import { shownFields } from '../registry/managed-fields.js';
import type { ResourceDefinition } from '../registry/resource-definition.js';
import type { SecretBox } from '../secrets/secret-box.js';

/** An entry as the API shows it: id, the readable fields, then the timestamps. */
export type Entry = Record<string, unknown> & { id: number };

export type Row = Record<string, unknown>;

/** What a sealed column's secret is bound to, so that it cannot be moved to another column. */
export function secretContext(resource: ResourceDefinition, column: string): string {
  return `${resource.table}.${column}`;
}

const columnsByResource = new WeakMap<ResourceDefinition, string[]>();

/** The columns of what a response shows, in response order. */
export function shownColumns(resource: ResourceDefinition): string[] {
  let columns = columnsByResource.get(resource);
  if (columns === undefined) {
    columns = shownFields(resource).map(([, field]) => field.column);
    columnsByResource.set(resource, columns);
  }
  return columns;
}

export function decodeEntry(resource: ResourceDefinition, row: Row): Entry {
  const entry: Record<string, unknown> = {};
  for (const [name, field] of shownFields(resource)) entry[name] = field.type.fromColumn(row[field.column]);
  return entry as Entry;
}

/** Field values (API names, canonical values) to columns; secrets are sealed here. */
export function encodeValues(resource: ResourceDefinition, values: Record<string, unknown>, secrets: SecretBox): Row {
  const row: Row = {};
  for (const [name, value] of Object.entries(values)) {
    const field = resource.fields[name];
    if (field === undefined) continue;
    row[field.column] = field.writeOnly ? secrets.seal(String(value), secretContext(resource, field.column)) : field.type.toColumn(value);
  }
  return row;
}
