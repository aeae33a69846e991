// Every route of the service is made by one of two factories: endpointRoute (every endpoint
// of the API, resolved and answered the same way, driver errors mapped in one place) and
// probeRoute (/healthz, /readyz, /metrics). A route registered any other way (`app.get`,
// `app.route`, a plugin's own routes) would skip what they guarantee: the 405 with Allow,
// the 415 before the body is read, the mapping of driver errors, the metrics label. The
// guard below stops the start on one, naming it.
import type { FastifyInstance, RouteHandlerMethod } from 'fastify';

export type RouteFactory = 'endpoint' | 'probe';

// Keyed by the handler each factory makes (one per route): only a factory can put one here.
const MADE_BY = new WeakMap<object, RouteFactory>();

/** Marks `handler` as made by `factory`; returns it. */
export function madeBy<T extends RouteHandlerMethod>(factory: RouteFactory, handler: T): T {
  MADE_BY.set(handler, factory);
  return handler;
}

// The handlers that hand every request to the pipeline (handleRequest): marked by
// pipelineRoutes, the one place that makes them, so that a test can tell an endpoint of the
// API answered by the pipeline from one with a handler of its own.
const TO_PIPELINE = new WeakSet<object>();

/** Marks `handler` as one that hands its requests to the pipeline; returns it. */
export function handsToPipeline<T extends object>(handler: T): T {
  TO_PIPELINE.add(handler);
  return handler;
}

/** Whether a handler hands its requests to the pipeline. */
export function isHandedToPipeline(handler: unknown): boolean {
  return typeof handler === 'object' || typeof handler === 'function' ? TO_PIPELINE.has(handler as object) : false;
}

/** The factory that made a route's handler, if one did. */
export function routeFactoryOf(handler: unknown): RouteFactory | undefined {
  return typeof handler === 'function' ? MADE_BY.get(handler) : undefined;
}

/** A route the guard let through, and the factory that made it. */
export interface FactoryRoute {
  readonly url: string;
  readonly methods: readonly string[];
  readonly factory: RouteFactory;
  /** Its requests go through the pipeline (handleRequest). */
  readonly pipeline: boolean;
}

const ADMITTED = new WeakMap<FastifyInstance, FactoryRoute[]>();

/** The routes of `app` the guard let through, in the order they were registered (what a test
 * compares with the routes Fastify lists). */
export function admittedRoutes(app: FastifyInstance): readonly FactoryRoute[] {
  return ADMITTED.get(app) ?? [];
}

/** From now on, a route of `app` (or of a plugin registered in it) not made by a factory
 * throws when it is registered, which stops the start. */
export function refuseRoutesOutsideFactories(app: FastifyInstance): void {
  const admitted: FactoryRoute[] = [];
  ADMITTED.set(app, admitted);
  app.addHook('onRoute', (route) => {
    const factory = routeFactoryOf(route.handler);
    if (factory !== undefined) {
      admitted.push({ url: route.url, methods: Array.isArray(route.method) ? [...route.method] : [route.method], factory, pipeline: isHandedToPipeline(route.handler) });
      return;
    }
    const methods = Array.isArray(route.method) ? route.method.join(',') : route.method;
    throw new Error(
      `the route ${methods} ${route.url} is registered outside the route factories; register it with endpointRoute (src/http/routes/endpoint-route.ts), or probeRoute for a probe`,
    );
  });
}
