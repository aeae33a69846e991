// Several rows per INSERT: a bulk create of a thousand entries as ten statements of a hundred
// rows, not a thousand of one. In SQLite, inside a transaction, a statement that may abort
// (foreign keys, unique indexes, triggers) first copies every page it is about to change into
// a statement journal, so that it can undo itself alone: a server row changes a page of each
// of its fourteen indexes, and one statement per row paid that copy for every row, several times
// the cost of batches (the measurement: docs/decisions.md, "A bulk create is checked entry by
// entry, then stored a hundred rows per statement").
// Statement sizes come from a fixed set, so that a table and list of columns has at most three
// statement texts, whatever the sizes of the requests.
import type { SlotMaker } from './query-templates.js';

/** Rows per statement: far under every backend's limit of bound values for our tables. */
const SIZES = [100, 10, 1] as const;

/** `items` in order, cut into runs whose lengths are all in SIZES (largest first). */
export function rowBatches<T>(items: readonly T[]): T[][] {
  const batches: T[][] = [];
  let start = 0;
  for (const size of SIZES) {
    while (items.length - start >= size) {
      batches.push(items.slice(start, start + size));
      start += size;
    }
  }
  return batches;
}

/** The VALUES of a template of `count` rows of `columns`: slot row × columns + column, so that
 * the rows' values, flattened in order, fill it. */
export function slottedRows(count: number, columns: readonly string[], slot: SlotMaker): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, row) => Object.fromEntries(columns.map((column, index) => [column, slot(row * columns.length + index)])));
}
