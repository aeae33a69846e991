// Kysely builds an operation tree and compiles it to SQL on every call, which costs more than
// SQLite takes to run a lookup by primary key. The store's statements have few shapes (one per
// resource and kind of query), so each shape is compiled once, by the dialect's own compiler,
// with numbered slots where a call's values go; a call only fills the slots.
import { CompiledQuery, type Compilable, type Kysely, type QueryResult } from 'kysely';
import { makeRoom } from './bounded-map.js';

/** Stands for the value of slot `index` while a shape is compiled. */
class Slot {
  constructor(readonly index: number) {}
}

/** Hands out the placeholders a query shape is built with. */
export type SlotMaker = (index: number) => any;

const makeSlot: SlotMaker = (index) => new Slot(index);

export class PreparedQuery<Row> {
  private constructor(
    private readonly sql: string,
    private readonly parameters: readonly unknown[],
  ) {}

  static compile<Row>(build: (slot: SlotMaker) => Compilable<Row>): PreparedQuery<Row> {
    const compiled = build(makeSlot).compile();
    return new PreparedQuery<Row>(compiled.sql, compiled.parameters);
  }

  /** Runs on `executor` (the database or a transaction) with `values` in the slots. */
  execute(executor: Kysely<any>, values: readonly unknown[]): Promise<QueryResult<Row>> {
    const parameters = this.parameters.map((parameter) => (parameter instanceof Slot ? values[parameter.index] : parameter));
    return executor.executeQuery(CompiledQuery.raw(this.sql, parameters) as CompiledQuery<Row>);
  }
}

// List queries have a shape per combination of filters and sort keys: far more than are ever
// used, so the least recently compiled are dropped past this many.
const SHAPES_KEPT = 1024;

/** Compiled shapes by a key naming the shape; a store holds one. */
export class PreparedQueries {
  private readonly shapes = new Map<string, PreparedQuery<any>>();

  /** `build` runs only the first time `key` is asked for: the key must name everything the
   * SQL text depends on (table, columns, clauses), and the values nothing else. */
  get<Row>(key: string, build: (slot: SlotMaker) => Compilable<Row>): PreparedQuery<Row> {
    let query = this.shapes.get(key);
    if (query === undefined) {
      query = PreparedQuery.compile(build);
      makeRoom(this.shapes, SHAPES_KEPT);
      this.shapes.set(key, query);
    }
    return query;
  }
}
