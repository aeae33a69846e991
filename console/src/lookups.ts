// The small resources that servers and other entries point at (clients, environments, tags,
// SSH keys), read once (one page of up to 1,000, by name) to name references and fill the
// choices of filters and forms, and read again after a change to them.
import { useEffect, useState } from 'preact/hooks';
import { request, type Entry, type ListAnswer } from './api.js';

const LABEL_FIELD: Record<string, string> = {
  clients: 'libelle',
  environments: 'libelle',
  tags: 'name',
  'ssh-keys': 'fingerprint',
  'storage-areas': 'libelle',
  aliases: 'dns',
};

/** How an entry is named to a person. */
export function entryLabel(resource: string, entry: Entry | undefined, id?: unknown): string {
  if (entry === undefined) return `#${String(id ?? '')}`;
  if (resource === 'servers') return `${String(entry.hostname || entry.ip)} (${String(entry.ip)}:${String(entry.port)})`;
  if (resource === 'environments') return `${String(entry.libelle)} (${String(entry.key)})`;
  if (resource === 'aliases') return `${String(entry.dns)}:${String(entry.port)}`;
  if (resource === 'ssh-keys') return `${String(entry.type)} ${String(entry.fingerprint)}`;
  const field = LABEL_FIELD[resource];
  return field === undefined ? `#${entry.id}` : String(entry[field]);
}

/** The resources small enough to read whole for a choice (at most 1,000 entries shown). */
export const LOOKUP_RESOURCES = ['clients', 'environments', 'tags', 'ssh-keys'];

const cache = new Map<string, Promise<Entry[]>>();
const listeners = new Set<() => void>();

export function lookup(resource: string): Promise<Entry[]> {
  let entries = cache.get(resource);
  if (entries === undefined) {
    const sort = LABEL_FIELD[resource] === 'fingerprint' ? 'id' : (LABEL_FIELD[resource] ?? 'id');
    entries = request<ListAnswer<Entry>>('GET', `/config/${resource}?limit=1000&sort=${sort}`).then((answer) => answer.body.items);
    entries.catch(() => cache.delete(resource));
    cache.set(resource, entries);
  }
  return entries;
}

/** Read `resource` again when next asked (after a change to it). */
export function forget(resource: string): void {
  if (!cache.has(resource)) return;
  cache.delete(resource);
  for (const listener of listeners) listener();
}

export function useLookup(resource: string | undefined): Map<number, Entry> {
  const [entries, setEntries] = useState<Map<number, Entry>>(new Map());
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    const changed = (): void => setGeneration((value) => value + 1);
    listeners.add(changed);
    return () => listeners.delete(changed);
  }, []);
  useEffect(() => {
    if (resource === undefined || !LOOKUP_RESOURCES.includes(resource)) return;
    let current = true;
    lookup(resource)
      .then((items) => current && setEntries(new Map(items.map((item) => [item.id, item]))))
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [resource, generation]);
  return entries;
}
