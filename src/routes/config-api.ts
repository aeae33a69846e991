// The generic routes of `/{lang}/api/config/{resource}[/{id}]`: no code per table. Each
// request goes parse (resolveTarget) -> plan and execute (ResourceOperations) -> respond.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { apiError } from '../http/api-error.js';
import { ResourceOperations, type Preconditions } from '../pipeline/resource-operations.js';
import { routeShape } from './route-shape.js';

function preconditionsOf(request: FastifyRequest): Preconditions {
  return { ifMatch: request.headers['if-match'], ifNoneMatch: request.headers['if-none-match'] };
}

/** Only lists take query parameters; elsewhere one is a mistake worth saying, not ignoring. */
function refuseQuery(request: FastifyRequest): void {
  const [name] = Object.keys(request.query as object);
  if (name !== undefined) throw apiError('BAD_QUERY', 'query.unknown', { parameter: name });
}

export default async function configApiRoutes(app: FastifyInstance): Promise<void> {
  const operations = new ResourceOperations(app.store, app.entryCache);
  routeShape(app, '/:lang/api/config/:resource', 'collection', async (target, request) => {
    if (request.method !== 'POST') return operations.list(target, request.query as Record<string, unknown>);
    refuseQuery(request);
    return operations.write(target, 'create', request.body);
  });

  routeShape(app, '/:lang/api/config/:resource/:id', 'item', async (target, request) => {
    refuseQuery(request);
    const preconditions = preconditionsOf(request);
    switch (request.method) {
      case 'PUT':
        return operations.write(target, 'replace', request.body, preconditions);
      case 'PATCH':
        return operations.write(target, 'patch', request.body, preconditions);
      case 'DELETE':
        return operations.remove(target, preconditions);
      default:
        return operations.read(target, preconditions);
    }
  });
}
