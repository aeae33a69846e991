// The databases bench:webhooks runs its services on (BENCH_WEBHOOK_DATABASES): a SQLite file
// in the bench's folder, or a database of its own on the PostgreSQL server of
// BENCH_POSTGRES_URL / TEST_POSTGRES_URL or the MariaDB server of BENCH_MARIADB_URL /
// TEST_MARIADB_URL, created here and dropped afterwards (only the ones made here).
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';

export const WEBHOOK_BENCH_BACKENDS = ['sqlite', 'postgres', 'mariadb'] as const;
export type WebhookBenchBackend = (typeof WEBHOOK_BENCH_BACKENDS)[number];

const POSTGRES_ADMIN_URL = process.env.BENCH_POSTGRES_URL || process.env.TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const MARIADB_ADMIN_URL = process.env.BENCH_MARIADB_URL || process.env.TEST_MARIADB_URL || 'mysql://root@127.0.0.1:3306/test';

export interface WebhookBenchDatabase {
  /** DATABASE_URL for the service. */
  readonly url: string;
  drop(): Promise<void>;
}

/** The backends named in `list` (comma separated), checked. */
export function webhookBenchBackends(list: string): WebhookBenchBackend[] {
  const names = list.split(',').map((name) => name.trim()).filter(Boolean);
  for (const name of names) {
    if (!(WEBHOOK_BENCH_BACKENDS as readonly string[]).includes(name)) throw new Error(`BENCH_WEBHOOK_DATABASES: ${name} is none of ${WEBHOOK_BENCH_BACKENDS.join(', ')}`);
  }
  return names as WebhookBenchBackend[];
}

export async function webhookBenchDatabase(backend: WebhookBenchBackend, root: string, name: string): Promise<WebhookBenchDatabase> {
  if (backend === 'sqlite') return { url: `sqlite:${join(root, `${name}.db`)}`, drop: async () => undefined };
  const database = `bench_webhooks_${randomBytes(4).toString('hex')}`;
  const adminUrl = backend === 'postgres' ? POSTGRES_ADMIN_URL : MARIADB_ADMIN_URL;
  await adminQuery(backend, `create database ${database}`);
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return {
    url: url.toString(),
    drop: () => adminQuery(backend, backend === 'postgres' ? `drop database if exists ${database} with (force)` : `drop database if exists ${database}`),
  };
}

async function adminQuery(backend: 'postgres' | 'mariadb', text: string): Promise<void> {
  if (backend === 'postgres') {
    const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
    return;
  }
  const connection = await mysql.createConnection(MARIADB_ADMIN_URL);
  try {
    await connection.query(text);
  } finally {
    await connection.end();
  }
}
