// One statement straight on a test server's database, not through the service: to set up a
// state the API cannot make (rows made as if long ago). `?` placeholders on every backend.
import SqliteDatabase from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import type { TestDatabase } from './test-database.js';

export async function runStatement(database: TestDatabase, statement: string, params: unknown[] = []): Promise<any[]> {
  if (database.backend === 'sqlite') {
    const db = new SqliteDatabase(database.file!, { timeout: 10_000 });
    try {
      const prepared = db.prepare(statement);
      if (prepared.reader) return prepared.all(...params);
      prepared.run(...params);
      return [];
    } finally {
      db.close();
    }
  }
  if (database.backend === 'postgres') {
    let n = 0;
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      return (await client.query(statement.replace(/\?/g, () => `$${++n}`), params)).rows;
    } finally {
      await client.end();
    }
  }
  const connection = await mysql.createConnection({ uri: database.url, charset: 'utf8mb4' });
  try {
    const [rows] = await connection.query(statement, params);
    return Array.isArray(rows) ? (rows as any[]) : [];
  } finally {
    await connection.end();
  }
}
