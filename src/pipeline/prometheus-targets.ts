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

/** What a request's targets say of each client, environment and tag, as JSON text made once
 * per request rather than once per server: with an object per target and JSON.stringify, the
 * labels took a large share of an answer's CPU (docs/performance.md, "Figures behind the code"). */
interface Fragments {
  readonly clients: ReadonlyMap<number, string>;
  readonly environments: ReadonlyMap<number, string>;
  /** A tag's name, and its own label as `,"__meta_pmacontrol_tag_<name>":"true"`. */
  readonly tags: ReadonlyMap<number, { readonly name: string; readonly label: string }>;
}

function fragmentsOf(names: ShownNames): Fragments {
  const quoted = (map: ReadonlyMap<number, string>) => new Map([...map].map(([id, name]) => [id, JSON.stringify(name)]));
  const tags = new Map([...names.tags].map(([id, name]) => [id, { name, label: `,${JSON.stringify(`${PREFIX}tag_${validName(name)}`)}:"true"` }]));
  return { clients: quoted(names.clients), environments: quoted(names.environments), tags };
}

/** One target group's JSON text. Values are strings, empty when there is none. */
function targetJson(server: Entry, fragments: Fragments): string {
  const client = server.id_client as number | null;
  const environment = server.id_environment as number | null;
  const tags = (server.tags as number[]).flatMap((id) => fragments.tags.get(id) ?? []);
  // Two tag names can make the same label name ("a b", "a-b"): it is written once.
  const tagLabels = tags.length < 2 ? (tags[0]?.label ?? '') : [...new Set(tags.map((tag) => tag.label))].join('');
  return (
    `{"targets":[${JSON.stringify(targetAddress(String(server.ip), Number(server.port)))}],"labels":{` +
    `"${PREFIX}server_id":"${server.id}",` +
    `"${PREFIX}hostname":${JSON.stringify(String(server.hostname ?? ''))},` +
    `"${PREFIX}port":"${Number(server.port)}",` +
    `"${PREFIX}client":${client === null ? '""' : (fragments.clients.get(client) ?? '""')},` +
    `"${PREFIX}client_id":"${client ?? ''}",` +
    `"${PREFIX}environment":${environment === null ? '""' : (fragments.environments.get(environment) ?? '""')},` +
    `"${PREFIX}environment_id":"${environment ?? ''}",` +
    // As Consul's `__meta_consul_tags`: a comma before and after, so that a regex can match
    // `.*,name,.*` whatever the position.
    `"${PREFIX}tags":${tags.length === 0 ? '""' : JSON.stringify(`,${tags.map((tag) => tag.name).join(',')},`)},` +
    `"${PREFIX}ssl":"${server.ssl === true}","${PREFIX}is_proxy":"${server.is_proxy === true}","${PREFIX}is_vip":"${server.is_vip === true}"` +
    `${tagLabels}}}`
  );
}

/** The JSON text of the answer, in chunks of a batch of servers. */
export async function* prometheusTargets(store: ResourceStore, resources: MonitoringResources, list: ListQuery, names: ShownNames): AsyncGenerator<string> {
  const fragments = fragmentsOf(names);
  let first = true;
  yield '[';
  for await (const batch of store.walk(resources.servers, list, WALK_BATCH)) {
    let chunk = '';
    for (const server of batch) {
      chunk += first ? targetJson(server, fragments) : `,${targetJson(server, fragments)}`;
      first = false;
    }
    yield chunk;
  }
  yield ']';
}
