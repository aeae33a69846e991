// GET /metrics: the Prometheus text exposition of the metrics plugin's registry.
import type { FastifyInstance } from 'fastify';
import { apiError } from '../http/api-error.js';
import { operationsRoute } from './operations-route.js';

export default async function metricsRoutes(app: FastifyInstance): Promise<void> {
  operationsRoute(app, '/metrics', async (request, reply) => {
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
