// The clients, environments and tags a CSV names, when there are more of them than the first
// page of choices (lookups.ts) holds: each name not among those is looked for with the API's
// `q` search (case-insensitive substring), then matched exactly as the first page is.
import { LIST_LIMIT_MAX, request, type Entry, type ListAnswer } from '../api.js';
import type { Lookup } from '../lookups.js';

export const clientNamed = (entry: Entry, name: string): boolean => String(entry.libelle).toLowerCase() === name.toLowerCase();
export const environmentNamed = (entry: Entry, name: string): boolean => String(entry.key) === name || String(entry.libelle).toLowerCase() === name.toLowerCase();
export const tagNamed = (entry: Entry, name: string): boolean => String(entry.name) === name;

/** `known` with the entries named in `names` that it lacks, read by search (none when it is complete). */
export async function withNamed(resource: string, known: Lookup, names: string[], named: (entry: Entry, name: string) => boolean): Promise<Map<number, Entry>> {
  const all = new Map(known);
  if (known.complete) return all;
  for (const name of new Set(names)) {
    if ([...all.values()].some((entry) => named(entry, name))) continue;
    const answer = await request<ListAnswer<Entry>>('GET', `/config/${resource}?q=${encodeURIComponent(name)}&limit=${LIST_LIMIT_MAX}`);
    const entry = answer.body.items.find((one) => named(one, name));
    if (entry !== undefined) all.set(entry.id, entry);
  }
  return all;
}
