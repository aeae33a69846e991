// Opens the database named by DATABASE_URL, brings it to what the registry needs (schema and
// count rows), checks the key against the stored secrets, and closes it when the app closes.
import fp from 'fastify-plugin';
import { connectOptions, type Config } from '../../config/config.js';
import { connectDatabase, type DatabaseHandle } from '../../db/connect.js';
import type { Migration } from '../../db/migrations/ddl.js';
import { ConfigError } from '../../errors/config-error.js';
import { EntryCache } from '../../pipeline/entry-cache.js';
import type { Registry } from '../../registry/registry.js';
import { prepareDatabase } from '../../store/prepare-database.js';
import { ResourceStore } from '../../store/resource-store.js';
import { secretsReadable } from '../../store/stored-secrets.js';

declare module 'fastify' {
  interface FastifyInstance {
    store: ResourceStore;
    /** Serialized entries for GET by id; undefined where the backend cannot keep one coherent. */
    entryCache: EntryCache | undefined;
    /** For readiness and pool metrics; requests go through `store`. */
    database: DatabaseHandle;
  }
}

const STATISTICS_REFRESH_MS = 5 * 60_000;

export interface DatabaseOptions {
  config: Config;
  registry: Registry;
  /** Every migration, in order (the service's own unless a test adds one). */
  migrations?: Readonly<Record<string, Migration>>;
}

export default fp<DatabaseOptions>(
  async (app, { config, registry, migrations }) => {
    const handle = connectDatabase(config.databaseUrl, connectOptions(config));
    app.addHook('onClose', async () => {
      await handle.db.destroy();
    });
    const applied = await prepareDatabase(handle, registry.resources, migrations);
    app.log.info({ database: handle.description, migrationsApplied: applied }, 'database ready');
    if (!(await secretsReadable(handle, registry.resources, app.secretBox))) {
      throw new ConfigError(
        'the encryption key (SECRET_KEY or SECRET_KEY_FILE) is not the one that sealed the stored SSH private keys; start with the original key',
      );
    }
    const store = new ResourceStore(handle, app.secretBox, config.listExactTotalMax);
    // The planner needs current statistics to pick the list indexes (a table seeded or grown
    // since it was last analysed could be read whole): refreshed now, then every few minutes.
    await store.refreshStatistics(registry.resources);
    const statistics = setInterval(() => {
      store.refreshStatistics(registry.resources).catch((error: unknown) => app.log.warn({ err: error }, 'refreshing planner statistics failed'));
    }, STATISTICS_REFRESH_MS);
    statistics.unref();
    app.addHook('onClose', async () => clearInterval(statistics));
    app.decorate('store', store);
    const marker = handle.changeMarker;
    app.decorate('entryCache', marker !== undefined && config.entryCacheSize > 0 ? new EntryCache(config.entryCacheSize, marker) : undefined);
    app.decorate('database', handle);
  },
  { name: 'database', dependencies: ['secret-box'] },
);
