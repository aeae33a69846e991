// Checks a request body against the registry and returns the values it sets, in canonical
// form. Every problem of the body is reported at once, one line per field.
import { fieldProblem, validationFailed, type FieldProblem } from '../http/api-error.js';
import { fieldNamed, type ResourceDefinition } from '../registry/resource-definition.js';

export type WriteMode = 'create' | 'replace' | 'patch';

/** Fields the server assigns; a body may carry them (a GET result sent back) and they are ignored. */
const SERVER_FIELDS = new Set(['id', 'created_at', 'updated_at']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Whether an omitted field must be sent in this mode. A write-only secret need not be
 * sent again on PUT (the stored one is kept), and derived fields are never required.
 */
function isRequired(mode: WriteMode, required: boolean | undefined, writeOnly: boolean | undefined): boolean {
  if (mode === 'patch' || !required) return false;
  return mode === 'create' || !writeOnly;
}

export function validateBody(
  resource: ResourceDefinition,
  body: unknown,
  mode: WriteMode,
  pathId?: number,
): Record<string, unknown> {
  if (!isPlainObject(body)) throw validationFailed([fieldProblem('', 'field.body')]);

  const problems: FieldProblem[] = [];
  const values: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(body)) {
    const field = fieldNamed(resource, name);
    if (SERVER_FIELDS.has(name) || field?.readOnly) {
      if (name === 'id' && pathId !== undefined && raw !== pathId) {
        problems.push(fieldProblem('id', 'field.idMismatch', { id: pathId }));
      }
      continue;
    }
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

  for (const [name, field] of Object.entries(resource.fields)) {
    // A field the body set (or got wrong, already reported) needs no default; a read-only
    // field the body carried was ignored, so it takes its default like an omitted one.
    if (name in values || (name in body && !field.readOnly)) continue;
    if (isRequired(mode, field.required, field.writeOnly)) problems.push(fieldProblem(name, 'field.required'));
    // A PUT restores defaults but leaves server-managed fields (is_deleted) as they are.
    else if ('default' in field && (mode === 'create' || (mode === 'replace' && !field.readOnly))) values[name] = field.default;
  }

  if (problems.length > 0) throw validationFailed(problems);
  return values;
}
