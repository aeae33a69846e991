// Plan step, bodies: checks a request body against the registry and returns the values it
// sets, in canonical form. Every problem of the body is reported at once, one line per field.
import { fieldProblem, validationFailed, type FieldProblem } from '../errors/api-error.js';
import type { CompiledResource } from '../registry/compiled-resource.js';
import { isRequired, type WriteMode } from '../registry/managed-fields.js';
import { fieldNamed } from '../registry/resource-definition.js';
import type { LinkChange } from '../store/write-step.js';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export interface ValidBody {
  /** The values to store, defaults included where the mode restores them. */
  readonly values: Record<string, unknown>;
  /** The fields the body set (not those filled with a default). */
  readonly sent: readonly string[];
  readonly linkChanges: readonly LinkChange[];
}

export function validateBody(resource: CompiledResource, body: unknown, mode: WriteMode, pathId?: number): ValidBody {
  if (!isPlainObject(body)) throw validationFailed([fieldProblem('', 'field.body')]);

  const problems: FieldProblem[] = [];
  const values: Record<string, unknown> = {};
  const changeFields = resource.linkChangeFields;
  const changes = new Map<string, { add: number[]; remove: number[] }>();
  for (const [name, raw] of Object.entries(body)) {
    const change = changeFields.get(name);
    if (change !== undefined) {
      if (mode !== 'patch') problems.push(fieldProblem(name, 'field.linkChangePatchOnly'));
      else if (change.field in body) problems.push(fieldProblem(name, 'field.linkChangeAlone', { field: change.field }));
      else if (!change.set.type.check(raw)) problems.push({ field: name, message: change.set.type.expectation });
      else {
        const ids = change.set.type.normalise(raw) as number[];
        const entry = changes.get(change.field) ?? { add: [], remove: [] };
        changes.set(change.field, change.adds ? { ...entry, add: ids } : { ...entry, remove: ids });
      }
      continue;
    }
    // A body may carry what the service manages (an entry sent back as read); it is ignored.
    if (resource.managedNames.has(name)) {
      if (name === 'id' && pathId !== undefined && raw !== pathId) {
        problems.push(fieldProblem('id', 'field.idMismatch', { id: pathId }));
      }
      continue;
    }
    const field = fieldNamed(resource, name);
    if (field === undefined) {
      problems.push(fieldProblem(name, 'field.unknown'));
      continue;
    }
    const value = typeof raw === 'string' ? raw.trim() : raw;
    if (!field.type.check(value)) {
      problems.push({ field: name, message: field.type.expectation });
      continue;
    }
    values[name] = field.type.normalise(value);
  }
  const sent = Object.keys(values);

  for (const [name, field] of Object.entries(resource.fields)) {
    // A field the body set (or got wrong, already reported) needs no default; a read-only
    // field the body carried was ignored, so it takes its default like an omitted one.
    if (name in values || (name in body && !field.readOnly)) continue;
    if (isRequired(field, mode)) problems.push(fieldProblem(name, 'field.required'));
    // A PUT restores defaults but leaves server-managed fields (is_deleted) as they are.
    else if ('default' in field && (mode === 'create' || (mode === 'replace' && !field.readOnly))) values[name] = field.default;
  }

  if (problems.length > 0) throw validationFailed(problems);
  return { values, sent, linkChanges: [...changes].map(([field, change]) => ({ field, ...change })) };
}
