// Brings a database to the latest schema. Kysely's migrator takes a lock (on SQLite: the
// write lock of its BEGIN IMMEDIATE transaction), so instances that start together on one
// database migrate it once. Each migration is handed the dialect's DDL helpers. A database
// opened read-only is only checked: which migrations it lacks.
import { Migrator, type Kysely, type Migration as KyselyMigration } from 'kysely';
import type { Database } from './database-schema.js';
import type { Ddl, Migration } from './migrations/ddl.js';
import { MIGRATIONS } from './migrations/index.js';

export class MigrationError extends Error {}

function migratorFor(db: Kysely<Database>, ddl: Ddl, migrations: Readonly<Record<string, Migration>>): Migrator {
  const withDdl: Record<string, KyselyMigration> = {};
  for (const [name, migration] of Object.entries(migrations)) {
    const down = migration.down;
    withDdl[name] = { up: (database) => migration.up(database, ddl), ...(down === undefined ? {} : { down: (database) => down(database, ddl) }) };
  }
  return new Migrator({
    db,
    provider: { getMigrations: async () => withDdl },
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
  });
}

export async function migrateToLatest(
  db: Kysely<Database>,
  ddl: Ddl,
  migrations: Readonly<Record<string, Migration>> = MIGRATIONS,
): Promise<string[]> {
  const { error, results = [] } = await migratorFor(db, ddl, migrations).migrateToLatest();
  const failed = results.find((r) => r.status === 'Error');
  if (error !== undefined || failed !== undefined) {
    const name = failed?.migrationName ?? 'unknown migration';
    throw new MigrationError(`migration ${name} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  return results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** The migrations not yet applied, found by reading only (for a database opened read-only). */
export async function pendingMigrations(
  db: Kysely<Database>,
  ddl: Ddl,
  migrations: Readonly<Record<string, Migration>> = MIGRATIONS,
): Promise<string[]> {
  const known = await migratorFor(db, ddl, migrations).getMigrations();
  return known.filter((migration) => migration.executedAt === undefined).map((migration) => migration.name);
}
