// Health probes under a burst of heavy lists (issue "Hardening", probes starved by heavy
// lists): a few thousand servers, 200 clients on keep-alive connections each asking for
// pages of 1,000 servers with a text search, and /healthz must still answer at once. Every
// heavy list is either served (200) or refused 503 UNAVAILABLE with Retry-After, as the
// OpenAPI document of the list operation says.
//
// The probe and the load run in processes of their own: the load's client, which reads
// megabytes of answers, would otherwise delay the probe's answer on the client side, and the
// reading of the service's log by this process, and be measured too.
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { test } from 'node:test';
import { HeavyWorkGate } from '../src/pipeline/heavy-work-gate.js';
import { startServer } from './support/server.js';
import { until } from './support/until.js';

const SERVERS = '/en/api/config/servers';
const SEEDED = 3000;
const CLIENTS = 200;
const REQUESTS_PER_CLIENT = 2;
// Generous for a shared two-core machine; without the bound on heavy work it took seconds.
const HEALTH_P99_MS = 250;
// With the bound, a probe waits at most for the one heavy list running when it arrives (and
// the sockets polled with it). On a machine so loaded that one list alone takes longer than
// a quarter of the bound, the bound is that many lists instead; without the bound on heavy
// work, a probe waited for a whole burst of them.
const SINGLE_LISTS_BOUND = 4;

/** Probes /healthz and /readyz in turn, on a keep-alive connection of its own, every 10 ms
 * until its stdin ends, then writes the latencies (ms) of each as JSON. */
const PROBER = `
import http from 'node:http';
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const latencies = { '/healthz': [], '/readyz': [] };
let running = true;
process.stdin.on('end', () => (running = false)).resume();
for (let n = 0; running; n++) {
  const probe = n % 2 === 0 ? '/healthz' : '/readyz';
  const started = performance.now();
  const status = await new Promise((done, fail) => http.get(process.argv[1] + probe, { agent }, (res) => { res.resume(); res.on('end', () => done(res.statusCode)); }).on('error', fail));
  if (status !== 200) throw new Error(probe + ' answered ' + status);
  latencies[probe].push(performance.now() - started);
  await new Promise((done) => setTimeout(done, 10));
}
agent.destroy();
process.stdout.write(JSON.stringify(latencies));
`;

/** 200 clients, each on a keep-alive connection of its own, each asking for its own pages
 * (so that the list cache serves none); writes the statuses it got, and every 503 (up to 50)
 * as it came, as JSON. */
const LOADER = `
import http from 'node:http';
const [url, path, clients, perClient] = process.argv.slice(1);
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(clients) });
const statuses = {};
const refusals = [];
const get = (target) => new Promise((done, fail) => http.get(url + target, { agent }, (res) => {
  const chunks = [];
  res.on('data', (chunk) => chunks.push(chunk));
  res.on('end', () => done({ status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
}).on('error', fail));
await Promise.all(Array.from({ length: Number(clients) }, async (_, client) => {
  for (let k = 0; k < Number(perClient); k++) {
    const target = path + '?limit=1000&q=a&offset=' + (client * Number(perClient) + k);
    const reply = await get(target);
    statuses[reply.status] = (statuses[reply.status] ?? 0) + 1;
    if (reply.status !== 200 && refusals.length < 50) refusals.push({ path: target, ...reply });
  }
}));
agent.destroy();
process.stdout.write(JSON.stringify({ statuses, refusals }));
`;

/** Runs an ES module script in a process of its own: the service's log, which this process
 * reads from a pipe the service writes synchronously (src/logging/turn-batched-stdout.ts),
 * must not wait for a test process busy with the load. */
function runScript(script: string, args: string[]): { child: ChildProcessWithoutNullStreams; exit: Promise<number | null>; output: () => string } {
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, ...args]);
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => process.stderr.write(chunk));
  return { child, exit: new Promise((done) => child.once('close', done)), output: () => output };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

test('HeavyWorkGate: one job at a time, a bounded queue, a 503 with Retry-After past it or past the wait', async () => {
  const gate = new HeavyWorkGate({ concurrency: 1, queue: 1, waitMs: 50 });
  let release!: () => void;
  const first = gate.run(() => new Promise<string>((done) => (release = () => done('first'))));
  await new Promise((done) => setImmediate(done));
  const second = gate.run(async () => 'second');
  const third = gate.run(async () => 'third');
  await assert.rejects(third, (error: { code?: string; headers?: Record<string, string> }) => error.code === 'UNAVAILABLE' && error.headers?.['retry-after'] === '1', 'queue full: refused at once');
  release();
  assert.deepEqual(await Promise.all([first, second]), ['first', 'second'], 'the waiter gets the slot');
  let hold!: () => void;
  const holding = gate.run(() => new Promise<void>((done) => (hold = done)));
  await new Promise((done) => setImmediate(done));
  await assert.rejects(gate.run(async () => 'late'), (error: { code?: string }) => error.code === 'UNAVAILABLE', 'no turn within waitMs: refused');
  hold();
  await holding;
  assert.equal(await gate.run(async () => 'after'), 'after', 'the gate is free again');
});

test('/healthz answers within its bound while 200 clients ask for heavy lists; each list is 200 or 503 with Retry-After', { timeout: 180_000 }, async (t) => {
  const server = await startServer();
  try {
    for (let start = 0; start < SEEDED; start += 1000) {
      const batch = Array.from({ length: 1000 }, (_, i) => ({ ip: `10.${(start + i) >> 16}.${((start + i) >> 8) & 255}.${(start + i) & 255}`, port: 3306, hostname: `load-${start + i}-alpha.example` }));
      const created = await server.request('POST', SERVERS, { body: batch });
      assert.equal(created.status, 201, created.text);
    }
    // One heavy list alone, now, on this machine: the median of five (checked against the
    // document, as every answer of server.request is).
    const singles: number[] = [];
    for (let n = 0; n < 5; n++) {
      const started = performance.now();
      const page = await server.request('GET', `${SERVERS}?limit=1000&q=a&offset=${500 + n}`);
      singles.push(performance.now() - started);
      assert.equal(page.status, 200);
      assert.equal(page.body.items.length, 1000);
    }
    const single = singles.sort((a, b) => a - b)[2]!;
    const bound = Math.max(HEALTH_P99_MS, SINGLE_LISTS_BOUND * single);

    const prober = runScript(PROBER, [server.url]);
    // Its first answers: it is up before the load starts.
    await new Promise((done) => setTimeout(done, 300));
    const started = performance.now();
    const load = runScript(LOADER, [server.url, SERVERS, String(CLIENTS), String(REQUESTS_PER_CLIENT)]);
    load.child.stdin.end();
    assert.equal(await load.exit, 0, 'the load ran');
    const loadMs = performance.now() - started;
    prober.child.stdin.end();
    assert.equal(await prober.exit, 0, 'the probes were all 200: alive and ready throughout');

    const { statuses, refusals } = JSON.parse(load.output()) as { statuses: Record<string, number>; refusals: { path: string; status: number; headers: Record<string, string>; text: string }[] };
    const probes = JSON.parse(prober.output()) as Record<'/healthz' | '/readyz', number[]>;
    const figures = (name: '/healthz' | '/readyz') => {
      const sorted = probes[name].sort((a, b) => a - b);
      return { count: sorted.length, p50: percentile(sorted, 0.5), p90: percentile(sorted, 0.9), p99: percentile(sorted, 0.99), max: sorted.at(-1)! };
    };
    const [health, ready] = [figures('/healthz'), figures('/readyz')];
    const said = (name: string, f: typeof health) => `${name} ${f.count} probes: p50 ${f.p50.toFixed(1)} ms, p90 ${f.p90.toFixed(1)} ms, p99 ${f.p99.toFixed(1)} ms, max ${f.max.toFixed(1)} ms`;
    t.diagnostic(
      `one heavy list alone ${single.toFixed(1)} ms, bound ${bound.toFixed(0)} ms; load ${Math.round(loadMs)} ms, statuses ${JSON.stringify(statuses)}; ${said('/healthz', health)}; ${said('/readyz', ready)}`,
    );
    assert.deepEqual(Object.keys(statuses).filter((status) => status !== '200' && status !== '503'), [], 'every heavy list is 200 or 503');
    assert.ok((statuses['200'] ?? 0) > 0, 'some heavy lists were served');
    for (const refusal of refusals) {
      server.checkResponse('GET', refusal.path, { status: refusal.status, headers: new Headers(refusal.headers), text: refusal.text });
      assert.match(refusal.headers['retry-after'] ?? '', /^\d+$/, 'a 503 says when to retry');
      assert.match(refusal.headers['content-type'] ?? '', /^application\/problem\+json/);
      assert.equal(JSON.parse(refusal.text).code, 'UNAVAILABLE');
    }
    if ((statuses['503'] ?? 0) > 0) {
      // Shedding load is one warning a second, not a failure logged per request.
      await until('the refusals are logged', () => /"level":40,[^\n]*"msg":"heavy requests refused 503/.test(server.logs()), 5000);
      assert.doesNotMatch(server.logs(), /"msg":"request failed"/);
    }
    assert.ok(health.count >= 10, `enough probes ran during the load (${health.count})`);
    // With a few dozen probes the p99 is the single slowest, which one stall of a shared,
    // loaded machine decides; the 90th percentile is what the load itself does. Without the
    // bound on heavy work nearly every probe waited behind seconds of lists, so this still
    // fails by far (the figures: docs/operations.md, "Health under load").
    assert.ok(health.p90 < bound, `/healthz p90 ${health.p90.toFixed(1)} ms under load, bound ${bound.toFixed(0)} ms`);
    assert.ok(ready.p90 < bound, `/readyz p90 ${ready.p90.toFixed(1)} ms under load, bound ${bound.toFixed(0)} ms`);
  } finally {
    await server.stop();
    await server.cleanup();
  }
});
