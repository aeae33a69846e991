// `GET /{lang}/api/sd/prometheus` (contract section 17): Prometheus HTTP service discovery.
// One target group per server, `{"targets":["ip:port"],"labels":{…}}`, in id order, written
// batch by batch as the servers are read: the answer for a million servers is never held
// whole. Labels are `__meta_…`, which Prometheus keeps for relabelling and drops before
// storage; values are strings, empty when there is none. Only fields shown by the API are
// read here, and none of them is a secret.
import type { Entry } from '../store/entry-rows.js';
import type { ListQuery } from '../store/list-query.js';
import type { ResourceStore } from '../store/resource-store.js';
import { validName, WALK_BATCH, type MonitoringResources, type ShownNames } from './monitoring-query.js';

export const LABEL_PREFIX = '__meta_pmacontrol_';
const PREFIX = LABEL_PREFIX;
/** The labels every target has, after the prefix (the document lists them). */
export const TARGET_LABELS = ['server_id', 'hostname', 'port', 'client', 'client_id', 'environment', 'environment_id', 'tags', 'ssl', 'is_proxy', 'is_vip'] as const;

/** `ip:port`, an IPv6 address in brackets as Prometheus (and every URL) needs it. */
export function targetAddress(ip: string, port: number): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}

function text(value: unknown): string {
  return value === null || value === undefined ? '' : String(value);
}

export function targetLabels(server: Entry, names: ShownNames): Record<string, string> {
  const client = server.id_client as number | null;
  const environment = server.id_environment as number | null;
  const tagNames = (server.tags as number[]).flatMap((id) => names.tags.get(id) ?? []);
  const labels: Record<string, string> = {
    [`${PREFIX}server_id`]: String(server.id),
    [`${PREFIX}hostname`]: text(server.hostname),
    [`${PREFIX}port`]: String(server.port),
    [`${PREFIX}client`]: client === null ? '' : text(names.clients.get(client)),
    [`${PREFIX}client_id`]: text(client),
    [`${PREFIX}environment`]: environment === null ? '' : text(names.environments.get(environment)),
    [`${PREFIX}environment_id`]: text(environment),
    // As Consul's `__meta_consul_tags`: a comma before and after, so that a regex can match
    // `.*,name,.*` whatever the position.
    [`${PREFIX}tags`]: tagNames.length === 0 ? '' : `,${tagNames.join(',')},`,
    [`${PREFIX}ssl`]: String(server.ssl === true),
    [`${PREFIX}is_proxy`]: String(server.is_proxy === true),
    [`${PREFIX}is_vip`]: String(server.is_vip === true),
  };
  for (const name of tagNames) labels[`${PREFIX}tag_${validName(name)}`] = 'true';
  return labels;
}

/** The JSON text of the answer, in chunks of a batch of servers. */
export async function* prometheusTargets(store: ResourceStore, resources: MonitoringResources, list: ListQuery, names: ShownNames): AsyncGenerator<string> {
  let first = true;
  yield '[';
  for await (const batch of store.walk(resources.servers, list, WALK_BATCH)) {
    let chunk = '';
    for (const server of batch) {
      chunk += `${first ? '' : ','}${JSON.stringify({ targets: [targetAddress(String(server.ip), Number(server.port))], labels: targetLabels(server, names) })}`;
      first = false;
    }
    yield chunk;
  }
  yield ']';
}
