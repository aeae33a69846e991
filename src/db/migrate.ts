// Brings a database to the latest schema. Kysely's migrator takes a lock (on SQLite: the
// write lock of its BEGIN IMMEDIATE transaction), so instances that start together on one
// database migrate it once.
import { Migrator, type Kysely } from 'kysely';
import type { Database } from './database-schema.js';
import { MIGRATIONS } from './migrations/index.js';

export class MigrationError extends Error {}

export async function migrateToLatest(db: Kysely<Database>): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => MIGRATIONS },
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
  });
  const { error, results = [] } = await migrator.migrateToLatest();
  const failed = results.find((r) => r.status === 'Error');
  if (error !== undefined || failed !== undefined) {
    const name = failed?.migrationName ?? 'unknown migration';
    throw new MigrationError(`migration ${name} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  return results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
