// Straight into a fresh SQLite file, for the benchmark: a million servers through HTTP would
// take minutes. Also managed API tokens, made as the service makes them (src/secrets): a
// secret, and its keyed digest under the service's token key file.
import SqliteDatabase from 'better-sqlite3';
import { createTokenDigester, loadTokenKey, newTokenSecret } from '../../src/secrets/token-secrets.js';
import { seedFleet } from './fleet-bench.js';

/** `count` servers, with clients, tags and their links where the schema has them: an earlier
 * build's schema (the bench's BENCH_BASELINE) may have none of the fleet model nor the search
 * index. */
export function seedServers(databaseFile: string, count: number): void {
  const db = new SqliteDatabase(databaseFile);
  const has = (name: string): boolean => db.prepare(`select 1 from sqlite_master where name = ?`).get(name) !== undefined;
  const fleet = has('server_tags');
  const insert = db.prepare(
    `insert into servers (ip, port, hostname, ssl, ssh, is_proxy, is_vip, is_monitored, is_deleted, live, created_at, updated_at)
     values (?, ?, ?, 0, 0, 0, 0, ?, 0, 1, ?, ?)`,
  );
  const now = new Date().toISOString();
  const started = Date.now();
  // The servers' indexes and search triggers are dropped for the insert and made again after
  // it: a sort per index instead of a million B-tree insertions each (minutes at 1M rows).
  const schema = db.prepare(`select type, name, sql from sqlite_master where tbl_name = 'servers' and type in ('index', 'trigger') and sql is not null`).all() as { type: string; name: string; sql: string }[];
  db.pragma('cache_size = -262144');
  db.transaction(() => {
    for (const item of schema) db.exec(`drop ${item.type} ${item.name}`);
    // Ports 3306-3315, one server in 20 not monitored, a distinct updated_at each.
    for (let i = 0; i < count; i++) {
      const changed = new Date(started - (count - i) * 1000).toISOString();
      insert.run(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, 3306 + (i % 10), `seed-${i}`, i % 20 === 0 ? 0 : 1, now, changed);
    }
    db.prepare(`update resource_counts set total = total + ?, live = live + ? where table_name = 'servers'`).run(count, count);
    if (fleet) seedFleet(db, count, now);
    for (const item of schema.filter((entry) => entry.type === 'index')) db.exec(item.sql);
    if (has('servers_search')) db.exec(`insert into servers_search(servers_search) values ('rebuild')`);
    for (const item of schema.filter((entry) => entry.type === 'trigger')) db.exec(item.sql);
  })();
  // Statistics for the planner, as a service that has run a while has them.
  db.exec('analyze');
  db.close();
}

export function countServers(databaseFile: string): number {
  const db = new SqliteDatabase(databaseFile, { readonly: true });
  const row = db.prepare('select count(*) as n from servers').get() as { n: number };
  db.close();
  return row.n;
}

/** Adds `count` read tokens and moves the generation, as a creation through the API does (a
 * running service reads them within a second); resolves to the last token's secret. */
export function seedTokens(databaseFile: string, tokenKeyFile: string, count: number): string {
  const digester = createTokenDigester(loadTokenKey(undefined, tokenKeyFile));
  const db = new SqliteDatabase(databaseFile);
  const insert = db.prepare(`insert into api_tokens (name, scope, digest, created_at, updated_at) values (?, 'read', ?, ?, ?)`);
  const now = new Date().toISOString();
  let token = '';
  db.transaction(() => {
    const first = (db.prepare('select count(*) as n from api_tokens').get() as { n: number }).n;
    for (let i = 0; i < count; i++) {
      token = newTokenSecret();
      insert.run(`bench-${first + i}`, digester.digest(token), now, now);
    }
    db.prepare(`update resource_counts set total = total + ?, live = live + ? where table_name = 'api_tokens'`).run(count, count);
    db.prepare('update api_token_state set generation = generation + 1, key_check = ? where id = 1').run(digester.keyCheck);
  })();
  db.close();
  return token;
}
