// `GET /{lang}/api/sd/prometheus` (contract section 17): Prometheus HTTP service discovery.
// One target group per server, `{"targets":["ip:port"],"labels":{…}}`, in id order, written
// batch by batch as the servers are read: the answer for a million servers is never held
// whole. Labels are `__meta_…`, which Prometheus keeps for relabelling and drops before
// storage; values are strings, empty when there is none. Only fields shown by the API are
// read here, and none of them is a secret.
//
// A server is read as an array of its ten columns (no entry object) and its JSON text is
// made by concatenation: what it says of its client, environment and tags is text made once
// per distinct client, environment and set of tags (a CPU profile at 100,000 servers found an
// object per target and JSON.stringify costing as much as reading the servers).
import type { ListQuery } from '../store/list-query.js';
import type { ResourceStore } from '../store/resource-store.js';
import { AT, CHUNK_CHARS, Memo, SERVER_FIELDS, storedTrue, tagIdsMemo, validName, WALK_BATCH, type MonitoringResources, type ShownNames } from './monitoring-query.js';

export const LABEL_PREFIX = '__meta_pmacontrol_';
const PREFIX = LABEL_PREFIX;
/** The labels every target has, after the prefix (the document lists them). */
export const TARGET_LABELS = ['server_id', 'hostname', 'port', 'client', 'client_id', 'environment', 'environment_id', 'tags', 'ssl', 'is_proxy', 'is_vip'] as const;

/** `ip:port`, an IPv6 address in brackets as Prometheus (and every URL) needs it. */
export function targetAddress(ip: string, port: number): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}

/** The text of one reference's two labels, e.g. `"…client":"ACME","…client_id":"7",`. */
function referenceLabels(label: string, names: ReadonlyMap<number, string>): Memo<unknown, string> {
  return new Memo((raw) => {
    if (raw === null || raw === undefined) return `"${PREFIX}${label}":"","${PREFIX}${label}_id":"",`;
    const id = Number(raw);
    return `"${PREFIX}${label}":${JSON.stringify(names.get(id) ?? '')},"${PREFIX}${label}_id":"${id}",`;
  });
}

interface TagText {
  /** The `tags` label's value, as JSON text. */
  readonly value: string;
  /** The `tag_<name>` labels, each as `,"__meta_pmacontrol_tag_<name>":"true"`. */
  readonly labels: string;
}

/** The JSON text of the answer, in chunks of a batch of servers. */
export async function* prometheusTargets(store: ResourceStore, resources: MonitoringResources, list: ListQuery, names: ShownNames): AsyncGenerator<string> {
  const { servers } = resources;
  const isTrue = storedTrue(servers);
  const tagIds = tagIdsMemo(servers);
  const clients = referenceLabels('client', names.clients);
  const environments = referenceLabels('environment', names.environments);
  const tagTexts = new Memo<unknown, TagText>((raw) => {
    const shown = tagIds.get(raw).flatMap((id) => names.tags.get(id) ?? []);
    // As Consul's `__meta_consul_tags`: a comma before and after, so that a regex can match
    // `.*,name,.*` whatever the position. Two tag names can make the same label name ("a b",
    // "a-b"): it is written once.
    const labels = [...new Set(shown.map((name) => `,${JSON.stringify(`${PREFIX}tag_${validName(name)}`)}:"true"`))].join('');
    return { value: shown.length === 0 ? '""' : JSON.stringify(`,${shown.join(',')},`), labels };
  });
  let first = true;
  yield '[';
  for await (const batch of store.walkValues(servers, list, WALK_BATCH, SERVER_FIELDS)) {
    let chunk = first ? '' : ',';
    first = false;
    for (let i = 0; i < batch.length; i++) {
      const server = batch[i]!;
      const port = Number(server[AT.port]);
      const tags = tagTexts.get(server[AT.tags] ?? null);
      chunk +=
        `${i === 0 ? '' : ','}{"targets":[${JSON.stringify(targetAddress(String(server[AT.ip]), port))}],"labels":{` +
        `"${PREFIX}server_id":"${Number(server[AT.id])}",` +
        `"${PREFIX}hostname":${JSON.stringify(String(server[AT.hostname] ?? ''))},` +
        `"${PREFIX}port":"${port}",` +
        clients.get(server[AT.client]) +
        environments.get(server[AT.environment]) +
        `"${PREFIX}tags":${tags.value},` +
        `"${PREFIX}ssl":"${isTrue(server[AT.ssl])}","${PREFIX}is_proxy":"${isTrue(server[AT.isProxy])}","${PREFIX}is_vip":"${isTrue(server[AT.isVip])}"` +
        `${tags.labels}}}`;
      if (chunk.length >= CHUNK_CHARS) {
        yield chunk;
        chunk = '';
      }
    }
    if (chunk !== '') yield chunk;
  }
  yield ']';
}
