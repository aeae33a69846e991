// What the monitoring integrations (contract section 17) share: the query string they take
// (the server list's filters id_client, id_environment, tag and q, nothing else), the set of
// servers it names (live and monitored), the names of clients, environments and tags that the
// answers show, and the entity tag of an answer.
import { apiError } from '../errors/api-error.js';
import type { CompiledResource } from '../registry/compiled-resource.js';
import type { Registry } from '../registry/registry.js';
import type { ListQuery } from '../store/list-query.js';
import type { ResourceStore } from '../store/resource-store.js';
import { entityTagOfJson } from '../store/entity-tag.js';
import { parseListQuery, refuseUnknownParameters } from './parse-list-query.js';

export const TARGET_PARAMETERS = ['id_client', 'id_environment', 'tag', 'q'] as const;

/** Servers read per statement: large enough that 100,000 servers take 50 statements, small
 * enough that a batch and its JSON text stay well under a megabyte or two. */
export const WALK_BATCH = 2000;

/** Characters of an answer's text handed to the socket at a time: under V8's large-object
 * size, so that each chunk dies young with the scavenges. Chunks of a whole batch (a megabyte)
 * went to the large-object space, freed only by full collections, and let resident memory
 * grow by some 50 MB over a million servers. */
export const CHUNK_CHARS = 32 * 1024;

/** What both answers read of a server (store.walkValues): after its id, these fields, at
 * the positions below. Ten columns of a server's thirty, as the database gives them. */
export const SERVER_FIELDS = ['ip', 'port', 'hostname', 'id_client', 'id_environment', 'ssl', 'is_proxy', 'is_vip', 'tags'] as const;
export const AT = { id: 0, ip: 1, port: 2, hostname: 3, client: 4, environment: 5, ssl: 6, isProxy: 7, isVip: 8, tags: 9 } as const;

/** A value per distinct key, made once per answer: a fleet has far fewer clients,
 * environments and sets of tags than servers, and what an answer writes of each is the same
 * text for every server that has it. */
export class Memo<K, V> {
  private readonly made = new Map<K, V>();

  constructor(private readonly make: (key: K) => V) {}

  get(key: K): V {
    let value = this.made.get(key);
    if (value === undefined) {
      value = this.make(key);
      this.made.set(key, value);
    }
    return value;
  }
}

/** The tag ids of a server's aggregate (its column form), memoised by the aggregate's text. */
export function tagIdsMemo(servers: CompiledResource): Memo<unknown, number[]> {
  const decode = servers.fields.tags!.type.fromColumn;
  return new Memo((raw) => decode(raw) as number[]);
}

/** A stored boolean's value (0/1, or true/false on PostgreSQL). */
export function storedTrue(servers: CompiledResource): (value: unknown) => boolean {
  const decode = servers.fields.ssl!.type.fromColumn;
  return (value) => decode(value) === true;
}

export interface MonitoringResources {
  readonly servers: CompiledResource;
  readonly clients: CompiledResource;
  readonly environments: CompiledResource;
  readonly tags: CompiledResource;
}

export function monitoringResources(registry: Registry): MonitoringResources {
  const find = (name: string): CompiledResource => {
    const resource = registry.find(name);
    if (resource === undefined) throw new Error(`the monitoring integrations need the ${name} resource`);
    return resource;
  };
  return { servers: find('servers'), clients: find('clients'), environments: find('environments'), tags: find('tags') };
}

/** The live, monitored servers the query string narrows down. */
export function parseTargetQuery(servers: CompiledResource, query: Record<string, unknown>): ListQuery {
  refuseUnknownParameters(query, TARGET_PARAMETERS);
  const list = parseListQuery(servers, query);
  const monitored = servers.fields.is_monitored;
  if (monitored === undefined) throw apiError('NOT_FOUND', 'path.unknown');
  return { ...list, filters: [...list.filters, monitoredFilter(servers)], includeDeleted: false };
}

/** `is_monitored = true`, in the column's own form. */
export function monitoredFilter(servers: CompiledResource): ListQuery['filters'][number] {
  const field = servers.fields.is_monitored!;
  return { column: field.column, value: field.type.toColumn(true) };
}

// Changed whenever an answer's format changes, so that tags given by an older release never match.
const FORMAT = 'monitoring 1';

/**
 * The tag of an answer: the change counters of the four tables it shows (every committed
 * change moves its table's), the kind of answer and the query, normalised. Read before the
 * answer, so that a tag never claims a newer state than its body.
 */
export async function monitoringTag(store: ResourceStore, resources: MonitoringResources, kind: string, list: ListQuery): Promise<string> {
  const { servers, clients, environments, tags } = resources;
  const versions = await Promise.all([servers, clients, environments, tags].map((resource) => store.listVersion(resource)));
  const normalised = {
    filters: list.filters.map((filter) => [filter.column, filter.value]).sort(),
    tags: list.linkFilters.map((filter) => filter.id).sort((a, b) => a - b),
    q: list.search?.text ?? null,
  };
  return entityTagOfJson(`${FORMAT}\n${kind}\n${versions.join(' ')}\n${JSON.stringify(normalised)}`);
}

/** Names by id: a client's `libelle`, an environment's `key`, a tag's `name`. */
export interface ShownNames {
  readonly clients: ReadonlyMap<number, string>;
  readonly environments: ReadonlyMap<number, string>;
  readonly tags: ReadonlyMap<number, string>;
}

const EVERY: ListQuery = { limit: 1, offset: 0, sort: [], filters: [], linkFilters: [], includeDeleted: false };

async function namesOf(store: ResourceStore, resource: CompiledResource, field: string): Promise<Map<number, string>> {
  const names = new Map<number, string>();
  // Clients, environments and tags are the fleet's small tables (a thousand clients in the
  // bench's fleet): read whole, once per answer, instead of once per server.
  for await (const batch of store.walk(resource, EVERY, WALK_BATCH)) for (const entry of batch) names.set(entry.id, String(entry[field]));
  return names;
}

export async function shownNames(store: ResourceStore, resources: MonitoringResources): Promise<ShownNames> {
  const [clients, environments, tags] = await Promise.all([
    namesOf(store, resources.clients, 'libelle'),
    namesOf(store, resources.environments, 'key'),
    namesOf(store, resources.tags, 'name'),
  ]);
  return { clients, environments, tags };
}

/** A label or group name made valid: every character outside A-Za-z0-9_ turned into `_`
 * (one `_` per character, astral ones included). */
export function validName(text: string): string {
  return text.replace(/[^A-Za-z0-9_]/gu, '_');
}
