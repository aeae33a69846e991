// What a registry entry holds. A resource is described once, here, and the routes, the
// validation, the storage, the list totals and the OpenAPI document are all derived from
// that description (docs/architecture.md).
import type { FieldProblem } from '../errors/api-error.js';
import type { MessageLanguage } from '../messages/languages.js';
import type { FieldType } from './field-types.js';

/** Text shown to people (the OpenAPI document), in each language that has messages. */
export type LocalisedText = Readonly<Record<MessageLanguage, string>>;

/** Where a field that holds a set of ids (a `referenceSet`) is stored: one row per pair. */
export interface LinkTable {
  readonly table: string;
  /** The column that holds the id of the entry that owns the set. */
  readonly ownerColumn: string;
  /** The column that holds one id of the set. */
  readonly targetColumn: string;
  /** The list filter that names one id of the set (repeatable: entries holding every one named). */
  readonly filter: string;
  /** PATCH-only, write-only fields that add ids to the set, or take them out, without a
   * read-modify-write race. */
  readonly addField: string;
  readonly removeField: string;
  /** A column of the link table that copies its owner's soft-delete flag (0 live, 1 deleted),
   * kept in step by the store (delete, restore, every link written). A list filtered by the
   * set then skips deleted owners, and counts its matches, from the link table's index alone
   * instead of reading each owner (docs/decisions.md, "A tag filter is driven by its link
   * table"). Only for an owner that is soft-deleted. */
  readonly ownerDeletedColumn?: string;
}

export interface FieldDefinition {
  readonly type: FieldType;
  /** Column that stores the field (ASCII, so that every backend spells it the same); for a
   * field stored in a link table, the name its ids are selected under. */
  readonly column: string;
  /** Stored in a link table rather than a column (a set of references). */
  readonly link?: LinkTable;
  /** Must be sent on POST and PUT (see `isRequired`). */
  readonly required?: boolean;
  /** Taken on POST and PUT when the field is omitted. */
  readonly default?: unknown;
  /** Managed by the service; ignored when a request sends it. */
  readonly readOnly?: boolean;
  /** Secret: stored sealed, never in a response; a PUT that omits it keeps the stored one. */
  readonly writeOnly?: boolean;
  readonly description: LocalisedText;
}

export interface UniqueRule {
  readonly fields: readonly string[];
  /** Only entries that are not soft-deleted take part. */
  readonly amongLive?: boolean;
}

export type DeleteRule =
  | { readonly mode: 'hard'; readonly guarded?: (id: number) => boolean }
  | { readonly mode: 'soft'; readonly flagField: string; readonly liveColumn: string };

export interface EntryRuleContext {
  /** Fields this request sent. */
  readonly sent: ReadonlySet<string>;
  /** The stored plain value of a write-only field of the entry being changed. */
  storedSecret(field: string): Promise<string | undefined>;
}

/**
 * Checks that span several fields of one entry, run on the entry as it would be stored.
 * It may set fields that follow from others (the ssh-keys fingerprint) in `entry`.
 */
export type EntryRule = (entry: Record<string, unknown>, context: EntryRuleContext) => Promise<FieldProblem[]>;

export interface ResourceDefinition {
  /** Path segment, e.g. `storage-areas`. */
  readonly name: string;
  /** Singular name for the OpenAPI schemas, e.g. `StorageArea`. */
  readonly schemaName: string;
  /** The table that holds the entries; its migration creates it, nothing else names it. */
  readonly table: string;
  readonly description: LocalisedText;
  /** The resource's own fields, in response order (the managed ones are added around them). */
  readonly fields: Readonly<Record<string, FieldDefinition>>;
  readonly unique: readonly UniqueRule[];
  /** The fields that identify an entry across stores (contract section 18: export and apply
   * match entries by them, and a reference is written as its target's key); a unique rule of
   * the resource, or the fields an operator reads as its identity. A resource without one
   * is not part of the configuration document. */
  readonly naturalKey?: readonly string[];
  readonly deletion: DeleteRule;
  readonly rule?: EntryRule;
  /** The search index its migration made over the searchable columns (Ddl.createSearchIndex),
   * which `q` goes through where the dialect has one. */
  readonly searchIndex?: string;
  /** A valid POST body, for the OpenAPI document; never key material. */
  readonly example: Readonly<Record<string, unknown>>;
}

/** The field a request names, if the resource has it. Own properties only: a body key such
 * as `constructor` must not find what every object inherits. */
export function fieldNamed(resource: ResourceDefinition, name: string): FieldDefinition | undefined {
  return Object.hasOwn(resource.fields, name) ? resource.fields[name] : undefined;
}
