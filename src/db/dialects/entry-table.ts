// What every dialect's entry table ends with: the two timestamps the service writes, as ISO
// text (the one spelling every backend reads back identically); and its reference columns,
// made alike everywhere but for the index a database may already give a foreign key.
import type { Ddl, TableBuilder } from '../migrations/ddl.js';

export function withTimestamps(table: TableBuilder): TableBuilder {
  return table.addColumn('created_at', 'varchar(32)', (c) => c.notNull()).addColumn('updated_at', 'varchar(32)', (c) => c.notNull());
}

/** Ddl.createEntryTableWithReferences over a dialect's createEntryTable; `foreignKeysIndexed`:
 * the database indexes a foreign key's column itself (another index would be a duplicate). */
export function entryTableWithReferences(createEntryTable: Ddl['createEntryTable'], foreignKeysIndexed: boolean): Ddl['createEntryTableWithReferences'] {
  return async (db, name, references, columns) => {
    const referencing = Object.entries(references);
    const withReferences = (table: TableBuilder): TableBuilder =>
      referencing.reduce(
        (built, [column, target]) => built.addColumn(column, 'integer', (c) => (target.nullable === true ? c : c.notNull()).references(`${target.table}.id`)),
        table,
      );
    await createEntryTable(db, name, (table) => columns(withReferences(table))).execute();
    if (foreignKeysIndexed) return;
    for (const [column] of referencing) await db.schema.createIndex(`${name}_${column}_idx`).on(name).column(column).execute();
  };
}
