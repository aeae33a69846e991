// json-server (1.0 beta, a mock REST server holding its rows in memory and writing its JSON
// file on every change) as a peer of `npm run bench`, on the same 2,000 tags as the service
// and Platformatic DB. 1.0.0-beta.3 is the newest 1.0 beta that runs on Node 20 (the later
// ones need Node 22.12); it is pinned in devDependencies.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { freePort } from './free-port.js';
import type { PeerServer } from './bench-peers.js';

const BIN = resolve(import.meta.dirname, '../../node_modules/json-server/lib/bin.js');
export const COMPARED_TAGS = 2000;

export interface ComparedTag {
  name: string;
  color: string;
  background: string;
}

export const comparedTags = (): ComparedTag[] => Array.from({ length: COMPARED_TAGS }, (_, i) => ({ name: `compared-${i}`, color: '#ffffff', background: '#337ab7' }));

/** Gives the service these tags (bulk POSTs of 1,000). */
export async function seedServiceTags(serviceUrl: string, tags: readonly ComparedTag[]): Promise<void> {
  for (let start = 0; start < tags.length; start += 1000) {
    const response = await fetch(`${serviceUrl}/en/api/config/tags`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(tags.slice(start, start + 1000)) });
    await response.arrayBuffer();
    if (response.status !== 201) throw new Error(`bench: bulk POST of tags answered ${response.status}`);
  }
}

/** json-server on a file holding these tags, with the service's fields. */
export async function startJsonServer(dataDir: string, tags: readonly ComparedTag[]): Promise<PeerServer> {
  const now = new Date().toISOString();
  const file = join(dataDir, 'json-server.json');
  writeFileSync(file, JSON.stringify({ tags: tags.map((tag, i) => ({ id: String(i + 1), ...tag, created_at: now, updated_at: now })) }));
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [BIN, file, '--port', String(port), '--host', '127.0.0.1'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  while (!(await fetch(`${url}/tags/1`).then(async (r) => (await r.arrayBuffer(), r.ok), () => false))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error('json-server did not start');
    await new Promise((done) => setTimeout(done, 100));
  }
  return {
    url,
    pid: child.pid!,
    close: () =>
      new Promise((done) => {
        if (child.exitCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}
