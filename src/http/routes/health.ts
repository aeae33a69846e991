// Liveness and readiness for orchestrators and load balancers. /healthz says the process
// answers at all (restart it if not); /readyz says it can serve requests now, that is the
// database answers (send it no traffic while not).
import type { FastifyInstance } from 'fastify';
import { apiError } from '../../errors/api-error.js';
import { probeRoute } from './probe-route.js';

// Below the usual probe timeouts (Kubernetes: 1 s default, often raised to a few seconds)
// and below DATABASE_CONNECT_TIMEOUT_MS, so a missing database is reported, not waited for.
const READY_TIMEOUT_MS = 2000;

export default async function healthRoutes(app: FastifyInstance): Promise<void> {
  probeRoute(app, '/healthz', async () => ({ status: 'ok', uptimeSeconds: Math.round(process.uptime()) }));

  probeRoute(app, '/readyz', async (request) => {
    try {
      await app.database.ping(READY_TIMEOUT_MS);
    } catch (error) {
      request.log.warn({ err: error }, 'not ready: the database did not answer');
      throw apiError('UNAVAILABLE', 'database.unavailable');
    }
    return { status: 'ready' };
  });
}
