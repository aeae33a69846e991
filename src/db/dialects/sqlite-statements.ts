// Running statements on SQLite's one connection the quick way: prepared once, run at once.
import type SqliteDatabase from 'better-sqlite3';
import type { QueryResult, SqliteStatement } from 'kysely';
import { makeRoom } from '../bounded-map.js';

// Kysely prepares every query anew; SQLite then parses and plans the same few statements
// thousands of times a second. Statements are reusable (Kysely runs them to completion
// before the next), so keep them, a bounded number, by their SQL text.
const STATEMENTS_KEPT = 512;

export function statementCache(database: SqliteDatabase.Database, raw = false): (sql: string) => SqliteDatabase.Statement {
  const statements = new Map<string, SqliteDatabase.Statement>();
  return (sql) => {
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = raw ? database.prepare(sql).raw(true) : database.prepare(sql);
      makeRoom(statements, STATEMENTS_KEPT);
      statements.set(sql, statement);
    }
    return statement;
  };
}

/** What Kysely's own SQLite connection answers for a statement, without its promises. */
export function runStatement(statement: SqliteStatement, parameters: readonly unknown[]): QueryResult<unknown> {
  if (statement.reader) return { rows: statement.all(parameters) };
  const { changes, lastInsertRowid } = statement.run(parameters);
  return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
}
