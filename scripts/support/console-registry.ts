// What the console knows of the resources, made from the registry when the console is built
// (scripts/support/console-build.ts), so that each fact about a field (its type, bounds,
// default, reference, description in both languages) is stated once, in src/registry/.
import { bodyFields } from '../../src/registry/managed-fields.js';
import { DEFAULT_REGISTRY, type Registry } from '../../src/registry/registry.js';
import type { FieldDefinition } from '../../src/registry/resource-definition.js';

import type { ConsoleField, ConsoleFieldKind, ConsoleResource } from '../../console/src/registry-types.js';

type Schema = Record<string, unknown> & { anyOf?: Schema[] };

/** The member of a nullable union that is not null, and whether null was a member. */
function unwrap(schema: Schema): { schema: Schema; nullable: boolean } {
  const members = schema.anyOf;
  if (!Array.isArray(members)) return { schema, nullable: false };
  const others = members.filter((member) => member.type !== 'null');
  const nullable = others.length < members.length;
  // A choice of formats (an address or a DNS name): a string, its bounds each member's own.
  if (others.length !== 1) return { schema: { type: others[0]?.type }, nullable };
  return { schema: others[0]!, nullable };
}

function kindOf(field: FieldDefinition, schema: Schema): ConsoleFieldKind {
  const reference = field.type.references;
  if (reference !== undefined) return reference.many ? 'references' : 'reference';
  if (field.type.outputOnly && schema.type === 'string') return 'timestamp';
  // A boolean accepts 0 and 1 too: a union of a boolean and an integer enum.
  if (Array.isArray(schema.anyOf) && schema.anyOf.some((member) => member.type === 'boolean')) return 'boolean';
  if (schema.type === 'boolean') return 'boolean';
  if (Array.isArray(schema.enum)) return field.readOnly ? 'flag' : 'enum';
  if (schema.type === 'integer') return 'integer';
  // Key material and public key lines: long, and may span lines.
  if (typeof schema.maxLength === 'number' && schema.maxLength > 4000) return 'multiline';
  return 'text';
}

function describeField(name: string, field: FieldDefinition): ConsoleField {
  const input = JSON.parse(JSON.stringify(field.type.input)) as Schema;
  const kind = kindOf(field, input);
  const { schema, nullable } = kind === 'boolean' ? { schema: input, nullable: false } : unwrap(input);
  const described: Record<string, unknown> = {
    name,
    kind,
    required: field.required === true,
    nullable,
    readOnly: field.readOnly === true,
    writeOnly: field.writeOnly === true,
    description: { en: field.description.en, fr: field.description.fr },
  };
  if ('default' in field) described.default = field.default;
  if (Array.isArray(schema.enum)) described.values = schema.enum;
  for (const [from, to] of [['minLength', 'min'], ['maxLength', 'max'], ['minimum', 'min'], ['maximum', 'max']] as const) {
    if (typeof schema[from] === 'number') described[to] = schema[from];
  }
  if (field.type.references !== undefined) described.references = field.type.references.resource;
  return described as unknown as ConsoleField;
}

export function consoleResources(registry: Registry = DEFAULT_REGISTRY): ConsoleResource[] {
  return registry.resources.map((resource) => ({
    name: resource.name,
    description: { en: resource.description.en, fr: resource.description.fr },
    softDelete: resource.deletion.mode === 'soft',
    fields: bodyFields(resource).map(([name, field]) => describeField(name, field)),
  }));
}
