// Frozen: the schema as first released. Never change what a migration that has shipped does;
// add one. It imports nothing from the application, so that later code changes cannot alter
// it; what differs between dialects comes from the DDL helpers it is handed (the same
// statements it has always run).
import type { Kysely } from 'kysely';
import type { Ddl, TableBuilder } from './ddl.js';

// Seed rows carry fixed timestamps so that every database is born identical.
const BORN = '2026-01-01T00:00:00.000Z';

export async function up(db: Kysely<any>, ddl: Ddl): Promise<void> {
  const create = (name: string, columns: (table: TableBuilder) => TableBuilder): TableBuilder => ddl.createEntryTable(db, name, columns);

  await create('tags', (t) =>
    t
      .addColumn('name', 'varchar(50)', (c) => c.notNull())
      .addColumn('color', 'varchar(7)', (c) => c.notNull())
      .addColumn('background', 'varchar(7)', (c) => c.notNull())
      .addUniqueConstraint('tags_name_unique', ['name']),
  ).execute();

  await create('clients', (t) =>
    t
      .addColumn('libelle', 'varchar(100)', (c) => c.notNull())
      .addColumn('logo', 'varchar(250)', (c) => c.notNull())
      .addColumn('is_monitored', 'integer', (c) => c.notNull())
      .addUniqueConstraint('clients_libelle_unique', ['libelle']),
  ).execute();

  await create('environments', (t) =>
    t
      .addColumn('libelle', 'varchar(20)', (c) => c.notNull())
      .addColumn('key', 'varchar(13)', (c) => c.notNull())
      .addColumn('class', 'varchar(16)', (c) => c.notNull())
      .addColumn('letter', 'varchar(4)', (c) => c.notNull())
      .addUniqueConstraint('environments_libelle_unique', ['libelle'])
      .addUniqueConstraint('environments_key_unique', ['key']),
  ).execute();

  await create('servers', (t) =>
    t
      .addColumn('ip', 'varchar(255)', (c) => c.notNull())
      .addColumn('port', 'integer', (c) => c.notNull())
      .addColumn('hostname', 'varchar(200)', (c) => c.notNull())
      .addColumn('ssl', 'integer', (c) => c.notNull())
      .addColumn('ssh', 'integer', (c) => c.notNull())
      .addColumn('is_proxy', 'integer', (c) => c.notNull())
      .addColumn('is_vip', 'integer', (c) => c.notNull())
      .addColumn('is_monitored', 'integer', (c) => c.notNull())
      .addColumn('is_deleted', 'integer', (c) => c.notNull())
      // 1 while not deleted, NULL after: NULLs never collide in a unique index, so
      // (ip, port, live) is unique among live servers on every backend.
      .addColumn('live', 'integer')
      .addUniqueConstraint('servers_ip_port_live_unique', ['ip', 'port', 'live']),
  ).execute();

  await create('aliases', (t) =>
    t
      .addColumn('id_mysql_server', 'integer', (c) => c.notNull())
      .addColumn('dns', 'varchar(200)', (c) => c.notNull())
      .addColumn('port', 'integer', (c) => c.notNull())
      .addUniqueConstraint('aliases_dns_port_unique', ['dns', 'port'])
      .addForeignKeyConstraint('aliases_server_fk', ['id_mysql_server'], 'servers', ['id']),
  ).execute();

  await create('ssh_keys', (t) =>
    t
      .addColumn('type', 'varchar(10)', (c) => c.notNull())
      .addColumn('pub', 'text', (c) => c.notNull())
      .addColumn('fingerprint', 'varchar(64)', (c) => c.notNull())
      .addColumn('private_key', 'text', (c) => c.notNull()),
  ).execute();

  await create('storage_areas', (t) =>
    t
      .addColumn('ip', 'varchar(45)', (c) => c.notNull())
      .addColumn('port', 'integer', (c) => c.notNull())
      .addColumn('path', 'varchar(1024)', (c) => c.notNull())
      .addColumn('libelle', 'varchar(64)', (c) => c.notNull())
      .addColumn('ssh_key', 'integer', (c) => c.notNull())
      .addColumn('geolocalisation', 'varchar(250)')
      .addForeignKeyConstraint('storage_areas_ssh_key_fk', ['ssh_key'], 'ssh_keys', ['id']),
  ).execute();

  // Reference look-ups (delete rules) and the live-server filter read these.
  await db.schema.createIndex('aliases_server_idx').on('aliases').column('id_mysql_server').execute();
  await db.schema.createIndex('storage_areas_ssh_key_idx').on('storage_areas').column('ssh_key').execute();
  await db.schema.createIndex('servers_is_deleted_idx').on('servers').column('is_deleted').execute();

  const environments = [
    [1, 'Production', 'prod', 'danger', 'P'],
    [2, 'Preprod', 'preprod', 'warning', 'U'],
    [3, 'Recipe', 'recette', 'default', 'R'],
    [4, 'Integration', 'integration', 'info', 'I'],
    [5, 'Developpement', 'dev', 'success', 'D'],
    [6, 'Test', 'test', 'primary', 'T'],
  ] as const;
  await db
    .insertInto('environments')
    .values(
      environments.map(([id, libelle, key, klass, letter]) => ({
        id, libelle, key, class: klass, letter, created_at: BORN, updated_at: BORN,
      })),
    )
    .execute();
  await db
    .insertInto('clients')
    .values({ id: 99, libelle: 'system', logo: '', is_monitored: 0, created_at: BORN, updated_at: BORN })
    .execute();

  // New rows get ids above the seeds.
  for (const table of ['environments', 'clients']) await ddl.continueIdsAfterSeeds(db, table);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['storage_areas', 'ssh_keys', 'aliases', 'servers', 'environments', 'clients', 'tags']) {
    await db.schema.dropTable(table).execute();
  }
}
