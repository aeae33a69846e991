// Frozen. The change log (contract section 13): one row per committed change of an entry,
// written in the transaction of the change.
//
// Ids are not the database's own sequence: each writing transaction takes its ids from the
// one row of change_log_state, whose row lock it then holds until it commits. So a
// transaction holding id N commits (or rolls back and gives N back) before any other can take
// N + 1, and a reader that has seen N + 1 can never later find N appear: "resume after the
// last id seen" is exact, with any number of instances on one database (docs/api.md, Change log).
import type { Kysely } from 'kysely';
import type { Ddl } from './ddl.js';

export async function up(db: Kysely<any>, ddl: Ddl): Promise<void> {
  // The table options of entry tables (binary text comparison: `actor=` is exact).
  await ddl
    .createLinkTable(db, 'change_log', (t) =>
      t
        .addColumn('id', 'bigint', (c) => c.primaryKey())
        .addColumn('at', 'varchar(32)', (c) => c.notNull())
        .addColumn('action', 'varchar(16)', (c) => c.notNull())
        .addColumn('resource', 'varchar(64)', (c) => c.notNull())
        .addColumn('entry_id', 'bigint', (c) => c.notNull())
        .addColumn('actor', 'varchar(64)', (c) => c.notNull())
        .addColumn('request_id', 'varchar(128)', (c) => c.notNull())
        // JSON texts: the entry as responses show it (no write-only field), or NULL.
        .addColumn('before_json', 'text')
        .addColumn('after_json', 'text')
        .addColumn('secrets_changed_json', 'varchar(255)', (c) => c.notNull()),
    )
    .execute();
  // An entry's history, newest first, without reading anyone else's.
  await db.schema.createIndex('change_log_entry_idx').on('change_log').columns(['resource', 'entry_id', 'id']).execute();
  await db.schema
    .createTable('change_log_state')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('last_id', 'bigint', (c) => c.notNull())
    .execute();
  await db.insertInto('change_log_state').values({ id: 1, last_id: 0 }).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('change_log_state').execute();
  await db.schema.dropTable('change_log').execute();
}
