// Opens the database named by DATABASE_URL, brings its schema up to date, and closes it
// when the app closes.
import fp from 'fastify-plugin';
import { ConfigError, connectOptions, type Config } from '../config.js';
import { connectDatabase, type DatabaseHandle } from '../db/connect.js';
import { migrateToLatest } from '../db/migrate.js';
import { ResourceStore } from '../db/resource-store.js';
import { EntryCache } from '../pipeline/entry-cache.js';
import { RESOURCES } from '../registry/resources.js';

declare module 'fastify' {
  interface FastifyInstance {
    store: ResourceStore;
    /** Serialized entries for GET by id; undefined where the backend cannot keep one coherent. */
    entryCache: EntryCache | undefined;
    /** For readiness and pool metrics; requests go through `store`. */
    database: DatabaseHandle;
  }
}

export default fp<{ config: Config }>(
  async (app, { config }) => {
    const handle = connectDatabase(config.databaseUrl, connectOptions(config));
    app.addHook('onClose', async () => {
      await handle.db.destroy();
    });
    const applied = await migrateToLatest(handle.db);
    app.log.info({ database: handle.description, migrationsApplied: applied }, 'database ready');
    const store = new ResourceStore(handle, app.secretBox);
    if (!(await store.secretsReadable(RESOURCES))) {
      throw new ConfigError(
        'the encryption key (SECRET_KEY or SECRET_KEY_FILE) is not the one that sealed the stored SSH private keys; start with the original key',
      );
    }
    app.decorate('store', store);
    const marker = handle.changeMarker;
    app.decorate('entryCache', marker !== undefined && config.entryCacheSize > 0 ? new EntryCache(config.entryCacheSize, marker) : undefined);
    app.decorate('database', handle);
  },
  { name: 'database', dependencies: ['secret-box'] },
);
