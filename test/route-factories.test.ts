// Every route of the service is made by a route factory (src/http/routes/route-factories.ts):
// endpointRoute for every endpoint of the API, so that each is resolved, refused and mapped
// (driver errors) the same way; probeRoute for the probes, and for them alone. The one
// exception to endpointRoute is stated here: the three probes, outside the language prefix.
// A route registered any other way stops the start, naming it. And every endpoint of the API
// (under /{lang}/api/) is answered by the pipeline (handleRequest: parse, plan, execute,
// respond), save the documents stated below.
// @backend-independent (runs once, not once per backend): what routes exist does not depend on the database.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { endpointRoute } from '../src/http/routes/endpoint-route.js';
import { admittedRoutes } from '../src/http/routes/route-factories.js';
import { build } from './support/app.js';

/** The API's routes not answered by the pipeline, and why: the OpenAPI document and the
 * docs page and its files are texts made once at start-up from the registry, which a request
 * only picks (by language and format): no store to read, nothing to plan or execute. The
 * console (/{lang}/console) is not under /api/ and is the same kind of static page. */
const NOT_PIPELINE = ['/:lang/api/docs', '/:lang/api/docs/:asset', '/:lang/api/openApi', '/:lang/api/openApi.yaml'];

/** The routes not made by endpointRoute: the probes, made by probeRoute. */
const PROBES = ['/healthz', '/metrics', '/readyz'];

interface RouteLine {
  readonly url: string;
  readonly methods: readonly string[];
}

/** Every route of `app` with its methods, read from Fastify's own listing (a tree, four
 * characters of indent per level, each line the rest of its parent's path). */
function routesOf(app: FastifyInstance): RouteLine[] {
  const parents: string[] = [];
  const routes: RouteLine[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^((?:│ {3}| {4})*)[├└]── (\S+)(?: \(([^)]*)\))?$/.exec(line);
    if (match === null) continue;
    const depth = match[1]!.length / 4;
    const url = (parents[depth - 1] ?? '') + match[2]!;
    parents.length = depth;
    parents.push(url);
    if (match[3] !== undefined) routes.push({ url, methods: match[3].split(', ') });
  }
  return routes;
}

test('every route of the app is made by a route factory, and only the probes by probeRoute', async (t) => {
  const { app } = await build(t);
  const routes = routesOf(app);
  // The listing was read: the API's endpoints are there, not an empty list that passes.
  for (const url of ['/:lang/api/config/:resource/:id', '/:lang/api/tokens/:id', '/:lang/api/changes/stream', '/:lang/api/config/:resource/:id/history', '/healthz']) {
    assert.ok(routes.some((route) => route.url === url), `${url} in ${JSON.stringify(routes.map((route) => route.url))}`);
  }
  // Each route Fastify serves, with each of its methods, is one the guard let through.
  const admitted = new Map(admittedRoutes(app).flatMap(({ url, methods, factory }) => methods.map((method) => [`${method} ${url}`, factory] as const)));
  const outside: string[] = [];
  const byProbeRoute = new Set<string>();
  for (const { url, methods } of routes) {
    for (const method of methods) {
      const factory = admitted.get(`${method} ${url}`);
      if (factory === undefined) outside.push(`${method} ${url}`);
      if (factory === 'probe') byProbeRoute.add(url);
    }
  }
  assert.deepEqual(outside, [], 'routes registered outside the route factories');
  assert.deepEqual([...byProbeRoute].sort(), PROBES, 'probeRoute makes the probes and nothing else');
});

test('a route registered outside the factories stops the start, naming it', async (t) => {
  const { app } = await build(t);
  assert.throws(
    () => app.get('/:lang/api/rogue', async () => ({})),
    /the route GET \/:lang\/api\/rogue is registered outside the route factories; register it with endpointRoute/,
  );
  // The same from a plugin's own routes, registered in a context of their own.
  void app.register(async (child) => {
    child.route({ method: ['GET', 'POST'], url: '/:lang/api/webhooks', handler: async () => ({}) });
  });
  await assert.rejects(async () => app.ready(), /the route GET,POST \/:lang\/api\/webhooks is registered outside the route factories/);
});

/** The routes under /{lang}/api/ whose handler does not hand its requests to the pipeline. */
function apiRoutesOutsidePipeline(app: FastifyInstance): string[] {
  const outside = admittedRoutes(app).filter((route) => route.url.startsWith('/:lang/api/') && !route.pipeline);
  return [...new Set(outside.map((route) => route.url))].sort();
}

test('every endpoint of the API goes through the pipeline, the served documents excepted', async (t) => {
  const { app } = await build(t);
  // Read from the app's own routes: the endpoints moved last are among those it checks.
  const urls = new Set(admittedRoutes(app).map((route) => route.url));
  for (const url of ['/:lang/api/webhooks/:id/ping', '/:lang/api/sd/prometheus', '/:lang/api/inventory/ansible', '/:lang/api/export', '/:lang/api/apply', '/:lang/api/changes/stream', '/:lang/api/config/:resource']) {
    assert.ok(urls.has(url), `${url} is a route of the app`);
  }
  assert.deepEqual(apiRoutesOutsidePipeline(app), NOT_PIPELINE);
});

test('an API endpoint with a handler of its own is seen', async (t) => {
  const { app } = await build(t);
  // Made by the route factory, so the start lets it through, but not handed to handleRequest.
  void app.register(async (child) => {
    endpointRoute(child, app.registry, '/:lang/api/own-handler', 'docs', async () => ({ status: 200, body: '{}' }));
  });
  await app.ready();
  assert.deepEqual(apiRoutesOutsidePipeline(app), [...NOT_PIPELINE, '/:lang/api/own-handler'].sort());
});
