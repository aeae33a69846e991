// The stored configuration as contract section 18 writes it, read from one consistent
// snapshot of the database (ReadSnapshot: a read-only transaction of its own), a batch at a
// time. An entry is its fields without id, timestamps, fields the service alone writes
// (a server's is_deleted) and write-only ones (an SSH key's private key); a reference is its
// target's natural key as one text (natural-key-text.ts), null staying null; soft-deleted
// entries are left out. Entries come sorted by natural key, text by code point (the dialect's
// binaryOrder), so that two stores holding the same configuration give the same entries in
// the same order whatever their backend and collation.
//
// Each resource is one read, sorted once by the database and fetched a batch at a time as the
// caller asks (a cursor on PostgreSQL, a paused stream on MariaDB, an iterator on SQLite): the
// snapshot already makes the batches consistent with each other, so no keyset is needed to
// continue a read, and nothing is sorted per batch.
import { sql, type RawBuilder } from 'kysely';
import type { DatabaseHandle, ReadSnapshot } from '../db/connect.js';
import type { EntryTables } from '../db/database-schema.js';
import { makeRoom } from '../db/bounded-map.js';
import type { CompiledResource } from '../registry/compiled-resource.js';
import { naturalKeyText } from '../registry/natural-key-text.js';
import type { Registry } from '../registry/registry.js';
import type { FieldDefinition } from '../registry/resource-definition.js';

/** An entry as the configuration document writes it. */
export type DocumentEntry = Record<string, unknown>;

function isText(field: FieldDefinition): boolean {
  return (field.type.input as { type?: unknown }).type === 'string';
}

/** Distinct sets of references, and distinct one-field keys, kept decoded, at most. */
const SETS_KEPT = 10_000;

/** Sorts texts by code point, as the databases sort under binaryOrder (JavaScript's own
 * comparison orders UTF-16 units, which puts U+E000-U+FFFF after the characters beyond). */
function byCodePoint(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** How one selected field becomes its value in the document, reading from `row` at `at`. */
interface FieldReader {
  readonly name: string;
  /** Columns it takes in the row. */
  readonly width: number;
  read(row: readonly unknown[], at: number): unknown;
}

export class ConfigurationSnapshot {
  /** The natural keys of the entries of a resource that sets point at, by id. */
  private readonly keysById = new Map<CompiledResource, Map<number, string>>();

  private constructor(
    private readonly handle: DatabaseHandle,
    private readonly registry: Registry,
    private readonly snapshot: ReadSnapshot,
    /** The last change the snapshot includes (0 when none). */
    readonly changeId: number,
  ) {}

  /** Begins the snapshot and reads its last change id. Close it (close()) once read. */
  static async open(handle: DatabaseHandle, registry: Registry): Promise<ConfigurationSnapshot> {
    const snapshot = await handle.openReadSnapshot();
    try {
      const db = handle.db;
      const query = db.selectFrom('change_log').select(sql<number>`coalesce(max(id), 0)`.as('last')).compile();
      let last = 0;
      for await (const rows of snapshot.batches(query, 1)) last = Number(rows[0]?.[0] ?? 0);
      return new ConfigurationSnapshot(handle, registry, snapshot, last);
    } catch (error) {
      await snapshot.close();
      throw error;
    }
  }

  close(): Promise<void> {
    return this.snapshot.close();
  }

  /** The entries of `resource`, sorted by natural key, `size` at most per batch. */
  async *entries(resource: CompiledResource, size: number): AsyncGenerator<DocumentEntry[]> {
    const db = this.handle.db.withTables<EntryTables>();
    const table = resource.table;
    const readers: FieldReader[] = [];
    const selected: RawBuilder<unknown>[] = [];
    let query = db.selectFrom(table);
    for (const [index, [name, field]] of resource.documentFields.entries()) {
      const reference = field.type.references;
      if (field.link !== undefined && reference !== undefined) {
        const { link } = field;
        selected.push(sql`(select ${this.handle.queries.joinedIds(sql.ref(`l.${link.targetColumn}`))} from ${sql.table(link.table)} as l where ${sql.ref(`l.${link.ownerColumn}`)} = ${sql.ref(`${table}.id`)})`);
        readers.push(this.setReader(name, field, await this.keysOf(this.registry.target(reference))));
      } else if (reference !== undefined) {
        const target = this.registry.target(reference);
        const alias = `reference_${index}`;
        query = query.leftJoin(`${target.table} as ${alias}`, `${alias}.id`, `${table}.${field.column}`);
        const keyFields = target.naturalKey!.map((key) => [key, target.fields[key]!] as const);
        for (const [, keyField] of keyFields) selected.push(sql.ref(`${alias}.${keyField.column}`));
        const keyText = (row: readonly unknown[], at: number): string | null =>
          row[at] === null || row[at] === undefined ? null : naturalKeyText(target, Object.fromEntries(keyFields.map(([key, keyField], offset) => [key, keyField.type.fromColumn(row[at + offset])])))!;
        // A key of one field (a client, an environment) is made once per distinct value: a
        // million servers share a few hundred of them.
        const known = new Map<unknown, string | null>();
        const oneField = (row: readonly unknown[], at: number): string | null => {
          let text = known.get(row[at]);
          if (text === undefined) {
            text = keyText(row, at);
            makeRoom(known, SETS_KEPT);
            known.set(row[at], text);
          }
          return text;
        };
        readers.push({ name, width: keyFields.length, read: keyFields.length === 1 ? oneField : keyText });
      } else {
        selected.push(sql.ref(`${table}.${field.column}`));
        readers.push({ name, width: 1, read: (row, at) => field.type.fromColumn(row[at]) });
      }
    }
    let select = query.select(selected.map((selection, index) => selection.as(`c${index}`)));
    // Literal, not a bound value: the read is a cursor on PostgreSQL, declared once.
    if (resource.deletion.mode === 'soft') select = select.where(sql.ref(`${table}.${resource.deletion.liveColumn}`), '=', sql.lit(1));
    for (const key of resource.naturalKey ?? []) {
      const field = resource.fields[key]!;
      const column = `${table}.${field.column}`;
      select = select.orderBy(isText(field) ? this.handle.queries.binaryOrder(column) : sql.ref(column));
    }
    for await (const rows of this.snapshot.batches(select.compile(), size)) {
      const entries: DocumentEntry[] = new Array(rows.length);
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i]!;
        const entry: DocumentEntry = {};
        let at = 0;
        for (const reader of readers) {
          entry[reader.name] = reader.read(row, at);
          at += reader.width;
        }
        entries[i] = entry;
      }
      yield entries;
    }
  }

  /** A set of references read as its targets' keys, sorted; decoded once per distinct set. */
  private setReader(name: string, field: FieldDefinition, keys: ReadonlyMap<number, string>): FieldReader {
    const decoded = new Map<unknown, readonly string[]>();
    return {
      name,
      width: 1,
      read: (row, at) => {
        const raw = row[at] ?? null;
        let shown = decoded.get(raw);
        if (shown === undefined) {
          shown = (field.type.fromColumn(raw) as number[]).map((id) => keys.get(id) ?? String(id)).sort(byCodePoint);
          makeRoom(decoded, SETS_KEPT);
          decoded.set(raw, shown);
        }
        // Shared by the entries with this set: the writers only read it.
        return shown;
      },
    };
  }

  /** The natural key of every entry of `target` by its id, read in the snapshot (once). */
  private async keysOf(target: CompiledResource): Promise<Map<number, string>> {
    let keys = this.keysById.get(target);
    if (keys !== undefined) return keys;
    keys = new Map();
    const db = this.handle.db.withTables<EntryTables>();
    const keyFields = target.naturalKey!.map((key) => [key, target.fields[key]!] as const);
    const query = db
      .selectFrom(target.table)
      .select([sql.ref(`${target.table}.id`).as('id'), ...keyFields.map(([, field], index) => sql.ref(`${target.table}.${field.column}`).as(`k${index}`))])
      .compile();
    for await (const rows of this.snapshot.batches(query, 1000)) {
      for (const row of rows) keys.set(Number(row[0]), naturalKeyText(target, Object.fromEntries(keyFields.map(([key, field], index) => [key, field.type.fromColumn(row[index + 1])])))!);
    }
    this.keysById.set(target, keys);
    return keys;
  }
}
