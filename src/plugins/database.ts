// Opens the database named by DATABASE_URL, brings its schema up to date, and closes it
// when the app closes.
import fp from 'fastify-plugin';
import type { Config } from '../config.js';
import { connectDatabase } from '../db/connect.js';
import { migrateToLatest } from '../db/migrate.js';
import { ResourceStore } from '../db/resource-store.js';

declare module 'fastify' {
  interface FastifyInstance {
    store: ResourceStore;
  }
}

export default fp<{ config: Config }>(
  async (app, { config }) => {
    const handle = connectDatabase(config.databaseUrl, { sqliteSynchronous: config.sqliteSynchronous });
    app.addHook('onClose', async () => {
      await handle.db.destroy();
    });
    const applied = await migrateToLatest(handle.db);
    app.log.info({ database: handle.description, migrationsApplied: applied }, 'database ready');
    app.decorate('store', new ResourceStore(handle, app.secretBox));
  },
  { name: 'database', dependencies: ['secret-box'] },
);
