// The fleet-scale list part of `npm run bench` (contract section 15, issue 16): the first
// page of each single filter, sort and `q`, a cursor page at the end of the list, and a poll
// of an unchanged list with If-None-Match, each to be read next to the plain first page;
// plus the median of single requests sent one after another.

import { render } from './bench-kit.js';
import type { RequestTemplate } from './wrk.js';

export interface ListScenario {
  name: string;
  /** wrk's request (scripts/support/wrk.ts: `{{...}}` is evaluated per request). */
  template: RequestTemplate;
}

const SERVERS = '/en/api/config/servers';
/** The plain first page as the database serves it (no list cache): what the others are read against. */
export const PLAIN_PAGE = 'list plain, no cache';

/** The seed's values: server i (from 0) has ip 10.a.b.c from i, hostname seed-i, port
 * 3306 + i % 10, and one in 20 is not monitored (see seedServers in seed.ts). A server is
 * picked from the last nine tenths by the request's sequence number n (spread by a prime):
 * one pick serves every part of the request. */
export async function listScenarios(url: string, rows: number): Promise<ListScenario[]> {
  const first = Math.floor(rows / 10);
  const pick = `(${first} + (n * 7919) % ${rows - first})`;
  const ip = `10.{{math.floor(${pick} / 65536) % 256}}.{{math.floor(${pick} / 256) % 256}}.{{${pick} % 256}}`;
  // The last 8 characters of seed-<i>: every pick has as many digits as rows - 1.
  const digits = String(rows - 1).length;
  const qPrefix = digits >= 8 ? '' : 'seed-'.slice(-(8 - digits));
  // A cursor for the page at the end of the list, and the tag of an unchanged list.
  const deep = (await (await fetch(`${url}${SERVERS}?limit=100&offset=${Math.max(0, rows - 150)}`)).json()) as { next: string | null };
  const polled = await fetch(`${url}${SERVERS}?limit=100&sort=hostname`);
  await polled.arrayBuffer();
  const etag = polled.headers.get('etag') ?? '';
  const get = (name: string, path: string, headers?: Record<string, string>): ListScenario => ({ name, template: { method: 'GET', path, ...(headers === undefined ? {} : { headers }) } });
  return [
    get('list ?ip=', `${SERVERS}?limit=100&ip=${ip}`),
    get('list ?hostname=', `${SERVERS}?limit=100&hostname=seed-{{${pick}}}`),
    get('list ?port=', `${SERVERS}?limit=100&port={{3306 + n % 10}}`),
    get('list ?is_monitored=f', `${SERVERS}?limit=100&is_monitored=false`),
    get('list ?sort=-updated', `${SERVERS}?limit=100&sort=-updated_at`),
    get('list ?sort=hostname', `${SERVERS}?limit=100&sort=hostname`),
    get('list ?q= (8 chars)', `${SERVERS}?limit=100&q=${qPrefix}{{${pick} % ${10 ** Math.min(digits, 8)}}}`),
    get('list cursor at end', `${SERVERS}?limit=100&after=${deep.next ?? ''}`),
    // As the service ships: a poll costs the tag's one row read, cache or not.
    get('list 304 poll', `${SERVERS}?limit=100&sort=hostname`, { 'if-none-match': etag }),
  ];
}

/** The median time of `count` single requests of each scenario, sent one after another. */
export async function singleRequestMedians(url: string, rows: number, scenarios: readonly ListScenario[], count = 7): Promise<string[]> {
  const notes: string[] = [];
  for (const scenario of scenarios) {
    const times: number[] = [];
    for (let i = 0; i < count; i++) {
      const request = render(scenario.template);
      const started = performance.now();
      const response = await fetch(`${url}${request.path}`, { headers: request.headers });
      await response.arrayBuffer();
      times.push(performance.now() - started);
      if (response.status >= 400) throw new Error(`${scenario.name}: ${response.status}`);
    }
    times.sort((a, b) => a - b);
    notes.push(`${scenario.name}: median of ${count} single requests ${times[Math.floor(count / 2)]!.toFixed(1)} ms`);
  }
  return notes.map((note) => `${rows} servers: ${note}`);
}
