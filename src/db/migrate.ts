// Brings a database to the latest schema. Kysely's migrator takes a lock (on SQLite: the
// write lock of its BEGIN IMMEDIATE transaction), so instances that start together on one
// database migrate it once. Each migration is handed the dialect's DDL helpers. A database
// opened read-only is only checked: which migrations it lacks.
import { Migrator, type Kysely, type Migration as KyselyMigration } from 'kysely';
import { ConfigError } from '../errors/config-error.js';
import type { Database } from './database-schema.js';
import type { Ddl, Migration } from './migrations/ddl.js';
import { MIGRATIONS } from './migrations/index.js';

export class MigrationError extends Error {}

const MIGRATION_TABLE = 'schema_migrations';

/** Migrations the database has applied that this code does not have: a newer version of the
 * service migrated it, and this one would misread its tables. */
async function appliedButUnknown(db: Kysely<Database>, migrations: Readonly<Record<string, Migration>>): Promise<string[]> {
  const tables = await db.introspection.getTables();
  if (!tables.some((table) => table.name === MIGRATION_TABLE)) return [];
  const rows = await (db as unknown as Kysely<Record<typeof MIGRATION_TABLE, { name: string }>>).selectFrom(MIGRATION_TABLE).select('name').execute();
  return rows.map((row) => row.name).filter((name) => !Object.hasOwn(migrations, name));
}

function migratorFor(db: Kysely<Database>, ddl: Ddl, migrations: Readonly<Record<string, Migration>>): Migrator {
  const withDdl: Record<string, KyselyMigration> = {};
  for (const [name, migration] of Object.entries(migrations)) {
    const down = migration.down;
    withDdl[name] = { up: (database) => migration.up(database, ddl), ...(down === undefined ? {} : { down: (database) => down(database, ddl) }) };
  }
  return new Migrator({
    db,
    provider: { getMigrations: async () => withDdl },
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: 'schema_migrations_lock',
  });
}

export async function migrateToLatest(
  db: Kysely<Database>,
  ddl: Ddl,
  migrations: Readonly<Record<string, Migration>> = MIGRATIONS,
): Promise<string[]> {
  const unknown = await appliedButUnknown(db, migrations);
  if (unknown.length > 0) {
    throw new ConfigError(
      `the database schema is newer than this version of the service (applied migrations unknown here: ${unknown.join(', ')}); ` +
        'run the version that applied them, or point DATABASE_URL at a database made by this one',
    );
  }
  const { error, results = [] } = await migratorFor(db, ddl, migrations).migrateToLatest();
  const failed = results.find((r) => r.status === 'Error');
  if (failed !== undefined) {
    throw new MigrationError(`migration ${failed.migrationName} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  // No migration of ours failed: the database itself did (out of reach …), for the caller to say.
  if (error !== undefined) throw error;
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
