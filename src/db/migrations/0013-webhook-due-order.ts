// Frozen. Due webhook deliveries in the order they are claimed: by next_attempt_at, then id.
// A finished delivery has no next attempt (null), so this index holds only the waiting ones
// in order, and a claim reads from its start instead of sorting every waiting delivery
// (the status-first index of 0010 made each claim sort them all).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('webhook_deliveries_next_attempt_idx').on('webhook_deliveries').columns(['next_attempt_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_next_attempt_idx').on('webhook_deliveries').execute();
}
