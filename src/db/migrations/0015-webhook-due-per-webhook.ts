// Frozen. Due webhook deliveries by webhook, in the order they are claimed: a claim reads each
// webhook's due deliveries on their own, as many as that webhook may take, instead of one
// walk of every due delivery in order (0013's index, dropped here). With one webhook at its
// share of the slots, that walk went past all its due deliveries (a backlog of thousands) to
// find the other webhooks' few, at every claim.
import type { Kysely } from 'kysely';
import type { Ddl } from './ddl.js';

export async function up(db: Kysely<any>, ddl: Ddl): Promise<void> {
  await db.schema.createIndex('webhook_deliveries_webhook_due_idx').on('webhook_deliveries').columns(['webhook_id', 'next_attempt_at', 'id']).execute();
  await ddl.dropIndex(db, 'webhook_deliveries', 'webhook_deliveries_next_attempt_idx');
}

export async function down(db: Kysely<any>, ddl: Ddl): Promise<void> {
  await db.schema.createIndex('webhook_deliveries_next_attempt_idx').on('webhook_deliveries').columns(['next_attempt_at', 'id']).execute();
  await ddl.dropIndex(db, 'webhook_deliveries', 'webhook_deliveries_webhook_due_idx');
}
