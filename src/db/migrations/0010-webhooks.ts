// Frozen. Webhooks (contract section 16): the webhooks, their deliveries, and the one row that
// says how far into the change log deliveries were made.
//
// A delivery is a row from the moment its change is read from the log until its records
// expire: pending, retrying, succeeded or failed, with its attempts as a JSON array. An
// instance claims a due delivery by writing its own name and a lease expiry on the row (in a
// transaction that skips rows other instances hold locked, where the database can); an
// instance that dies leaves its lease to expire, and another takes the delivery over. The
// signing secrets and the extra headers' values are sealed with SECRET_KEY.
import type { Kysely } from 'kysely';
import type { Ddl } from './ddl.js';

export async function up(db: Kysely<any>, ddl: Ddl): Promise<void> {
  await ddl
    .createEntryTable(db, 'webhooks', (t) =>
      t
        .addColumn('name', 'varchar(100)', (c) => c.notNull())
        .addColumn('url', 'varchar(2048)', (c) => c.notNull())
        // JSON arrays of names; [] subscribes to all.
        .addColumn('resources', 'text', (c) => c.notNull())
        .addColumn('actions', 'text', (c) => c.notNull())
        .addColumn('enabled', 'integer', (c) => c.notNull())
        // A JSON array of the extra headers' names; their values are sealed in header_values.
        .addColumn('header_names', 'text', (c) => c.notNull())
        .addColumn('header_values', 'text')
        .addColumn('secret', 'text', (c) => c.notNull())
        // The secret before the last rotation, signed with too until previous_secret_until.
        .addColumn('previous_secret', 'text')
        .addColumn('previous_secret_until', 'varchar(32)')
        .addColumn('failing_since', 'varchar(32)')
        .addColumn('disabled_reason', 'varchar(255)')
        // The last change id when the webhook was made: older changes are not its own.
        .addColumn('since_change_id', 'bigint', (c) => c.notNull())
        .addUniqueConstraint('webhooks_name_unique', ['name']),
    )
    .execute();
  await ddl
    .createEntryTable(db, 'webhook_deliveries', (t) =>
      t
        .addColumn('webhook_id', 'integer', (c) => c.notNull())
        .addColumn('change_id', 'bigint')
        .addColumn('type', 'varchar(100)', (c) => c.notNull())
        // The request body, the same for every attempt.
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('status', 'varchar(16)', (c) => c.notNull())
        .addColumn('attempts', 'text', (c) => c.notNull())
        .addColumn('next_attempt_at', 'varchar(32)')
        .addColumn('lease_owner', 'varchar(64)')
        .addColumn('lease_until', 'varchar(32)'),
    )
    .execute();
  // Due deliveries, soonest first; one webhook's deliveries, newest first.
  await db.schema.createIndex('webhook_deliveries_due_idx').on('webhook_deliveries').columns(['status', 'next_attempt_at', 'id']).execute();
  await db.schema.createIndex('webhook_deliveries_webhook_idx').on('webhook_deliveries').columns(['webhook_id', 'id']).execute();
  await db.schema
    .createTable('webhook_state')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('last_change_id', 'bigint', (c) => c.notNull())
    .execute();
  // Deliveries start from the changes made after this migration.
  const last = await db.selectFrom('change_log_state').select('last_id').where('id', '=', 1).executeTakeFirst();
  await db.insertInto('webhook_state').values({ id: 1, last_change_id: last?.last_id ?? 0 }).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_state').execute();
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhooks').execute();
}
