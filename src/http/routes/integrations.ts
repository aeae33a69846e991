// The monitoring integrations' read endpoints (contract section 17): Prometheus HTTP service
// discovery and the Ansible dynamic inventory. Both are read with a `read` token, like every
// GET. The answer's entity tag is known from four row reads, before any server is read: a
// poller whose answer has not changed gets a 304 for that much. Otherwise the names of
// clients, environments and tags are read (a database that cannot be reached is then still a
// clean 503), and the body is streamed as the servers are read; a failure past that point
// can only cut the connection, which the client sees as a truncated answer.
//
// The body is a byte stream with back-pressure: the walk reads its next batch only once the
// one before is taken by the socket, so that an answer held by a slow reader holds a batch or
// two, not the answer. And it runs through the heavy-work gate (heavy-work-gate.ts), whose
// slot it holds until its last byte is written or its connection is gone: concurrent scrapes
// beyond the gate's bound wait, then are 503 with Retry-After, and memory stays bounded.
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { HeavyWorkGate } from '../../pipeline/heavy-work-gate.js';
import { ansibleInventory } from '../../pipeline/ansible-inventory.js';
import { ifNoneMatchHolds } from '../../pipeline/entity-tag.js';
import { monitoredFilter, monitoringResources, monitoringTag, parseTargetQuery, shownNames } from '../../pipeline/monitoring-query.js';
import { prometheusTargets } from '../../pipeline/prometheus-targets.js';
import type { RequestTarget } from '../../pipeline/request-target.js';
import type { Outcome } from '../../pipeline/respond.js';
import { endpointRoute } from './endpoint-route.js';

const JSON_TYPE = 'application/json; charset=utf-8';

export default async function integrationRoutes(app: FastifyInstance, { heavyWork }: { heavyWork: HeavyWorkGate }): Promise<void> {
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
    const release = await heavyWork.hold();
    try {
      const names = await shownNames(store, resources);
      const chunks =
        target.endpoint === 'prometheusTargets'
          ? prometheusTargets(store, resources, list, names)
          : // Host names are unique among all live monitored servers, whatever the filters: a
            // host keeps its name in every narrowed inventory.
            ansibleInventory({ store, resources, list, names, shared: await store.sharedValues(resources.servers, [monitoredFilter(resources.servers)], resources.servers.fields.hostname!.column) });
      // The reply pipes it into the socket, which pauses it while its buffer is full; paused, it
      // asks the walk for no further batch (test/monitoring-stream-gate.test.ts). The chunks go
      // to the socket as strings: a byte stream would turn each into a Buffer, external memory
      // that only a full collection frees, which let resident memory grow by some 50 MB over a
      // million servers.
      const body = Readable.from(chunks);
      // 'close' comes once, after the end, an error or the client going away.
      body.once('close', release);
      return { status: 200, headers, body };
    } catch (error) {
      release();
      throw error;
    }
  }

  endpointRoute(app, registry, '/:lang/api/sd/prometheus', 'prometheusTargets', answer);
  endpointRoute(app, registry, '/:lang/api/inventory/ansible', 'ansibleInventory', answer);
}
