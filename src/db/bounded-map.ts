// Caches kept in a Map, bounded by dropping their oldest entries first (a Map iterates in
// insertion order). A tenth goes at once: a Map keeps a hole where each deleted entry was
// until it rehashes, and walking past thousands of holes to reach the oldest entry at every
// insert cost more than the rest of a read (docs/decisions.md, "GET by id is served from
// memory on SQLite").

/** Called before adding to `map`: once it holds `capacity` entries, drops its oldest tenth. */
export function makeRoom<K, V>(map: Map<K, V>, capacity: number): void {
  if (map.size < capacity) return;
  let count = Math.max(1, Math.floor(capacity / 10));
  for (const key of map.keys()) {
    map.delete(key);
    if (--count === 0) break;
  }
}
