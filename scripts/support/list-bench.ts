// The fleet-scale list part of `npm run bench` (contract section 15, issue 16): the first
// page of each single filter, sort and `q`, a cursor page at the end of the list, and a poll
// of an unchanged list with If-None-Match, each to be read next to the plain first page;
// plus the median of single requests sent one after another.

export interface ListScenario {
  name: string;
  /** Measured on the service without its list cache: what the query costs (see bench.ts). */
  uncached?: true;
  method: 'GET';
  next: () => { path: string; headers?: Record<string, string> };
}

const SERVERS = '/en/api/config/servers';
/** The plain first page as the database serves it (no list cache): what the others are read against. */
export const PLAIN_PAGE = 'list plain, no cache';

/** The seed's values: server i (from 0) has ip 10.a.b.c from i, hostname seed-i, port
 * 3306 + i % 10, and one in 20 is not monitored (see seedServers in bench.ts). */
export async function listScenarios(url: string, rows: number): Promise<ListScenario[]> {
  const pick = (): number => Math.floor(rows / 10 + Math.random() * (rows - rows / 10));
  const ip = (i: number): string => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  // A cursor for the page at the end of the list, and the tag of an unchanged list.
  const deep = (await (await fetch(`${url}${SERVERS}?limit=100&offset=${Math.max(0, rows - 150)}`)).json()) as { next: string | null };
  const polled = await fetch(`${url}${SERVERS}?limit=100&sort=hostname`);
  await polled.arrayBuffer();
  const etag = polled.headers.get('etag') ?? '';
  const get = (name: string, path: () => string): ListScenario => ({ name, uncached: true, method: 'GET', next: () => ({ path: path() }) });
  return [
    get('list ?ip=', () => `${SERVERS}?limit=100&ip=${ip(pick())}`),
    get('list ?hostname=', () => `${SERVERS}?limit=100&hostname=seed-${pick()}`),
    get('list ?port=', () => `${SERVERS}?limit=100&port=${3306 + Math.floor(Math.random() * 10)}`),
    get('list ?is_monitored=f', () => `${SERVERS}?limit=100&is_monitored=false`),
    get('list ?sort=-updated', () => `${SERVERS}?limit=100&sort=-updated_at`),
    get('list ?sort=hostname', () => `${SERVERS}?limit=100&sort=hostname`),
    get('list ?q= (8 chars)', () => `${SERVERS}?limit=100&q=${`seed-${pick()}`.slice(-8)}`),
    get('list cursor at end', () => `${SERVERS}?limit=100&after=${deep.next ?? ''}`),
    // As the service ships: a poll costs the tag's one row read, cache or not.
    { name: 'list 304 poll', method: 'GET', next: () => ({ path: `${SERVERS}?limit=100&sort=hostname`, headers: { 'if-none-match': etag } }) },
  ];
}

/** The median time of `count` single requests of each scenario, sent one after another. */
export async function singleRequestMedians(url: string, rows: number, scenarios: readonly Pick<ListScenario, 'name' | 'next'>[], count = 7): Promise<string[]> {
  const notes: string[] = [];
  for (const scenario of scenarios) {
    const times: number[] = [];
    for (let i = 0; i < count; i++) {
      const request = scenario.next();
      const started = performance.now();
      const response = await fetch(`${url}${request.path}`, { headers: request.headers ?? {} });
      await response.arrayBuffer();
      times.push(performance.now() - started);
      if (response.status >= 400) throw new Error(`${scenario.name}: ${response.status}`);
    }
    times.sort((a, b) => a - b);
    notes.push(`${scenario.name}: median of ${count} single requests ${times[Math.floor(count / 2)]!.toFixed(1)} ms`);
  }
  return notes.map((note) => `${rows} servers: ${note}`);
}

/** Each list scenario's throughput as a share of the plain first page's, and its CPU time per
 * request as a multiple of the plain page's (the steadier figure on a loaded VM). */
export function relativeToPlainPage(
  rows: number,
  results: readonly { rows: number; scenario: string; project: { requestsPerSecond: number; cpuMicros?: number } }[],
): string[] {
  const plain = results.find((row) => row.rows === rows && row.scenario === PLAIN_PAGE);
  if (plain === undefined) return [];
  const cpu = (row: { project: { cpuMicros?: number } }) => (row.project.cpuMicros === undefined ? '' : `, CPU ${Math.round(row.project.cpuMicros)} µs/request, ${(row.project.cpuMicros / plain.project.cpuMicros!).toFixed(2)}x the plain page's`);
  return [
    `${rows} servers: ${PLAIN_PAGE} ${plain.project.requestsPerSecond} req/s${cpu(plain).replace(/, [^,]*x the plain page's$/, '')}`,
    ...results
      .filter((row) => row.rows === rows && row.scenario.startsWith('list '))
      .map((row) => `${rows} servers: ${row.scenario} ${row.project.requestsPerSecond} req/s, ${(row.project.requestsPerSecond / plain.project.requestsPerSecond).toFixed(2)}x the plain first page${cpu(row)}`),
  ];
}
