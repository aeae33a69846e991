// Frozen. Managed API tokens (contract section 14): one row per token with its keyed digest
// (never the token), and one row of shared state: a generation that every creation and
// revocation moves, so that every instance on the database learns of a change by reading one
// number, and a check value of the key the digests were made with.
import type { Kysely } from 'kysely';
import type { Ddl } from './ddl.js';

export async function up(db: Kysely<any>, ddl: Ddl): Promise<void> {
  await ddl
    .createEntryTable(db, 'api_tokens', (t) =>
      t
        .addColumn('name', 'varchar(64)', (c) => c.notNull())
        .addColumn('scope', 'varchar(8)', (c) => c.notNull())
        // HMAC-SHA-256 under the token key, base64url.
        .addColumn('digest', 'varchar(64)', (c) => c.notNull())
        .addColumn('expires_at', 'varchar(32)')
        // A JSON array of CIDR ranges, or NULL for any address.
        .addColumn('allowed_ips', 'text')
        .addColumn('last_used_at', 'varchar(32)')
        .addUniqueConstraint('api_tokens_name_unique', ['name'])
        .addUniqueConstraint('api_tokens_digest_unique', ['digest']),
    )
    .execute();
  await db.schema
    .createTable('api_token_state')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('generation', 'integer', (c) => c.notNull())
    .addColumn('key_check', 'varchar(64)')
    .execute();
  await db.insertInto('api_token_state').values({ id: 1, generation: 0, key_check: null }).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('api_token_state').execute();
  await db.schema.dropTable('api_tokens').execute();
}
