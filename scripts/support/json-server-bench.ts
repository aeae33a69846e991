// json-server (1.0 beta, a mock REST server holding its rows in memory and writing its JSON
// file on every change) as a point of comparison for `npm run bench` (issue 16): a list page
// of 100 of the same 2,000 tags, and a POST of a tag. 1.0.0-beta.3 is the newest 1.0 beta
// that runs on Node 20 (the later ones need Node 22.12); it is pinned in devDependencies.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { freePort } from './free-port.js';

const BIN = resolve(import.meta.dirname, '../../node_modules/json-server/lib/bin.js');
export const COMPARED_TAGS = 2000;

const tag = (i: number) => ({ name: `compared-${i}`, color: '#ffffff', background: '#337ab7' });

export interface JsonServer {
  readonly url: string;
  close(): Promise<void>;
}

/** Gives the service `COMPARED_TAGS` tags in all (bulk POSTs), and starts json-server on a
 * file holding as many, with the same fields. */
export async function startJsonServer(dataDir: string, serviceUrl: string): Promise<JsonServer> {
  const existing = ((await (await fetch(`${serviceUrl}/en/api/config/tags?limit=1`)).json()) as { total: number }).total;
  for (let start = existing; start < COMPARED_TAGS; start += 1000) {
    const batch = Array.from({ length: Math.min(1000, COMPARED_TAGS - start) }, (_, i) => tag(start + i));
    const response = await fetch(`${serviceUrl}/en/api/config/tags`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(batch) });
    await response.arrayBuffer();
    if (response.status !== 201) throw new Error(`json-server bench: bulk POST of tags answered ${response.status}`);
  }
  const now = new Date().toISOString();
  const file = join(dataDir, 'json-server.json');
  writeFileSync(file, JSON.stringify({ tags: Array.from({ length: COMPARED_TAGS }, (_, i) => ({ id: String(i + 1), ...tag(i), created_at: now, updated_at: now })) }));
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [BIN, file, '--port', String(port), '--host', '127.0.0.1'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  while (!(await fetch(`${url}/tags/1`).then((r) => r.ok, () => false))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error('json-server did not start');
    await new Promise((done) => setTimeout(done, 100));
  }
  return {
    url,
    close: () =>
      new Promise((done) => {
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}

let created = 0;

/** Each scenario as the service is asked it, and as json-server is. */
export function comparedScenarios(): { name: string; method: 'GET' | 'POST'; service: () => { path: string; body?: string }; jsonServer: () => { path: string; body?: string } }[] {
  const body = () => {
    created += 1;
    return JSON.stringify({ name: `posted-${created}`, color: '#ffffff', background: '#337ab7' });
  };
  return [
    { name: 'tags page (100)', method: 'GET', service: () => ({ path: '/en/api/config/tags?limit=100' }), jsonServer: () => ({ path: '/tags?_page=1&_per_page=100' }) },
    { name: 'POST tag', method: 'POST', service: () => ({ path: '/en/api/config/tags', body: body() }), jsonServer: () => ({ path: '/tags', body: body() }) },
  ];
}
