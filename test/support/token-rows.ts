// Managed token rows written straight into a test server's database, thousands at once (the
// API would take a request each), then announced as a creation is: the shared generation moves,
// and every instance polling it learns of them. Digests are made with the server's own token
// key, so that a test can present the tokens it knows the secret of.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect, sql } from 'kysely';
import { createPool } from 'mysql2';
import pg from 'pg';
import { createTokenDigester, loadTokenKey } from '../../src/secrets/token-secrets.js';
import type { TestServer } from './server.js';

export interface TokenRow {
  name: string;
  scope: 'read' | 'write' | 'admin';
  /** The secret; a random one (that no test presents) when left out. */
  secret?: string;
  allowed_ips: string[] | null;
}

function open(server: TestServer): Kysely<any> {
  const { database } = server;
  if (database.backend === 'sqlite') {
    const file = new SqliteDatabase(database.file!);
    file.pragma('busy_timeout = 10000');
    return new Kysely({ dialect: new SqliteDialect({ database: file }) });
  }
  if (database.backend === 'postgres') return new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.url, max: 1 }) }) });
  return new Kysely({ dialect: new MysqlDialect({ pool: createPool({ uri: database.url, connectionLimit: 1 }) }) });
}

/** `count` ranges of one token: IPv4 and IPv6 networks, all distinct, in canonical form. */
export function manyRanges(seed: number, count: number): string[] {
  return Array.from({ length: count }, (_, i) => (i % 2 === 0 ? `10.${seed % 256}.${i}.0/24` : `2001:db8:${seed.toString(16)}:${i.toString(16)}::/64`));
}

/** Inserts the rows in batches and moves the generation, in one transaction. */
export async function insertTokenRows(server: TestServer, rows: readonly TokenRow[]): Promise<void> {
  const digester = createTokenDigester(loadTokenKey(undefined, join(server.dataDir, 'token.key')));
  const now = new Date().toISOString();
  const db = open(server);
  try {
    await db.transaction().execute(async (tx) => {
      for (let start = 0; start < rows.length; start += 100) {
        const batch = rows.slice(start, start + 100).map((row) => ({
          name: row.name,
          scope: row.scope,
          digest: digester.digest(row.secret ?? randomBytes(32).toString('base64url')),
          expires_at: null,
          allowed_ips: row.allowed_ips === null ? null : JSON.stringify(row.allowed_ips),
          last_used_at: null,
          created_at: now,
          updated_at: now,
        }));
        await tx.insertInto('api_tokens').values(batch).execute();
      }
      await tx
        .updateTable('api_token_state')
        .set({ generation: sql`generation + 1`, key_check: digester.keyCheck })
        .where('id', '=', 1)
        .execute();
    });
  } finally {
    await db.destroy();
  }
}
