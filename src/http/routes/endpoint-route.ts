// Every route of the API's paths serves one endpoint for all methods, so that a wrong method
// is a 405 and not a 404. The path is resolved (parse, first part) before the body is read.
// What an endpoint throws is mapped here, once for all of them: a driver error becomes the
// contract's answer (pipeline/database-errors.ts). Only this factory and probeRoute may
// register routes (route-factories.ts).
import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { apiError } from '../../errors/api-error.js';
import { asApiError } from '../../pipeline/database-errors.js';
import type { Outcome } from '../../pipeline/respond.js';
import { ALLOWED_METHODS, resolveTarget, TAKES_BODY, type Endpoint, type RequestTarget } from '../../pipeline/request-target.js';
import type { Registry } from '../../registry/registry.js';
import { handsToPipeline, isHandedToPipeline, madeBy } from './route-factories.js';

declare module 'fastify' {
  interface FastifyRequest {
    target: RequestTarget | null;
  }
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
// What Fastify would have said for an object body; the pipeline hands over JSON text.
const JSON_TYPE = 'application/json; charset=utf-8';

const JSON_ONLY: readonly string[] = ['application/json'];

function mediaTypeOf(contentType: string | undefined): string | undefined {
  return contentType?.split(';', 1)[0]?.trim().toLowerCase();
}

/** What an endpoint takes beyond the rule of every other: another body limit (BODY_LIMIT
 * otherwise), other media types (JSON only otherwise; each needs a parser in the route's plugin). */
export interface EndpointBody {
  readonly limit?: number;
  readonly mediaTypes?: readonly string[];
}

export function endpointRoute(
  app: FastifyInstance,
  registry: Registry,
  url: string,
  endpoint: Endpoint,
  handle: (target: RequestTarget, request: FastifyRequest, reply: FastifyReply) => Promise<Outcome>,
  config: FastifyContextConfig = {},
  body: EndpointBody = {},
): void {
  const mediaTypes = body.mediaTypes ?? JSON_ONLY;
  const handler = madeBy('endpoint', async (request: FastifyRequest, reply: FastifyReply) => {
    let outcome: Outcome;
    try {
      outcome = await handle(request.target!, request, reply);
      // The change stream: written to the connection by hand from here (respond.ts).
      if (outcome.handOver !== undefined) {
        await outcome.handOver({ request, reply });
        return reply;
      }
    } catch (error) {
      throw asApiError(app.store, error);
    }
    if (outcome.headers !== undefined) reply.headers(outcome.headers);
    reply.code(outcome.status);
    if (outcome.body !== undefined && outcome.headers?.['content-type'] === undefined) reply.type(JSON_TYPE);
    return reply.send(outcome.body);
  });
  if (isHandedToPipeline(handle)) handsToPipeline(handler);
  app.route({
    method: app.supportedMethods,
    url,
    config,
    ...(body.limit === undefined ? {} : { bodyLimit: body.limit }),
    // Callback style, as the plugins' hooks: no promise per request.
    onRequest: (request, reply, done) => {
      try {
        request.target = resolveTarget(registry, endpoint, request.params as Record<string, string>, request.method);
        // Checked before the body is read, so that a body in another format is a clean 415.
        if (TAKES_BODY[endpoint] && BODY_METHODS.has(request.method) && !mediaTypes.includes(mediaTypeOf(request.headers['content-type']) ?? '')) {
          throw apiError('UNSUPPORTED_MEDIA_TYPE', mediaTypes === JSON_ONLY ? 'body.mediaType' : 'body.mediaTypeDocument');
        }
      } catch (error) {
        done(error as Error);
        return;
      }
      // Answered here: the request goes no further, so done() is not called.
      if (request.method === 'OPTIONS') reply.code(204).header('allow', ALLOWED_METHODS[endpoint].join(', ')).send();
      else done();
    },
    handler,
  });
}
