// The generic routes of `/{lang}/api/config/{resource}[/{id}]`: no code per table. Each
// request goes parse (resolveTarget) -> plan and execute (ResourceOperations) -> respond.
import type { FastifyInstance } from 'fastify';
import { ResourceOperations } from '../pipeline/resource-operations.js';
import { routeShape } from './route-shape.js';

export default async function configApiRoutes(app: FastifyInstance): Promise<void> {
  const operations = new ResourceOperations(app.store);
  routeShape(app, '/:lang/api/config/:resource', 'collection', (target, request) =>
    request.method === 'POST'
      ? operations.write(target, 'create', request.body)
      : operations.list(target, request.query as Record<string, unknown>),
  );

  routeShape(app, '/:lang/api/config/:resource/:id', 'item', (target, request) => {
    switch (request.method) {
      case 'PUT':
        return operations.write(target, 'replace', request.body);
      case 'PATCH':
        return operations.write(target, 'patch', request.body);
      case 'DELETE':
        return operations.remove(target);
      default:
        return operations.read(target);
    }
  });
}
