// GET /metrics: the Prometheus text exposition of the metrics plugin's registry.
import type { FastifyInstance } from 'fastify';
import { apiError } from '../../errors/api-error.js';
import { probeRoute } from './probe-route.js';

export default async function metricsRoutes(app: FastifyInstance): Promise<void> {
  probeRoute(app, '/metrics', async (request, reply) => {
    let text: string;
    try {
      text = await app.metrics.render();
    } catch (error) {
      request.log.warn({ err: error }, 'metrics could not be gathered');
      throw apiError('UNAVAILABLE', 'metrics.unavailable');
    }
    return reply.type(app.metrics.contentType).send(text);
  });
}
