// Frozen. Change records waiting for their id (contract section 13, docs/decisions.md "Writes
// that scale: change ids given after the commit"): on PostgreSQL and MariaDB a write stores
// its records here, in its own transaction and without an id, so that writers no longer queue
// behind change_log_state's row lock; a short sequencer transaction then moves the committed
// ones to change_log with their ids (src/store/change-sequencer.ts). SQLite has the table and
// leaves it empty.
import type { Kysely } from 'kysely';
import type { Ddl } from './ddl.js';

export async function up(db: Kysely<any>, ddl: Ddl): Promise<void> {
  await ddl
    .createQueueTable(db, 'change_log_pending', (t) =>
      t
        .addColumn('at', 'varchar(32)', (c) => c.notNull())
        .addColumn('action', 'varchar(16)', (c) => c.notNull())
        .addColumn('resource', 'varchar(64)', (c) => c.notNull())
        .addColumn('entry_id', 'bigint', (c) => c.notNull())
        .addColumn('actor', 'varchar(64)', (c) => c.notNull())
        .addColumn('request_id', 'varchar(128)', (c) => c.notNull())
        .addColumn('before_json', 'text')
        .addColumn('after_json', 'text')
        .addColumn('secrets_changed_json', 'varchar(255)', (c) => c.notNull()),
    )
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('change_log_pending').execute();
}
