// The shape shared by /healthz, /readyz and /metrics: read-only, outside the language
// prefix, and marked `operations` (public, logged at debug). Every method is routed here so
// that a wrong one is a 405 with Allow, as on the API's own paths.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../http/api-error.js';
import { message } from '../http/messages.js';

const ALLOWED = ['GET', 'HEAD'];

export function operationsRoute(
  app: FastifyInstance,
  url: string,
  handler: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
): void {
  app.route({
    method: app.supportedMethods,
    url,
    config: { operations: true },
    handler: async (request, reply) => {
      if (!ALLOWED.includes(request.method)) {
        const allow = ALLOWED.join(', ');
        if (request.method === 'OPTIONS') return reply.code(204).header('allow', allow).send();
        throw new ApiError('METHOD_NOT_ALLOWED', message('method.notAllowed', { method: request.method, allow }), [], { allow });
      }
      // A probe must see the state of now, never a cached answer.
      reply.header('cache-control', 'no-store');
      return handler(request, reply);
    },
  });
}
