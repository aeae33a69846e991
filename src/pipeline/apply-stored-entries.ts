// The stored configuration as an apply (apply.ts) sees it: each resource's live entries by
// natural key and by id, read once per apply in its transaction, and kept in step with the
// entries it creates. A document names entries by natural key (contract section 18), the
// write path by id: this is where one becomes the other, both ways.
import type { CompiledResource } from '../registry/compiled-resource.js';
import { MAX_ID } from '../registry/field-types.js';
import { naturalKeyText, parseNaturalKeyText } from '../registry/natural-key-text.js';
import type { Registry } from '../registry/registry.js';
import type { FieldDefinition } from '../registry/resource-definition.js';
import type { Entry } from '../store/entry-rows.js';
import type { StoreTransaction } from '../store/store-transaction.js';
import type { DocumentSection } from './apply-document.js';

/** A reference to an entry of the document that a refused apply did not create: it is never
 * written, only validated. */
const NOT_CREATED = MAX_ID;

/** The stored entries of a resource that are not deleted, by natural key and by id. */
export interface StoredEntries {
  readonly entries: readonly Entry[];
  /** The first (lowest id) entry of each key: the one a document entry updates. */
  readonly byKey: Map<string, Entry>;
  readonly keyOf: Map<number, string>;
  /** Reference texts already found in byKey, and the id each names (idOf). */
  readonly idOfText: Map<string, number>;
}

export class StoredByKey {
  private readonly stored = new Map<CompiledResource, StoredEntries>();

  constructor(
    private readonly tx: StoreTransaction,
    private readonly registry: Registry,
    private readonly sections: ReadonlyMap<string, DocumentSection>,
  ) {}

  async load(resource: CompiledResource): Promise<StoredEntries> {
    let stored = this.stored.get(resource);
    if (stored === undefined) {
      const entries = await this.tx.liveEntries(resource);
      const byKey = new Map<string, Entry>();
      const keyOf = new Map<number, string>();
      for (const entry of entries) {
        const key = naturalKeyText(resource, entry)!;
        keyOf.set(entry.id, key);
        if (!byKey.has(key)) byKey.set(key, entry);
      }
      stored = { entries, byKey, keyOf, idOfText: new Map() };
      this.stored.set(resource, stored);
    }
    return stored;
  }

  /** The stored entries each reference field of `resource` points at, by field (sameAsStored
   * reads them without waiting). */
  async targetsOf(resource: CompiledResource): Promise<Map<string, StoredEntries>> {
    const targets = new Map<string, StoredEntries>();
    for (const [name, field] of Object.entries(resource.fields)) {
      const reference = field.type.references;
      if (reference !== undefined) targets.set(name, await this.load(this.registry.target(reference)));
    }
    return targets;
  }

  /** The id of the `target` entry a reference text names; undefined if none. */
  async idOf(target: CompiledResource, text: string): Promise<number | undefined> {
    const stored = await this.load(target);
    // The same few texts come back for every entry (a hundred tags over 10,000 servers).
    const known = stored.idOfText.get(text);
    if (known !== undefined) return known;
    const parsed = parseNaturalKeyText(target, text);
    if (parsed === undefined) return undefined;
    const key = naturalKeyText(target, parsed)!;
    const entry = stored.byKey.get(key);
    if (entry !== undefined) {
      stored.idOfText.set(text, entry.id);
      return entry.id;
    }
    // In the document but not created: the apply is refused already.
    return this.sections.get(target.name)?.keys.has(key) === true ? NOT_CREATED : undefined;
  }

  /** A value as the document writes it: a reference as its target's natural key. */
  async shown(field: FieldDefinition, value: unknown): Promise<unknown> {
    const reference = field.type.references;
    if (reference === undefined || value === null || value === undefined) return value;
    const { keyOf } = await this.load(this.registry.target(reference));
    return Array.isArray(value) ? value.map((id: number) => keyOf.get(id) ?? id) : (keyOf.get(value as number) ?? value);
  }
}
