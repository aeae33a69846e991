// The generic routes of `/{lang}/api/config/{resource}[/{id}[/restore]]`: no code per table. Each
// request is handed to the pipeline (src/pipeline/handle-request.ts), which reads top to
// bottom: parse, plan, execute, respond.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { handleRequest, type PipelineContext } from '../../pipeline/handle-request.js';
import type { HeavyWorkGate } from '../../pipeline/heavy-work-gate.js';
import type { HttpInput } from '../../pipeline/parse-request.js';
import type { RequestTarget } from '../../pipeline/request-target.js';
import { endpointRoute } from './endpoint-route.js';

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
    // Set by the authorization hook on every request that reaches a route.
    caller: request.caller!,
    requestId: request.id,
  };
}

export default async function configApiRoutes(app: FastifyInstance, { heavyWork }: { heavyWork: HeavyWorkGate }): Promise<void> {
  const context: PipelineContext = { registry: app.registry, store: app.store, cache: app.entryCache, lists: app.listCache, readOnly: app.readOnly, heavyWork };
  const handle = (target: RequestTarget, request: FastifyRequest) => handleRequest(context, target, httpInput(request));
  endpointRoute(app, app.registry, '/:lang/api/config/:resource', 'collection', handle);
  endpointRoute(app, app.registry, '/:lang/api/config/:resource/:id', 'item', handle);
  endpointRoute(app, app.registry, '/:lang/api/config/:resource/:id/restore', 'restore', handle);
}
