// PostgreSQL parses, analyses and plans an unnamed statement every time it runs it: for the
// write path's statements (a single create's WITH clause of four parts, the sequencer's run)
// that work costs the server more than the rows they write. A statement sent with a name is
// parsed and analysed once per connection and its plan is kept (a generic plan once the server
// finds it no worse than custom ones), so each later run is Bind and Execute only.
//
// Named here: the writes (INSERT, UPDATE, DELETE, and WITH clauses, which on this path write),
// whose texts come from the store's templates and so are few. Reads are left unnamed: a generic
// plan may fit a filter's values worse than a plan made for them. The names are bounded: once
// there are MAX_NAMES, other texts run unnamed, so that a connection never holds more than that
// many prepared statements. The same text has the same name on every connection of the pool;
// node-postgres prepares it on a connection the first time that connection runs it, and drops
// its record of a statement whose Parse failed.
import pg from 'pg';

/** The most statements a connection keeps prepared. */
const MAX_NAMES = 128;
const WRITE = /^\s*(insert|update|delete|with)\s/i;

/** Names for write statements, by text. */
export class StatementNames {
  private readonly names = new Map<string, string>();

  /** The name `text` runs under, or undefined: run it unnamed. */
  of(text: string): string | undefined {
    const known = this.names.get(text);
    if (known !== undefined) return known;
    if (this.names.size >= MAX_NAMES || !WRITE.test(text)) return undefined;
    const name = `config_api_write_${this.names.size + 1}`;
    this.names.set(text, name);
    return name;
  }
}

/** A node-postgres client class that runs the write statements of `names` under their names
 * (the pool's `Client` option). Kysely calls query(text, values); any other call is as before.
 * The named query is built from the text, then named: a query config object would be copied
 * property by property (node-postgres' normalizeQueryConfig), a cost on every write. */
export function clientPreparingWrites(names: StatementNames): typeof pg.Client {
  return class PreparingClient extends pg.Client {
    override query(...args: unknown[]): any {
      const [text, values] = args;
      if (args.length === 2 && typeof text === 'string' && Array.isArray(values) && values.length > 0) {
        const name = names.of(text);
        if (name !== undefined) {
          const query = new pg.Query(text, values) as pg.Query & { name?: string; callback?: (error: Error | undefined, result: pg.QueryResult) => void };
          query.name = name;
          return new Promise<pg.QueryResult>((resolve, reject) => {
            query.callback = (error, result) => (error ? reject(error) : resolve(result));
            super.query(query as unknown as pg.Submittable);
          });
        }
      }
      return (super.query as (...all: unknown[]) => unknown)(...args);
    }
  } as typeof pg.Client;
}
