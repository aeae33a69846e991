// What every dialect's entry table ends with: the two timestamps the service writes, as ISO
// text (the one spelling every backend reads back identically).
import type { TableBuilder } from '../migrations/ddl.js';

export function withTimestamps(table: TableBuilder): TableBuilder {
  return table.addColumn('created_at', 'varchar(32)', (c) => c.notNull()).addColumn('updated_at', 'varchar(32)', (c) => c.notNull());
}
