// `npm run reference:generate`: writes docs/resources.md, the reference of every resource
// (fields, types, rules and bounds, defaults, uniqueness, references, delete rule), from the
// registry alone, so that a reader of a clone has it without a running service. The test suite
// makes the same text and fails if the committed file is stale (test/reference.test.ts).
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { render } from '../src/messages/messages.js';
import { bodyFields, isRequired } from '../src/registry/managed-fields.js';
import { DEFAULT_REGISTRY, type Registry } from '../src/registry/registry.js';
import type { FieldDefinition, ResourceDefinition } from '../src/registry/resource-definition.js';

export const REFERENCE_FILE = join(resolve(import.meta.dirname, '..'), 'docs', 'resources.md');

type Schema = Record<string, any>;

/** A table cell: one line, no column break. */
const cell = (text: string): string => text.replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim();
const code = (name: string): string => `\`${name}\``;
/** A value as JSON spells it, so that "" and null read as what they are. */
const json = (value: unknown): string => `\`${JSON.stringify(value)}\``;

/** The JSON type of a schema as a reader says it: `string`, `string or null`, `integer (enum)`. */
function typeOf(schema: Schema): string {
  if (Array.isArray(schema.anyOf)) return [...new Set(schema.anyOf.map(typeOf))].join(' or ');
  const type = String(schema.type ?? 'any');
  if (schema.format === 'date-time') return `${type} (date-time)`;
  return type;
}

/** When a body must carry the field, and what becomes of it. */
function presence(field: FieldDefinition): string {
  if (field.readOnly) return 'read-only: set by the service, ignored in a body';
  const post = isRequired(field, 'create') ? 'required' : 'optional';
  if (field.writeOnly) return `${post} on POST; write-only (never returned); a PUT may omit it to keep the stored value`;
  return isRequired(field, 'replace') ? `${post} on POST and PUT` : `${post}`;
}

function fieldRow(name: string, field: FieldDefinition, registry: Registry): string {
  const notes = [field.description.en];
  const reference = field.type.references;
  if (reference !== undefined) {
    notes.push(`References ${registry.target(reference).name}${reference.mustBeLive ? ' (an entry that is not deleted)' : ''}.`);
  }
  const fallback = 'default' in field ? json(field.default) : '—';
  const cells = [code(name), typeOf(field.type.output), render(field.type.expectation, 'en'), presence(field), fallback, notes.join(' ')];
  return `| ${cells.map(cell).join(' | ')} |`;
}

function deleteRule(resource: ResourceDefinition, registry: Registry): string[] {
  const lines: string[] = [];
  const deletion = resource.deletion;
  if (deletion.mode === 'soft') {
    lines.push(`**Delete:** soft. \`${deletion.flagField}\` becomes 1; the entry stays readable by id and lists show it with \`include_deleted=true\`; deleting it again is 200.`);
  } else {
    lines.push('**Delete:** hard: the entry is gone (404 afterwards).');
    if (deletion.guarded !== undefined) lines.push('Built-in entries (see the description above) are refused with 409 `DELETE_GUARDED` and stay.');
  }
  // A set of ids (a link table) lets go of a deleted entry; only a plain reference blocks its delete.
  const references = registry.referencesTo(resource);
  const named = (fields: typeof references): string => fields.map((user) => `${user.resource.name}.${code(user.field)}`).join(', ');
  const users = references.filter((reference) => reference.link === undefined);
  const holders = references.filter((reference) => reference.link !== undefined);
  if (users.length > 0) {
    lines.push(`An entry still referenced by ${named(users)} is refused with 409 \`REFERENCED\` (the body names the referencing entries); nothing is removed.`);
  }
  if (holders.length > 0) {
    lines.push(`Deleting it takes it out of ${named(holders)} in the same transaction; the entries that held it get a new \`updated_at\` and ETag.`);
  }
  return lines;
}

function uniqueness(resource: ResourceDefinition): string {
  if (resource.unique.length === 0) return '**Unique:** nothing besides `id`.';
  const rules = resource.unique.map((rule) => `${rule.fields.map(code).join(' + ')}${rule.amongLive ? ' (among entries not deleted)' : ''}`);
  return `**Unique:** ${rules.join('; ')}. A clash is 409 \`CONFLICT\`, naming the fields.`;
}

function resourceSection(resource: ResourceDefinition, registry: Registry): string {
  const s = resource.schemaName;
  return [
    `## ${resource.name}`,
    '',
    resource.description.en,
    '',
    `Paths: \`/{lang}/api/config/${resource.name}\` and \`/{lang}/api/config/${resource.name}/{id}\`. ` +
      `OpenAPI schemas: \`${s}\` (as responses show it), \`${s}Create\`, \`${s}Replace\`, \`${s}Patch\` (bodies).`,
    '',
    '| field | type | rule | in a body | default | notes |',
    '|---|---|---|---|---|---|',
    ...bodyFields(resource).map(([name, field]) => fieldRow(name, field, registry)),
    '',
    uniqueness(resource),
    '',
    deleteRule(resource, registry).join(' '),
    '',
    'Example body (POST):',
    '',
    '```json',
    JSON.stringify(resource.example),
    '```',
    '',
  ].join('\n');
}

export function referenceMarkdown(registry: Registry): string {
  return [
    '# Resource reference',
    '',
    '<!-- Generated from the registry (src/registry/resources.ts) by `npm run reference:generate`; do not edit by hand. -->',
    '',
    'Every resource of the configuration API, generated from the registry that the service itself runs on ' +
      '(`npm run reference:generate`; `test/reference.test.ts` fails while this file is stale). ' +
      'A running service describes the same in its OpenAPI document (`GET /{lang}/api/openApi`) and its documentation page (`/{lang}/api/docs`).',
    '',
    '- Every entry has `id` (assigned by the service), `created_at` and `updated_at` (ISO 8601, UTC, written by the service).',
    '- "in a body": POST requires the fields marked required; PUT replaces the entry, so an omitted optional field returns to its default; ' +
      'PATCH changes only the fields it sends and requires none.',
    '- A body may carry the read-only fields (an entry read and sent back): they are ignored, except an `id` other than the path’s (422). ' +
      'A field the resource does not have is 422 `VALIDATION_FAILED`.',
    '- Strings are trimmed before they are checked. Booleans are JSON booleans in responses; requests may also send 1 and 0.',
    '- A reference must name an existing entry (422 otherwise).',
    '',
    `Resources: ${registry.resources.map((resource) => `[${resource.name}](#${resource.name})`).join(', ')}.`,
    '',
    ...registry.resources.map((resource) => resourceSection(resource, registry)),
  ].join('\n');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(REFERENCE_FILE, referenceMarkdown(DEFAULT_REGISTRY));
  process.stdout.write(`wrote ${REFERENCE_FILE}\n`);
}
