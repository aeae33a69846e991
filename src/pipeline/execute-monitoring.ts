// Execute step of the monitoring integrations (contract section 17): Prometheus HTTP service
// discovery and the Ansible dynamic inventory. The answer's entity tag is known from four row
// reads, before any server is read: a poller whose answer has not changed gets a 304 for that
// much. Otherwise the names of clients, environments and tags are read (a database that
// cannot be reached is then still a clean 503), and the answer's chunks are made as the
// servers are read (respond-streams.ts streams them); a failure past that point can only cut
// the connection, which the client sees as a truncated answer.
//
// The walk runs through the heavy-work gate (heavy-work-gate.ts), whose slot the answer holds
// until its last byte is written or its connection is gone: concurrent scrapes beyond the
// gate's bound wait, then are 503 with Retry-After, and memory stays bounded.
import type { ResourceStore } from '../store/resource-store.js';
import { ansibleInventory } from './ansible-inventory.js';
import { ifNoneMatchHolds } from '../store/entity-tag.js';
import type { HeavyWorkGate } from './heavy-work-gate.js';
import { monitoredFilter, monitoringTag, shownNames, type MonitoringResources } from './monitoring-query.js';
import type { MonitoringPlan } from './plan.js';
import { prometheusTargets } from './prometheus-targets.js';

export interface MonitoringContext {
  readonly store: ResourceStore;
  /** Checked at start-up: the integrations need these four resources. */
  readonly monitoring: MonitoringResources;
  readonly heavyWork?: HeavyWorkGate;
}

export type MonitoringResult =
  | { readonly action: 'monitoring-targets'; readonly plan: MonitoringPlan; readonly etag: string; readonly answer: 'unchanged' }
  | { readonly action: 'monitoring-targets'; readonly plan: MonitoringPlan; readonly etag: string; readonly answer: 'headers' }
  | {
      readonly action: 'monitoring-targets';
      readonly plan: MonitoringPlan;
      readonly etag: string;
      readonly answer: 'body';
      readonly chunks: AsyncIterable<string>;
      /** Gives back the heavy-work slot: once the answer is written or abandoned. */
      readonly release: () => void;
    };

export async function executeMonitoringPlan(context: MonitoringContext, plan: MonitoringPlan): Promise<MonitoringResult> {
  const { store, monitoring: resources } = context;
  const { list } = plan;
  const etag = await monitoringTag(store, resources, plan.kind, list);
  if (plan.ifNoneMatch !== undefined && !ifNoneMatchHolds(plan.ifNoneMatch, etag)) return { action: plan.action, plan, etag, answer: 'unchanged' };
  // HEAD: the headers a GET would have, without reading a server.
  if (plan.headersOnly) return { action: plan.action, plan, etag, answer: 'headers' };
  const release = context.heavyWork === undefined ? () => undefined : await context.heavyWork.hold();
  try {
    const names = await shownNames(store, resources);
    const chunks =
      plan.kind === 'prometheusTargets'
        ? prometheusTargets(store, resources, list, names)
        : // Host names are unique among all live monitored servers, whatever the filters: a
          // host keeps its name in every narrowed inventory.
          ansibleInventory({ store, resources, list, names, shared: await takenHostnames(store, resources) });
    return { action: plan.action, plan, etag, answer: 'body', chunks, release };
  } catch (error) {
    release();
    throw error;
  }
}

/** The hostnames that cannot name a host: those several live monitored servers have, and those
 * that read like another one's `ip_port` (the name of a server without a usable hostname), which
 * would otherwise give two servers one name and Ansible one host of the two. */
async function takenHostnames(store: ResourceStore, resources: MonitoringResources): Promise<Set<string>> {
  const { servers } = resources;
  const filters = [monitoredFilter(servers)];
  const column = servers.fields.hostname!.column;
  const taken = await store.sharedValues(servers, filters, column);
  for (const hostname of await store.valuesNamingOthers(servers, filters, column, servers.fields.ip!.column, servers.fields.port!.column)) taken.add(hostname);
  return taken;
}
