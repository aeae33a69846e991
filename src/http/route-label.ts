// Metrics and logs name a request by the route that served it — the pattern, never the raw
// URL — so that ids, typos and scanners do not each create a label value or leak a path.
import type { FastifyRequest } from 'fastify';

/** What a request that matched no route is called. */
export const UNMATCHED_ROUTE = 'unmatched';

export function routeLabel(request: FastifyRequest): string {
  return request.routeOptions.url ?? UNMATCHED_ROUTE;
}
