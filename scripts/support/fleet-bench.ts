// The fleet-model part of `npm run bench` (contract sections 11 and 12): clients, tags and
// their links seeded with the servers, and the bulk-write figures, measured one request after
// another from this process, as an importing tool would send them.
import type SqliteDatabase from 'better-sqlite3';

export const FLEET_CLIENTS = 1000;
export const FLEET_TAGS = 100;
/** Ids the seed gives its clients (99 is the platform's own) and tags. */
export const FIRST_CLIENT = 100;

/** Gives `count` seeded servers a client each and one tag each, spread evenly. */
export function seedFleet(db: SqliteDatabase.Database, count: number, now: string): void {
  const client = db.prepare(`insert into clients (id, libelle, logo, is_monitored, created_at, updated_at) values (?, ?, '', 1, ?, ?)`);
  for (let i = 0; i < FLEET_CLIENTS; i++) client.run(FIRST_CLIENT + i, `bench-client-${i}`, now, now);
  const tag = db.prepare(`insert into tags (id, name, color, background, created_at, updated_at) values (?, ?, '#ffffff', '#337ab7', ?, ?)`);
  for (let i = 1; i <= FLEET_TAGS; i++) tag.run(i, `bench-tag-${i}`, now, now);
  db.prepare(`update servers set id_client = ? + (id % ?), id_environment = 1 + (id % 6)`).run(FIRST_CLIENT, FLEET_CLIENTS);
  db.prepare(`insert into server_tags (id_server, id_tag) select id, 1 + (id % ?) from servers`).run(FLEET_TAGS);
  const counts = db.prepare(`update resource_counts set total = total + ?, live = live + ? where table_name = ?`);
  counts.run(FLEET_CLIENTS, FLEET_CLIENTS, 'clients');
  counts.run(FLEET_TAGS, FLEET_TAGS, 'tags');
}

async function post(url: string, body: unknown): Promise<number> {
  const response = await fetch(`${url}/en/api/config/servers`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await response.arrayBuffer();
  if (response.status !== 201) throw new Error(`bulk bench: POST answered ${response.status}`);
  return Array.isArray(body) ? body.length : 1;
}

let created = 0;
const newServer = (): Record<string, unknown> => {
  created += 1;
  return { ip: `192.168.${(created >> 8) & 255}.${created & 255}`, port: 20000 + (created >> 16), hostname: `bulk-${created}`, tags: [1 + (created % FLEET_TAGS)] };
};

/** 10 bulk POSTs of 1,000, then 1,000 single POSTs, each sent after the answer to the one
 * before. Resolves to the notes and the number of creates acknowledged. */
export async function bulkFigures(url: string): Promise<{ notes: string[]; acknowledged: number }> {
  let acknowledged = 0;
  let started = performance.now();
  for (let i = 0; i < 10; i++) acknowledged += await post(url, Array.from({ length: 1000 }, newServer));
  const bulk = performance.now() - started;
  started = performance.now();
  for (let i = 0; i < 1000; i++) acknowledged += await post(url, newServer());
  const singles = performance.now() - started;
  const perBulk = bulk / 10;
  return {
    acknowledged,
    notes: [
      `10 bulk POSTs of 1,000 servers, one after another: ${Math.round(bulk)} ms in all (target: under 1,000 ms)`,
      `a bulk POST of 1,000: ${Math.round(perBulk)} ms; 1,000 single POSTs one after another: ${Math.round(singles)} ms; ${(singles / perBulk).toFixed(1)}x faster (target: 20x)`,
    ],
  };
}
