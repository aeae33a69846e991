// Metrics and logs name a request by the route that served it — the pattern, never the raw
// URL — so that ids, typos and scanners do not each create a label value or leak a path.
import type { FastifyRequest } from 'fastify';

/** What a request that matched no route is called. */
export const UNMATCHED_ROUTE = 'unmatched';

export interface RouteFacts {
  /** The route pattern, or UNMATCHED_ROUTE. */
  readonly label: string;
  /** The probes: health, readiness and metrics (their `config.probe`). */
  readonly probe: boolean;
  /** Only an admin token may use the route (the token endpoints; their `config.admin`). */
  readonly admin: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Health, readiness and metrics: public, and logged at debug. */
    probe?: boolean;
    /** The token endpoints: admin tokens only. */
    admin?: boolean;
  }
  interface FastifyRequest {
    routeFacts: RouteFacts | null | undefined;
  }
}

/** Fastify builds a new `routeOptions` object at every read; the facts a request's metrics
 * and log line need are read from it once. Needs `app.decorateRequest('routeFacts', null)`. */
export function routeFacts(request: Pick<FastifyRequest, 'routeFacts' | 'routeOptions'>): RouteFacts {
  // Undefined, not null, on the requests Fastify makes for its own framework errors (an
  // over-long path segment, a bad URL), which skip the decorators.
  if (request.routeFacts === null || request.routeFacts === undefined) {
    const options = request.routeOptions;
    const config = options.config;
    request.routeFacts = { label: options.url ?? UNMATCHED_ROUTE, probe: config?.probe === true, admin: config?.admin === true };
  }
  return request.routeFacts;
}

export function routeLabel(request: FastifyRequest): string {
  return routeFacts(request).label;
}
