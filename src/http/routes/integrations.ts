// The monitoring integrations' read endpoints (contract section 17): Prometheus HTTP service
// discovery and the Ansible dynamic inventory. Both are read with a `read` token, like every
// GET. The answer's entity tag is known from four row reads, before any server is read: a
// poller whose answer has not changed gets a 304 for that much. Otherwise the names of
// clients, environments and tags are read (a database that cannot be reached is then still a
// clean 503), and the body is streamed as the servers are read; a failure past that point
// can only cut the connection, which the client sees as a truncated answer.
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ansibleInventory } from '../../pipeline/ansible-inventory.js';
import { ifNoneMatchHolds } from '../../pipeline/entity-tag.js';
import { monitoredFilter, monitoringResources, monitoringTag, parseTargetQuery, shownNames } from '../../pipeline/monitoring-query.js';
import { prometheusTargets } from '../../pipeline/prometheus-targets.js';
import type { RequestTarget } from '../../pipeline/request-target.js';
import type { Outcome } from '../../pipeline/respond.js';
import { endpointRoute } from './endpoint-route.js';

const JSON_TYPE = 'application/json; charset=utf-8';

export default async function integrationRoutes(app: FastifyInstance): Promise<void> {
  const { store, registry } = app;
  const resources = monitoringResources(registry);

  async function answer(target: RequestTarget, request: FastifyRequest): Promise<Outcome> {
    const list = parseTargetQuery(resources.servers, request.query as Record<string, unknown>);
    const etag = await monitoringTag(store, resources, target.endpoint, list);
    const headers = { etag, 'content-type': JSON_TYPE };
    const ifNoneMatch = request.headers['if-none-match'];
    if (ifNoneMatch !== undefined && !ifNoneMatchHolds(ifNoneMatch, etag)) return { status: 304, headers: { etag } };
    // HEAD: the headers a GET would have, without reading a server.
    if (request.method === 'HEAD') return { status: 200, headers };
    const names = await shownNames(store, resources);
    if (target.endpoint === 'prometheusTargets') return { status: 200, headers, body: Readable.from(prometheusTargets(store, resources, list, names)) };
    // Host names are unique among all live monitored servers, whatever the filters: a host
    // keeps its name in every narrowed inventory.
    const shared = await store.sharedValues(resources.servers, [monitoredFilter(resources.servers)], resources.servers.fields.hostname!.column);
    return { status: 200, headers, body: Readable.from(ansibleInventory({ store, resources, list, names, shared })) };
  }

  endpointRoute(app, registry, '/:lang/api/sd/prometheus', 'prometheusTargets', answer);
  endpointRoute(app, registry, '/:lang/api/inventory/ansible', 'ansibleInventory', answer);
}
