// The resources that servers and other entries point at (clients, environments, tags, SSH
// keys), read once (one page of up to 1,000, by name) to name references and fill the choices
// of filters and forms, and read again after a change to them. A fleet with more has its
// first page marked incomplete: its choices are then searched with `q` as the operator types
// (reference-picker.tsx), and a reference not in the first page is named by reading it by id.
import { useEffect, useState } from 'preact/hooks';
import { LIST_LIMIT_MAX, request, type Entry, type ListAnswer } from './api.js';

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

/** The resources read for naming references and for choices. */
export const LOOKUP_RESOURCES = ['clients', 'environments', 'tags', 'ssh-keys'];

/** The entries known of a resource: its first page, and those read by id since. */
export class Lookup extends Map<number, Entry> {
  /** The first page has arrived (before, a missing name is not yet worth a read by id). */
  loaded = false;
  /** The first page held every entry: choices can be listed whole. */
  complete = true;
}

/** The order choices are listed and searched in. */
export function lookupSort(resource: string): string {
  return LABEL_FIELD[resource] === 'fingerprint' ? 'id' : (LABEL_FIELD[resource] ?? 'id');
}

interface FirstPage {
  readonly items: Entry[];
  readonly complete: boolean;
}

const cache = new Map<string, Promise<FirstPage>>();
const byId = new Map<string, Map<number, Entry>>();
const reading = new Set<string>();
/** Bumped by forget(): a name read before it (the entry as it was before a change) is not kept. */
const generations = new Map<string, number>();
const listeners = new Set<() => void>();

function notify(): void {
  for (const listener of listeners) listener();
}

export function lookup(resource: string): Promise<FirstPage> {
  let entries = cache.get(resource);
  if (entries === undefined) {
    entries = request<ListAnswer<Entry>>('GET', `/config/${resource}?limit=${LIST_LIMIT_MAX}&sort=${lookupSort(resource)}`).then((answer) => ({
      items: answer.body.items,
      complete: answer.body.next === null || answer.body.next === undefined,
    }));
    entries.catch(() => cache.delete(resource));
    cache.set(resource, entries);
  }
  return entries;
}

/** Reads one entry by id to name it (once; a refused read leaves it shown as `#id`). */
export function readName(resource: string, id: number): void {
  const key = `${resource}/${id}`;
  if (!LOOKUP_RESOURCES.includes(resource) || !Number.isInteger(id) || reading.has(key)) return;
  reading.add(key);
  const generation = generations.get(resource) ?? 0;
  request<{ item: Entry }>('GET', `/config/${resource}/${id}`)
    .then((answer) => {
      if ((generations.get(resource) ?? 0) !== generation) return;
      let known = byId.get(resource);
      if (known === undefined) byId.set(resource, (known = new Map()));
      known.set(id, answer.body.item);
      notify();
    })
    .catch(() => undefined);
}

/** Read `resource` again when next asked (after a change to it). */
export function forget(resource: string): void {
  generations.set(resource, (generations.get(resource) ?? 0) + 1);
  // A read in flight is dropped on arrival: the name is read afresh when next asked.
  const inFlight = [...reading].filter((key) => key.startsWith(`${resource}/`));
  for (const key of inFlight) reading.delete(key);
  if (!cache.has(resource) && !byId.has(resource) && inFlight.length === 0) return;
  cache.delete(resource);
  byId.delete(resource);
  notify();
}

export function useLookup(resource: string | undefined): Lookup {
  const [entries, setEntries] = useState<Lookup>(() => new Lookup());
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
      .then((page) => {
        if (!current) return;
        const next = new Lookup(page.items.map((item) => [item.id, item]));
        for (const [id, entry] of byId.get(resource) ?? []) if (!next.has(id)) next.set(id, entry);
        next.loaded = true;
        next.complete = page.complete;
        setEntries(next);
      })
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [resource, generation]);
  return entries;
}
