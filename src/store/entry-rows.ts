// Entries to rows and back, driven by the registry: columns come from the field definitions,
// values pass through each field type's column form, and secrets are sealed on the way in.
// A field kept in a link table is selected as one aggregate of its ids, so that an entry is
// still read in one statement.
import { sql, type AliasedRawBuilder } from 'kysely';
import type { DialectQueries } from '../db/connect.js';
import { shownFields } from '../registry/managed-fields.js';
import type { LinkTable, ResourceDefinition } from '../registry/resource-definition.js';
import type { SecretBox } from '../secrets/secret-box.js';

/** An entry as the API shows it: id, the readable fields, then the timestamps. */
export type Entry = Record<string, unknown> & { id: number };

export type Row = Record<string, unknown>;

/** What a sealed column's secret is bound to, so that it cannot be moved to another column. */
export function secretContext(resource: ResourceDefinition, column: string): string {
  return `${resource.table}.${column}`;
}

export type Selection = string | AliasedRawBuilder<unknown, string>;

/** What a SELECT of the entries of a resource names, in response order: its columns, and for
 * each set kept in a link table, the aggregate of its ids. Made once per resource. */
export class EntrySelections {
  private readonly byResource = new WeakMap<ResourceDefinition, { all: Selection[]; stored: string[] }>();

  constructor(private readonly queries: DialectQueries) {}

  /** Everything a response shows. */
  all(resource: ResourceDefinition): Selection[] {
    return this.of(resource).all;
  }

  /** Only what the entry's own row holds (RETURNING cannot see links written after it). */
  stored(resource: ResourceDefinition): string[] {
    return this.of(resource).stored;
  }

  private of(resource: ResourceDefinition): { all: Selection[]; stored: string[] } {
    let selections = this.byResource.get(resource);
    if (selections === undefined) {
      const fields = shownFields(resource);
      selections = {
        all: fields.map(([, field]) => (field.link === undefined ? field.column : this.linkedIds(resource, field.link, field.column))),
        stored: fields.filter(([, field]) => field.link === undefined).map(([, field]) => field.column),
      };
      this.byResource.set(resource, selections);
    }
    return selections;
  }

  private linkedIds(resource: ResourceDefinition, link: LinkTable, alias: string): AliasedRawBuilder<unknown, string> {
    const ids = this.queries.joinedIds(sql.ref(`l.${link.targetColumn}`));
    return sql`(select ${ids} from ${sql.table(link.table)} as l where ${sql.ref(`l.${link.ownerColumn}`)} = ${sql.ref(`${resource.table}.id`)})`.as(alias);
  }
}

const linkedByResource = new WeakMap<ResourceDefinition, readonly [string, LinkTable][]>();

/** The fields of a resource that are kept in link tables (every write asks). */
export function linkedFields(resource: ResourceDefinition): readonly [string, LinkTable][] {
  let linked = linkedByResource.get(resource);
  if (linked === undefined) {
    linked = Object.entries(resource.fields).flatMap(([name, field]) => (field.link === undefined ? [] : [[name, field.link] as [string, LinkTable]]));
    linkedByResource.set(resource, linked);
  }
  return linked;
}

export function decodeEntry(resource: ResourceDefinition, row: Row): Entry {
  const entry: Record<string, unknown> = {};
  for (const [name, field] of shownFields(resource)) entry[name] = field.type.fromColumn(row[field.column]);
  return entry as Entry;
}

/** The same from a row's values in the order EntrySelections.all selects them, which is the
 * order of shownFields. */
export function decodeEntryValues(resource: ResourceDefinition, values: readonly unknown[]): Entry {
  const entry: Record<string, unknown> = {};
  const fields = shownFields(resource);
  for (let i = 0; i < fields.length; i++) {
    const [name, field] = fields[i]!;
    entry[name] = field.type.fromColumn(values[i]);
  }
  return entry as Entry;
}

/** Field values (API names, canonical values) to columns; secrets are sealed here. */
export function encodeValues(resource: ResourceDefinition, values: Record<string, unknown>, secrets: SecretBox): Row {
  const row: Row = {};
  for (const [name, value] of Object.entries(values)) {
    const field = resource.fields[name];
    if (field === undefined || field.link !== undefined) continue;
    row[field.column] = field.writeOnly ? secrets.seal(String(value), secretContext(resource, field.column)) : field.type.toColumn(value);
  }
  return row;
}
