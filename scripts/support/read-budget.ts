// GET by id's budget at a size whose entries do not fit the entry cache: the main-thread time
// a request may take for the service to answer at the 0.7 of node:http (a server whose
// JavaScript runs on one thread answers at most one request per that time), beside what node:http,
// the read floor (scripts/support/read-floor-server.ts) and the service spend. A request read from
// the entry cache plus the floor's read (the floor minus node:http) is about the least a
// service that reads the row can spend: the figure says whether 0.7 is in reach at all.

/** The figure for GET by id: this share of bare node:http's requests a second. */
const TARGET = 0.7;

export interface BudgetRow {
  readonly rows: number;
  readonly scenario: string;
  readonly project: { readonly requestsPerSecond: number; readonly threadMicros?: number };
  readonly ceiling: { readonly requestsPerSecond: number; readonly threadMicros?: number };
}

/** The note, when `rows` has the three rows it needs: GET by id (`miss`), its read floor
 * (`floor`) and GET by id from the entry cache (`cached`). */
export function readBudget(rows: number, results: readonly BudgetRow[], names: { miss: string; floor: string; cached: string }): string[] {
  const find = (name: string) => results.find((row) => row.rows === rows && row.scenario === name);
  const [miss, floor, cached] = [find(names.miss), find(names.floor), find(names.cached)];
  if (miss === undefined || floor === undefined || cached === undefined) return [];
  const times = [miss.project.threadMicros, miss.ceiling.threadMicros, floor.project.threadMicros, floor.ceiling.threadMicros, cached.project.threadMicros];
  if (times.some((time) => time === undefined)) return [];
  const [missTime, nodeTime, floorTime, floorNodeTime, cachedTime] = times as [number, number, number, number, number];
  const budget = 1e6 / (TARGET * miss.ceiling.requestsPerSecond);
  const read = floorTime - floorNodeTime;
  const least = cachedTime + read;
  const micros = (value: number): string => `${value.toFixed(1)} µs`;
  return [
    `${rows} servers: GET by id's budget: ${TARGET} of node:http's ${miss.ceiling.requestsPerSecond} req/s leaves ${micros(budget)} of main-thread time a request; ` +
      `node:http spends ${micros(nodeTime)}, the read floor ${micros(read)} more (its read); the service ${micros(cachedTime)} from its entry cache and ${micros(missTime)} for random ids; ` +
      `from the cache plus the floor's read ${micros(least)}: ${least <= budget ? 'within' : 'over'} the budget, so about ${(1e6 / least / miss.ceiling.requestsPerSecond).toFixed(2)} of node:http at best for a service that reads the row`,
  ];
}
