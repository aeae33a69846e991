// A resource as the rest of the service uses it: its definition, and the facts every request
// derives from it, worked out once when the registry is made (compileResource) instead of on
// first use in a cache of each layer. Callers read them as properties.
//
// Only what follows from the definition alone lives here: the registry is below every other
// layer, so nothing here knows SQL, a dialect or a request. What needs those stays a memo of
// its own layer, keyed by the compiled resource (docs/architecture.md, "The compiled
// registry"): the SELECT list with a dialect's aggregate of linked ids (store/entry-rows.ts),
// the compiled statements (store/query-templates.ts, store/entry-walk.ts), and the list
// queries parsed from clients' query strings (pipeline/parse-list-query.ts).
import type { TSchema } from 'typebox';
import { bodyFields, isManaged, type NamedField } from './managed-fields.js';
import type { FieldDefinition, LinkTable, ResourceDefinition } from './resource-definition.js';

/** What a column holds, as drivers read it back: integers (booleans are stored as 0 and 1)
 * or text. A list cursor's values must be of their sort column's kind. */
export type ColumnKind = 'integer' | 'text';

/** A field as lists see it: one a response shows, sorted by or compared whole. */
export interface ListField {
  readonly column: string;
  /** The column may hold NULL. */
  readonly nullable: boolean;
  /** What the column holds otherwise, for the values of a cursor. */
  readonly kind: ColumnKind;
  /** Turns the text of a query parameter into a value to compare, or undefined if invalid. */
  readonly parse: (text: string) => unknown;
}

/** A body field that changes a set kept in a link table without replacing it (`add_tags`). */
export interface LinkChangeField {
  /** The set it changes. */
  readonly field: string;
  readonly set: FieldDefinition;
  /** Adds ids (`add_…`) rather than taking them out (`remove_…`). */
  readonly adds: boolean;
}

export interface CompiledResource extends ResourceDefinition {
  /** Every field a response shows, in response order: id, the readable fields, the timestamps. */
  readonly shownFields: readonly NamedField[];
  /** Every field a body may carry, in response order: the shown ones and the write-only ones
   * (the managed ones among them are ignored). */
  readonly bodyFields: readonly NamedField[];
  /** The fields a configuration document carries (contract section 18): those a request may
   * set and a response shows, in the resource's order. */
  readonly documentFields: readonly NamedField[];
  /** The fields kept in link tables (every write asks). */
  readonly linkedFields: readonly (readonly [name: string, link: LinkTable])[];
  /** The body fields that change a set without replacing it, by name. */
  readonly linkChangeFields: ReadonlyMap<string, LinkChangeField>;
  /** The columns the entry's own row holds, in response order (a set in a link table left
   * out: RETURNING cannot see links written after the row). */
  readonly storedColumns: readonly string[];
  /** The fields a list sorts by or filters on (`?name=`), by name: the shown ones not kept in
   * a link table. */
  readonly listFields: ReadonlyMap<string, ListField>;
  /** The link table each set's list filter (`?tag=`) names, by filter name. */
  readonly linkFilters: ReadonlyMap<string, LinkTable>;
  /** The columns `q` searches: the searchable fields a response shows. */
  readonly searchColumns: readonly string[];
  /** The names a body may carry that the service alone sets (ignored when sent). */
  readonly managedNames: ReadonlySet<string>;
}

function valueParser(field: FieldDefinition): (text: string) => unknown {
  return (text) => {
    // Try the text as the JSON value it may stand for (true, 3306), then as a string; the
    // field's own schema decides which reading, if any, is valid.
    const candidates: unknown[] = [];
    if (text === 'true' || text === 'false') candidates.push(text === 'true');
    if (/^-?\d{1,15}$/.test(text)) candidates.push(Number(text));
    candidates.push(text.trim());
    const accepted = candidates.find((candidate) => field.type.check(candidate));
    return accepted === undefined ? undefined : field.type.toColumn(field.type.normalise(accepted));
  };
}

/** Integers (booleans are stored as 0 and 1) or text, as the field's schema says. */
function columnKind(input: TSchema): ColumnKind {
  const schema = input as { anyOf?: { type?: unknown }[]; type?: unknown };
  const types = schema.anyOf?.map((member) => member.type) ?? [schema.type];
  return types.some((type) => type === 'integer' || type === 'number' || type === 'boolean') ? 'integer' : 'text';
}

function linkChangeFieldsOf(definition: ResourceDefinition): Map<string, LinkChangeField> {
  const fields = new Map<string, LinkChangeField>();
  for (const [field, set] of Object.entries(definition.fields)) {
    if (set.link === undefined) continue;
    fields.set(set.link.addField, { field, set, adds: true });
    fields.set(set.link.removeField, { field, set, adds: false });
  }
  return fields;
}

/** The compiled form of `definition`; the registry makes one per resource, and a resource
 * kept outside it (the API tokens, the webhooks) makes its own once, where it is defined. */
export function compileResource(definition: ResourceDefinition): CompiledResource {
  const body = bodyFields(definition);
  const shown = body.filter(([, field]) => !field.writeOnly);
  const own = Object.entries(definition.fields);
  const linked = own.flatMap(([name, field]) => (field.link === undefined ? [] : [[name, field.link] as const]));
  // A set kept in a link table is neither sorted by nor compared whole: its filter names one id.
  const compared = shown.filter(([, field]) => field.link === undefined);
  return Object.freeze({
    ...definition,
    shownFields: shown,
    bodyFields: body,
    documentFields: own.filter(([, field]) => field.readOnly !== true && field.writeOnly !== true),
    linkedFields: linked,
    linkChangeFields: linkChangeFieldsOf(definition),
    storedColumns: compared.map(([, field]) => field.column),
    listFields: new Map(compared.map(([name, field]) => [name, { column: field.column, nullable: field.type.check(null), kind: columnKind(field.type.input), parse: valueParser(field) }])),
    linkFilters: new Map(linked.map(([, link]) => [link.filter, link])),
    searchColumns: own.filter(([, field]) => field.type.searchable && !field.writeOnly).map(([, field]) => field.column),
    managedNames: new Set(body.map(([name]) => name).filter((name) => isManaged(definition, name))),
  });
}
