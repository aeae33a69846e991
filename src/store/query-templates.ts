// Kysely builds an operation tree and compiles it to SQL on every call, which costs more than
// SQLite takes to run a lookup by primary key. The store's statements follow few templates
// (one per resource and sort of query), so each template is compiled once, by the dialect's
// own compiler, with numbered slots where a call's values go; a call only fills the slots.
import { CompiledQuery, type Compilable, type Kysely, type QueryResult } from 'kysely';
import { makeRoom } from '../db/bounded-map.js';

/** Stands for the value of slot `index` while a template is compiled. */
class Slot {
  constructor(readonly index: number) {}
}

/** DatabaseHandle.readRowNow. */
export type ReadRowNow = (sql: string, parameters: readonly unknown[]) => unknown[] | null | undefined;

/** DatabaseHandle.readRowsNow. */
export type ReadRowsNow = (sql: string, parameters: readonly unknown[]) => unknown[][] | undefined;

/** Hands out the placeholders a query template is built with. */
export type SlotMaker = (index: number) => any;

const makeSlot: SlotMaker = (index) => new Slot(index);

export class QueryTemplate<Row> {
  private constructor(
    private readonly sql: string,
    private readonly parameters: readonly unknown[],
  ) {}

  static compile<Row>(build: (slot: SlotMaker) => Compilable<Row>): QueryTemplate<Row> {
    const compiled = build(makeSlot).compile();
    return new QueryTemplate<Row>(compiled.sql, compiled.parameters);
  }

  /** Runs on `executor` (the database or a transaction, whatever tables it is typed with)
   * with `values` in the slots. */
  execute(executor: Pick<Kysely<never>, 'executeQuery'>, values: readonly unknown[]): Promise<QueryResult<Row>> {
    return executor.executeQuery(this.with(values));
  }

  /** The first row's values of a read with `values` in the slots, in the order selected, read
   * at once where `readRowNow` can (DatabaseHandle.readRowNow): null when there is no row,
   * undefined when it cannot now (then `execute` it). */
  rowNow(readRowNow: ReadRowNow | undefined, values: readonly unknown[]): unknown[] | null | undefined {
    return readRowNow?.(this.sql, this.parametersWith(values));
  }

  /** Every row's values of a read, the same way (DatabaseHandle.readRowsNow). */
  rowsNow(readRowsNow: ReadRowsNow | undefined, values: readonly unknown[]): unknown[][] | undefined {
    return readRowsNow?.(this.sql, this.parametersWith(values));
  }

  /** The statement with `values` in the slots. */
  with(values: readonly unknown[]): CompiledQuery<Row> {
    return CompiledQuery.raw(this.sql, this.parametersWith(values)) as CompiledQuery<Row>;
  }

  private parametersWith(values: readonly unknown[]): unknown[] {
    return this.parameters.map((parameter) => (parameter instanceof Slot ? values[parameter.index] : parameter));
  }
}

// List queries have a template per combination of filters and sort keys: far more than are
// ever used, so the least recently compiled are dropped past this many.
const TEMPLATES_KEPT = 1024;

/** Compiled templates by a key naming the template; a store holds one. */
export class QueryTemplates {
  private readonly templates = new Map<string, QueryTemplate<any>>();

  /** `build` runs only the first time `key` is asked for: the key must name everything the
   * SQL text depends on (table, columns, clauses), and the values nothing else. */
  get<Row>(key: string, build: (slot: SlotMaker) => Compilable<Row>): QueryTemplate<Row> {
    let query = this.templates.get(key);
    if (query === undefined) {
      query = QueryTemplate.compile(build);
      makeRoom(this.templates, TEMPLATES_KEPT);
      this.templates.set(key, query);
    }
    return query;
  }
}
