// The endpoints the pipeline answers (src/pipeline/handle-request.ts: parse, plan, execute,
// respond): every endpoint under /{lang}/api/ but the served documents (the OpenAPI document,
// the docs page). The route hands the pipeline the parts of the HTTP request it reads, and
// nothing more: no route does database work of its own. Its handlers are marked
// (handsToPipeline), which test/route-factories.test.ts reads.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { handleRequest, type PipelineContext } from '../../pipeline/handle-request.js';
import type { HttpInput } from '../../pipeline/parse-request.js';
import type { Endpoint, RequestTarget } from '../../pipeline/request-target.js';
import { endpointRoute, type EndpointBody } from './endpoint-route.js';
import { handsToPipeline } from './route-factories.js';

function lastEventId(request: FastifyRequest): string | undefined {
  const header = request.headers['last-event-id'];
  return typeof header === 'string' ? header : undefined;
}

function httpInput(request: FastifyRequest): HttpInput {
  const { url } = request;
  const mark = url.indexOf('?');
  return {
    method: request.method,
    query: request.query as Record<string, unknown>,
    // What Fastify parsed `query` from.
    rawQuery: mark === -1 ? '' : url.slice(mark + 1),
    body: request.body,
    ifMatch: request.headers['if-match'],
    ifNoneMatch: request.headers['if-none-match'],
    accept: request.headers.accept,
    lastEventId: lastEventId(request),
    // Set by the authorization hook on every request that reaches a route.
    caller: request.caller!,
    requestId: request.id,
  };
}

/** Registers the routes of these endpoints, each handed to the pipeline; `body` for an
 * endpoint that takes another body than JSON within the common limit (the apply). */
export function pipelineRoutes(
  app: FastifyInstance,
  context: PipelineContext,
  routes: readonly (readonly [url: string, endpoint: Endpoint])[],
  config: { admin?: true } = {},
  body: EndpointBody = {},
): void {
  const handle = handsToPipeline((target: RequestTarget, request: FastifyRequest) => handleRequest(context, target, httpInput(request)));
  for (const [url, endpoint] of routes) endpointRoute(app, context.registry, url, endpoint, handle, config, body);
}
