// Opens the database named by DATABASE_URL, brings it to what the registry needs (schema and
// count rows), checks the key against the stored secrets and that the database stores writes
// (or, with READ_ONLY=true, opens it read-only and only checks it), and closes it when the
// app closes.
import fp from 'fastify-plugin';
import type { FastifyBaseLogger } from 'fastify';
import { connectOptions, type Config } from '../../config/config.js';
import { connectDatabase, type DatabaseHandle, type StorageFault } from '../../db/connect.js';
import type { Migration } from '../../db/migrations/ddl.js';
import { ConfigError } from '../../errors/config-error.js';
import { EntryCache, ListCache } from '../../pipeline/read-through-store.js';
import type { Registry } from '../../registry/registry.js';
import { checkPrepared, prepareDatabase } from '../../store/prepare-database.js';
import { ResourceStore } from '../../store/resource-store.js';
import { DiskWatch, formatBytes, storageFaultOf, type DiskSpace } from '../../store/storage-health.js';
import { secretsReadable } from '../../store/stored-secrets.js';

declare module 'fastify' {
  interface FastifyInstance {
    store: ResourceStore;
    /** Serialized entries for GET by id; undefined where the backend cannot keep one coherent. */
    entryCache: EntryCache | undefined;
    listCache: ListCache | undefined;
    /** For readiness and pool metrics; requests go through `store`. */
    database: DatabaseHandle;
    /** READ_ONLY=true: the database is opened read-only and every write is refused. */
    readOnly: boolean;
  }
}

const STATISTICS_REFRESH_MS = 5 * 60_000;

export interface DatabaseOptions {
  config: Config;
  registry: Registry;
  /** Every migration, in order (the service's own unless a test adds one). */
  migrations?: Readonly<Record<string, Migration>>;
}

/** What an operator reads when a start fails on a database that cannot store writes. */
function refusal(handle: DatabaseHandle, fault: StorageFault): ConfigError {
  return new ConfigError(
    fault === 'full'
      ? `the disk of ${handle.description} is full; free space and start again`
      : `${handle.description} refuses writes (a read-only file, folder, server or transaction, or a user without the privilege to write); make it writable, or set READ_ONLY=true to serve reads only`,
  );
}

/** Migrates (or, read-only, only checks) the database; a storage fault is told in one sentence. */
async function prepare(handle: DatabaseHandle, { config, registry, migrations }: DatabaseOptions): Promise<string[]> {
  try {
    if (!config.readOnly) return await prepareDatabase(handle, registry.resources, migrations);
    await checkPrepared(handle, registry.resources, migrations);
    return [];
  } catch (error) {
    const fault = storageFaultOf(handle.failureOf, error);
    if (fault === undefined) throw error;
    throw config.readOnly ? new ConfigError(`${handle.description} refuses even reads to this user`) : refusal(handle, fault);
  }
}

/** The watch of the database's disk (SQLite, written by this service, some threshold on),
 * once it has read the free space a first time. */
async function watchDisk(log: FastifyBaseLogger, handle: DatabaseHandle, config: Config): Promise<DiskWatch | undefined> {
  const folder = handle.dataFolder;
  if (folder === undefined || config.readOnly || (config.diskFloodStage === undefined && config.diskLowWatermark === undefined)) return undefined;
  const said = (space: DiskSpace) => ({ folder, free: formatBytes(space.freeBytes), total: formatBytes(space.totalBytes), floodStage: formatBytes(space.floodBytes) });
  const watch = new DiskWatch({
    folder,
    flood: config.diskFloodStage,
    low: config.diskLowWatermark,
    onLevel: (space, previous) => {
      if (space.level === 'flood') log.error(said(space), 'the database disk is below its flood stage (DISK_FLOOD_STAGE): writes are refused (507) until space is freed');
      else if (space.level === 'low') log.warn(said(space), 'the database disk is below its low watermark (DISK_LOW_WATERMARK)');
      else log.info({ ...said(space), previous }, 'the database disk has room again');
    },
  });
  await watch.fresh();
  return watch;
}

export default fp<DatabaseOptions>(
  async (app, options) => {
    const { config, registry } = options;
    const handle = connectDatabase(config.databaseUrl, { ...connectOptions(config), warn: (message, details) => app.log.warn(details, message) });
    app.addHook('onClose', async () => {
      await handle.db.destroy();
    });
    const applied = await prepare(handle, options);
    if (!(await secretsReadable(handle, registry.resources, app.secretBox))) {
      throw new ConfigError(
        'the encryption key (SECRET_KEY or SECRET_KEY_FILE) is not the one that sealed the stored SSH private keys; start with the original key',
      );
    }
    const disk = await watchDisk(app.log, handle, config);
    const store = new ResourceStore({ handle, secrets: app.secretBox, resources: registry.resources, exactTotalMax: config.listExactTotalMax, disk });
    // A database that refuses writes is refused at start, unless the operator asked for a
    // read-only service. A full disk is not: reads still work, readiness reports the fault,
    // and writes resume by themselves once space is freed.
    const fault = config.readOnly ? undefined : await store.tryWrite();
    if (fault === 'read-only') throw refusal(handle, fault);
    if (fault === 'full') app.log.error({ database: handle.description }, 'the database disk is full: writes are refused (507) until space is freed');
    app.log.info({ database: handle.description, migrationsApplied: applied, readOnly: config.readOnly }, 'database ready');
    app.decorate('readOnly', config.readOnly);
    // The planner needs current statistics to pick the list indexes (a table seeded or grown
    // since it was last analysed could be read whole): refreshed now, then every few minutes.
    // Statistics are written into the database: a read-only one keeps those it has.
    // Statistics are a write (ANALYZE): on a full disk the start goes on without them, as
    // it does for every other write, rather than dying on them with a stack trace.
    if (!config.readOnly) {
      if (fault === undefined) {
        await store.refreshStatistics(registry.resources).catch((error: unknown) => {
          if (storageFaultOf(handle.failureOf, error) === undefined) throw error;
          app.log.warn({ err: error }, 'refreshing planner statistics failed: the database stores no writes now');
        });
      }
      const statistics = setInterval(() => {
        store.refreshStatistics(registry.resources).catch((error: unknown) => app.log.warn({ err: error }, 'refreshing planner statistics failed'));
      }, STATISTICS_REFRESH_MS);
      statistics.unref();
      app.addHook('onClose', async () => clearInterval(statistics));
    }
    app.decorate('store', store);
    const marker = handle.changeMarker;
    app.decorate('entryCache', marker !== undefined && config.entryCacheSize > 0 ? new EntryCache(config.entryCacheSize, marker, registry.resources.map((resource) => resource.table)) : undefined);
    app.decorate('listCache', config.listCacheSize > 0 ? new ListCache(config.listCacheSize) : undefined);
    app.decorate('database', handle);
  },
  { name: 'database', dependencies: ['secret-box'] },
);
