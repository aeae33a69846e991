// Liveness and readiness for orchestrators and load balancers. /healthz says the process
// answers at all (restart it if not); /readyz says it can serve requests now: the database
// answers, and stores writes (send it no traffic while not). A storage fault is reported
// while it lasts, with `fault` naming the code writes get meanwhile (docs/operations.md, Faults).
import type { FastifyInstance } from 'fastify';
import { ApiError, apiError, type ErrorCode } from '../../errors/api-error.js';
import { message, type MessageKey } from '../../messages/messages.js';
import type { StorageFault } from '../../db/connect.js';
import { formatBytes } from '../../store/storage-health.js';
import { probeRoute } from './probe-route.js';

// Below the usual probe timeouts (Kubernetes: 1 s default, often raised to a few seconds)
// and below DATABASE_CONNECT_TIMEOUT_MS, so a missing database is reported, not waited for.
const READY_TIMEOUT_MS = 2000;

const NOT_READY: Record<StorageFault, { key: MessageKey; fault: ErrorCode }> = {
  full: { key: 'readiness.full', fault: 'INSUFFICIENT_STORAGE' },
  'read-only': { key: 'readiness.readOnly', fault: 'READ_ONLY' },
};

export default async function healthRoutes(app: FastifyInstance): Promise<void> {
  probeRoute(app, '/healthz', async () => ({ status: 'ok', uptimeSeconds: Math.round(process.uptime()) }));

  probeRoute(app, '/readyz', async (request) => {
    const started = Date.now();
    try {
      await app.database.ping(READY_TIMEOUT_MS);
    } catch (error) {
      request.log.warn({ err: error }, 'not ready: the database did not answer');
      throw apiError('UNAVAILABLE', 'database.unavailable');
    }
    const fault = await app.store.storageFault(Math.max(READY_TIMEOUT_MS - (Date.now() - started), 0));
    const space = app.store.diskSpace();
    // What /readyz says of the disk: every figure, and the level its thresholds give.
    const disk = space === undefined ? {} : { disk: { freeBytes: space.freeBytes, totalBytes: space.totalBytes, level: space.level } };
    if (fault !== undefined) {
      const { key, fault: code } = NOT_READY[fault];
      request.log.warn({ fault }, 'not ready: the database does not store writes');
      throw new ApiError('UNAVAILABLE', message(key), [], {}, { fault: code, ...disk });
    }
    if (space?.level === 'flood') {
      request.log.warn(disk, 'not ready: the database disk is below its flood stage');
      const params = { free: formatBytes(space.freeBytes), threshold: formatBytes(space.floodBytes) };
      throw new ApiError('UNAVAILABLE', message('readiness.diskFlood', params), [], {}, { fault: 'INSUFFICIENT_STORAGE', ...disk });
    }
    return { status: 'ready', ...(app.readOnly ? { readOnly: true } : {}), ...disk };
  });
}
