// The resources as the registry describes them (built into the console), and what follows
// from a field's description for forms.
import { RESOURCES } from 'console:registry';
import type { ConsoleField, ConsoleResource } from './registry-types.js';

export { RESOURCES };

export function resourceNamed(name: string): ConsoleResource | undefined {
  return RESOURCES.find((resource) => resource.name === name);
}

/** The fields a form edits: not those the service sets (id, timestamps, is_deleted). */
export function editableFields(resource: ConsoleResource): ConsoleField[] {
  return resource.fields.filter((field) => !field.readOnly);
}

/** The fields a page shows: everything but write-only ones. */
export function shownFields(resource: ConsoleResource): ConsoleField[] {
  return resource.fields.filter((field) => !field.writeOnly);
}

// A server has many flags; its list shows what tells servers apart (the page shows the rest).
const LIST_COLUMNS: Record<string, readonly string[]> = {
  servers: ['id', 'ip', 'port', 'hostname', 'id_client', 'id_environment', 'tags', 'is_monitored', 'updated_at'],
};

/** The fields a list shows as columns: the short ones. */
export function columnFields(resource: ConsoleResource): ConsoleField[] {
  const chosen = LIST_COLUMNS[resource.name];
  return shownFields(resource).filter((field) => (chosen === undefined ? field.kind !== 'multiline' && field.name !== 'created_at' : chosen.includes(field.name)));
}

/** The fields a list may be sorted by. */
export function sortableFields(resource: ConsoleResource): ConsoleField[] {
  return shownFields(resource).filter((field) => field.kind !== 'references' && field.kind !== 'multiline');
}

export function same(left: unknown, right: unknown): boolean {
  return JSON.stringify(left) === JSON.stringify(right);
}
