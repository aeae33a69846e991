// GET by id's budget at a size whose entries do not fit the entry cache: the main-thread time
// a request may take for the service to answer at the 0.7 of node:http (a server whose
// JavaScript runs on one thread answers at most one request per that time), beside what the
// read floors (scripts/support/read-floor-server.ts) and the service spend. Two least costs:
// - Fastify reading the row and nothing else: the least any service on this stack spends;
// - the service's answer from its entry cache plus the node:http floor's read (the floor
//   minus node:http): the least this service spends, with its own work (log line, request
//   id, ETag, hooks) but a miss paying nothing beyond the read.
// The note says whether 0.7 is in reach at all, and what the service spends beyond them.

/** The figure for GET by id: this share of bare node:http's requests a second. */
const TARGET = 0.7;

export interface BudgetRow {
  readonly rows: number;
  readonly scenario: string;
  readonly project: { readonly requestsPerSecond: number; readonly threadMicros?: number };
  readonly ceiling: { readonly requestsPerSecond: number; readonly threadMicros?: number };
}

/** The note, when `rows` has the four rows it needs: GET by id (`miss`), the node:http and
 * Fastify read floors (`floor`, `frameworkFloor`) and GET by id from the entry cache (`cached`). */
export function readBudget(rows: number, results: readonly BudgetRow[], names: { miss: string; floor: string; frameworkFloor: string; cached: string }): string[] {
  const find = (name: string) => results.find((row) => row.rows === rows && row.scenario === name);
  const [miss, floor, frameworkFloor, cached] = [find(names.miss), find(names.floor), find(names.frameworkFloor), find(names.cached)];
  if (miss === undefined || floor === undefined || frameworkFloor === undefined || cached === undefined) return [];
  const times = [miss.project.threadMicros, miss.ceiling.threadMicros, floor.project.threadMicros, floor.ceiling.threadMicros, frameworkFloor.project.threadMicros, cached.project.threadMicros];
  if (times.some((time) => time === undefined)) return [];
  const [missTime, nodeTime, floorTime, floorNodeTime, frameworkTime, cachedTime] = times as [number, number, number, number, number, number];
  const budget = 1e6 / (TARGET * miss.ceiling.requestsPerSecond);
  const read = floorTime - floorNodeTime;
  const least = cachedTime + read;
  const micros = (value: number): string => `${value.toFixed(1)} µs`;
  const verdict = (time: number): string => `${time <= budget ? 'within' : 'over'} the budget, about ${(1e6 / time / miss.ceiling.requestsPerSecond).toFixed(2)} of node:http at best`;
  return [
    `${rows} servers: GET by id's budget: ${TARGET} of node:http's ${miss.ceiling.requestsPerSecond} req/s leaves ${micros(budget)} of main-thread time a request; ` +
      `node:http spends ${micros(nodeTime)}, its read floor ${micros(read)} more (the read); ` +
      `Fastify reading the row and nothing else ${micros(frameworkTime)}: ${verdict(frameworkTime)} for any service on Fastify; ` +
      `the service's answer from its entry cache ${micros(cachedTime)}, plus the read ${micros(least)}: ${verdict(least)} for this service; ` +
      `the service spends ${micros(missTime)} for random ids, ${micros(missTime - frameworkTime)} beyond Fastify's floor`,
  ];
}
