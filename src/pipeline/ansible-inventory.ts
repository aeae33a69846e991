// `GET /{lang}/api/inventory/ansible` (contract section 17): an Ansible dynamic inventory,
// written in chunks as the servers are read, never held whole. JSON objects cannot be
// reopened, so each part is its own walk over the servers, in this order: `all` (every
// host: Ansible's script plugin adds only the hosts its groups name), the groups
// `client_…`, `env_…` and `tag_…` (a walk per client, environment and tag, each through the
// index of its filter), then `_meta.hostvars`. Names that become the same group name once
// made valid ("ACME Inc", "ACME-Inc") share that group: their walks follow one another in it.
import type { Entry } from '../store/entry-rows.js';
import type { Filter, LinkFilter, ListQuery } from '../store/list-query.js';
import type { ResourceStore } from '../store/resource-store.js';
import { validName, WALK_BATCH, type MonitoringResources, type ShownNames } from './monitoring-query.js';

/** A host's name: its hostname when no other live monitored server has it, else `ip_port`. */
export function hostName(server: Entry, shared: ReadonlySet<string>): string {
  const hostname = String(server.hostname ?? '');
  return hostname !== '' && !shared.has(hostname) ? hostname : `${String(server.ip)}_${String(server.port)}`;
}

export function hostVars(server: Entry, names: ShownNames): Record<string, unknown> {
  const client = server.id_client as number | null;
  const environment = server.id_environment as number | null;
  // Prefixed: `environment` and `tags` are reserved words in Ansible.
  return {
    ansible_host: server.ip,
    mysql_port: server.port,
    pmacontrol_id: server.id,
    pmacontrol_client: client === null ? null : (names.clients.get(client) ?? null),
    pmacontrol_environment: environment === null ? null : (names.environments.get(environment) ?? null),
    pmacontrol_tags: (server.tags as number[]).flatMap((id) => names.tags.get(id) ?? []),
  };
}

/** Group name → the ids whose names make it, in a stable order. */
function groupsOf(prefix: string, names: ReadonlyMap<number, string>): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  for (const [id, name] of [...names].sort((a, b) => a[0] - b[0])) {
    const group = `${prefix}${validName(name)}`;
    groups.set(group, [...(groups.get(group) ?? []), id]);
  }
  return new Map([...groups].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
}

export interface InventoryInput {
  readonly store: ResourceStore;
  readonly resources: MonitoringResources;
  readonly list: ListQuery;
  readonly names: ShownNames;
  /** Hostnames more than one live monitored server has. */
  readonly shared: ReadonlySet<string>;
}

/** The hosts' names of the walk of `list`, as the JSON text of a list's elements, by batch. */
async function* hostNames(input: InventoryInput, list: ListQuery, first: { value: boolean }): AsyncGenerator<string> {
  const { servers } = input.resources;
  // Only what a name is made of: a walk of a fifth of the full one's cost.
  const columns = ['ip', 'port', 'hostname'].map((name) => servers.fields[name]!.column);
  for await (const batch of input.store.walk(servers, list, WALK_BATCH, columns)) {
    let chunk = '';
    for (const server of batch) {
      chunk += `${first.value ? '' : ','}${JSON.stringify(hostName(server, input.shared))}`;
      first.value = false;
    }
    yield chunk;
  }
}

export async function* ansibleInventory(input: InventoryInput): AsyncGenerator<string> {
  const { list, names } = input;
  yield '{"all":{"hosts":[';
  yield* hostNames(input, list, { value: true });
  yield ']}';
  const withFilter = (column: string) => (id: number): ListQuery | undefined => {
    const asked = list.filters.find((filter) => filter.column === column);
    if (asked !== undefined && asked.value !== id) return undefined;
    const filters: Filter[] = [...list.filters.filter((filter) => filter.column !== column), { column, value: id }];
    return { ...list, filters };
  };
  const withTag = (link: LinkFilter['link']) => (id: number): ListQuery => ({
    ...list,
    // The group's tag first: its link table drives the walk (list-statements.ts).
    linkFilters: [{ link, id }, ...list.linkFilters.filter((filter) => filter.id !== id)],
  });
  const tagLink = input.resources.servers.fields.tags?.link;
  const kinds: [string, ReadonlyMap<number, string>, (id: number) => ListQuery | undefined][] = [
    ['client_', names.clients, withFilter(input.resources.servers.fields.id_client!.column)],
    ['env_', names.environments, withFilter(input.resources.servers.fields.id_environment!.column)],
    ...(tagLink === undefined ? [] : [['tag_', names.tags, withTag(tagLink)] as [string, ReadonlyMap<number, string>, (id: number) => ListQuery]]),
  ];
  for (const [prefix, kindNames, narrow] of kinds) {
    for (const [group, ids] of groupsOf(prefix, kindNames)) {
      const first = { value: true };
      let opened = false;
      for (const id of ids) {
        const narrowed = narrow(id);
        if (narrowed === undefined) continue;
        for await (const chunk of hostNames(input, narrowed, first)) {
          // The group's key is written with its first host: an empty group is left out.
          yield opened ? chunk : `,${JSON.stringify(group)}:{"hosts":[${chunk}`;
          opened = true;
        }
      }
      if (opened) yield ']}';
    }
  }
  yield ',"_meta":{"hostvars":{';
  let first = true;
  for await (const batch of input.store.walk(input.resources.servers, list, WALK_BATCH)) {
    let chunk = '';
    for (const server of batch) {
      chunk += `${first ? '' : ','}${JSON.stringify(hostName(server, input.shared))}:${JSON.stringify(hostVars(server, names))}`;
      first = false;
    }
    yield chunk;
  }
  yield '}}}';
}
