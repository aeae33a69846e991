// The route shared by the probes /healthz, /readyz and /metrics: read-only, outside the
// language prefix, and marked `probe` (public, logged at debug). Every method is routed here
// so that a wrong one is a 405 with Allow, as on the API's own paths.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { methodNotAllowed } from '../../errors/api-error.js';
import { madeBy } from './route-factories.js';

const ALLOWED = ['GET', 'HEAD'];

export function probeRoute(
  app: FastifyInstance,
  url: string,
  handler: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
): void {
  app.route({
    method: app.supportedMethods,
    url,
    config: { probe: true },
    handler: madeBy('probe', async (request: FastifyRequest, reply: FastifyReply) => {
      if (!ALLOWED.includes(request.method)) {
        if (request.method === 'OPTIONS') return reply.code(204).header('allow', ALLOWED.join(', ')).send();
        throw methodNotAllowed(request.method, ALLOWED);
      }
      // A probe must see the state of now, never a cached answer.
      reply.header('cache-control', 'no-store');
      return handler(request, reply);
    }),
  });
}
