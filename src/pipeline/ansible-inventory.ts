// `GET /{lang}/api/inventory/ansible` (contract section 17): an Ansible dynamic inventory,
// made in one walk over the servers and written as it goes. `_meta.hostvars` comes first,
// written batch by batch as the servers are read; the walk also keeps each host's name and
// the groups it is in (inventory-hosts.ts: compact, a few bytes per host), from which `all`
// and the groups `client_…`, `env_…` and `tag_…` are written after it. Ansible reads the
// keys in any order. Names that become the same group name once made valid ("ACME Inc",
// "ACME-Inc") share that group; a group's hosts are in id order, and a group with none is
// left out.
import type { ListQuery } from '../store/list-query.js';
import type { ResourceStore } from '../store/resource-store.js';
import { GroupMembers, HostNames, Slabs } from './inventory-hosts.js';
import { AT, CHUNK_CHARS, Memo, SERVER_FIELDS, tagIdsMemo, validName, WALK_BATCH, type MonitoringResources, type ShownNames } from './monitoring-query.js';

/** A host's name: its hostname when no other live monitored server has it, else `ip_port`. */
export function hostName(hostname: string, ip: string, port: number, shared: ReadonlySet<string>): string {
  return hostname !== '' && !shared.has(hostname) ? hostname : `${ip}_${port}`;
}

export interface InventoryInput {
  readonly store: ResourceStore;
  readonly resources: MonitoringResources;
  readonly list: ListQuery;
  readonly names: ShownNames;
  /** Hostnames more than one live monitored server has. */
  readonly shared: ReadonlySet<string>;
}

/** What a reference (client, environment) gives a host: its variable's JSON text and its group. */
interface Reference {
  readonly json: string;
  readonly group: string | undefined;
}

function references(prefix: string, names: ReadonlyMap<number, string>): Memo<unknown, Reference> {
  return new Memo((raw) => {
    const name = raw === null || raw === undefined ? undefined : names.get(Number(raw));
    return name === undefined ? { json: 'null', group: undefined } : { json: JSON.stringify(name), group: `${prefix}${validName(name)}` };
  });
}

export async function* ansibleInventory(input: InventoryInput): AsyncGenerator<string> {
  const { resources, names } = input;
  const clients = references('client_', names.clients);
  const environments = references('env_', names.environments);
  const tagIds = tagIdsMemo(resources.servers);
  // A set of tags: the JSON text of their names (by tag id) and their groups.
  const tagSets = new Memo<unknown, { json: string; groups: string[] }>((raw) => {
    const shown = tagIds.get(raw).flatMap((id) => names.tags.get(id) ?? []);
    return { json: JSON.stringify(shown), groups: shown.map((name) => `tag_${validName(name)}`) };
  });
  const slabs = new Slabs();
  try {
    yield* inventoryText(input, new HostNames(slabs), new GroupMembers(slabs), { clients, environments, tagSets });
  } finally {
    // Reached when the answer is written to its end and when the reader goes away.
    slabs.release();
  }
}

interface Texts {
  readonly clients: Memo<unknown, Reference>;
  readonly environments: Memo<unknown, Reference>;
  readonly tagSets: Memo<unknown, { json: string; groups: string[] }>;
}

async function* inventoryText(input: InventoryInput, hosts: HostNames, groups: GroupMembers, texts: Texts): AsyncGenerator<string> {
  const { store, resources, list, shared } = input;
  const { clients, environments, tagSets } = texts;
  yield '{"_meta":{"hostvars":{';
  let first = true;
  for await (const batch of store.walkValues(resources.servers, list, WALK_BATCH, SERVER_FIELDS)) {
    let chunk = first ? '' : ',';
    first = false;
    for (let i = 0; i < batch.length; i++) {
      const server = batch[i]!;
      const ip = String(server[AT.ip]);
      const port = Number(server[AT.port]);
      const name = JSON.stringify(hostName(String(server[AT.hostname] ?? ''), ip, port, shared));
      const client = clients.get(server[AT.client]);
      const environment = environments.get(server[AT.environment]);
      const tags = tagSets.get(server[AT.tags] ?? null);
      const host = hosts.add(name);
      if (client.group !== undefined) groups.add(client.group, host);
      if (environment.group !== undefined) groups.add(environment.group, host);
      for (const group of tags.groups) groups.add(group, host);
      // Prefixed: `environment` and `tags` are reserved words in Ansible.
      chunk +=
        `${i === 0 ? '' : ','}${name}:{"ansible_host":${JSON.stringify(ip)},"mysql_port":${port},"pmacontrol_id":${Number(server[AT.id])},` +
        `"pmacontrol_client":${client.json},"pmacontrol_environment":${environment.json},"pmacontrol_tags":${tags.json}}`;
      if (chunk.length >= CHUNK_CHARS) {
        yield chunk;
        chunk = '';
      }
    }
    if (chunk !== '') yield chunk;
  }
  // `all` names every host: Ansible's script plugin adds only the hosts its groups name.
  yield '}},"all":{"hosts":[';
  yield* hosts.all();
  yield ']}';
  for (const [group, members] of groups.sorted()) {
    yield `,${JSON.stringify(group)}:{"hosts":[`;
    yield* hosts.some(members);
    yield ']}';
  }
  yield '}';
}
