// `npm run bench:webhooks` (issue #32): the figures of the webhook deliveries, on SQLite,
// receivers on loopback in this process answering 204 at once (BENCH_WEBHOOK_CHANGES: how
// many changes scenarios 2 and 4 write, 10,000):
// 1. POST of a server with three subscribed webhooks against the same POST with none: two
//    services in alternating wrk rounds (bench-kit), the goal 0.9 of the throughput.
// 2. Deliveries a second sustained to one fast receiver: 10,000 changes written in bulk
//    requests, from the first to the last delivery; beside it the floor, the same number of
//    signed POSTs of the same size from a bare sender in a process of its own
//    (support/webhook-floor-sender.ts), new connections as the service makes them, and
//    kept-alive ones.
// 3. Commit to receiver: from a change record's `at` (taken just before its commit) to the
//    delivery's arrival, for single POSTs one at a time, then from 8 writers at once.
// 4. 10,000 deliveries pending for a dead receiver (connections refused): GET p99 before and
//    while they wait and are retried, the service's resident memory, and none lost.
// `uptime` before and after: the machine's load is part of every figure.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { alternate, figures, goalsTable, machine, median, ROUNDS, SECONDS, startBenchService, table, uptime } from './support/bench-kit.js';
import { cpuMilliseconds, residentMegabytes, type ServiceProcess } from './support/service-process.js';
import { ensureWrk, runWrk } from './support/wrk.js';

const TOKEN = randomBytes(24).toString('hex');
const AUTH = { authorization: `Bearer ${TOKEN}` };
const CHANGES = Number(process.env.BENCH_WEBHOOK_CHANGES ?? 10_000);
const BULK = 1000;
const CONCURRENCY = 32;

interface Receiver {
  readonly url: string;
  /** Arrivals: when, and the delay from the change record's `at`. */
  readonly arrivals: { at: number; delayMs: number; bytes: number }[];
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const arrivals: Receiver['arrivals'] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const now = Date.now();
      const at = /"data":\{"id":\d+,"at":"([^"]+)"/.exec(body);
      arrivals.push({ at: now, delayMs: at === null ? Number.NaN : now - Date.parse(at[1]!), bytes: Buffer.byteLength(body) });
      response.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrivals,
    close: async () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

async function closedPort(): Promise<number> {
  const probe = createNetServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  probe.close();
  await once(probe, 'close');
  return port;
}

async function api(service: ServiceProcess, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${service.url}${path}`, { method, headers: { ...AUTH, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text === '' ? undefined : JSON.parse(text);
}

async function webhook(service: ServiceProcess, name: string, url: string, resources: string[]): Promise<number> {
  return (await api(service, 'POST', '/en/api/webhooks', { name, url, resources })).id;
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 300_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

async function metric(service: ServiceProcess, name: string): Promise<number> {
  const text = await (await fetch(`${service.url}/metrics`, { headers: AUTH })).text();
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
}

/** The bare sender's time for `count` signed POSTs of `bytes` to `url`, in ms. */
function floorSend(url: string, count: number, bytes: number, mode: 'new' | 'keep-alive'): Promise<number> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'support', 'webhook-floor-sender.ts'), url, String(count), String(CONCURRENCY), String(bytes), mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  return new Promise((done, fail) => {
    child.on('exit', (code) => {
      const sent = /sent \d+ in (\d+)/.exec(output);
      if (code !== 0 || sent === null) fail(new Error(`the floor sender exited with ${code}: ${output}`));
      else done(Number(sent[1]));
    });
  });
}

async function startOne(root: string, name: string): Promise<ServiceProcess> {
  return startBenchService(root, {
    DATABASE_URL: `sqlite:${join(root, `${name}.db`)}`,
    API_TOKENS: `bench=admin:${TOKEN}`,
    WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
  }, { log: `${name}.log` });
}

const rate = (count: number, ms: number): string => `${Math.round(count / (ms / 1000))}/s`;

async function main(): Promise<void> {
  ensureWrk();
  const root = mkdtempSync(join(tmpdir(), 'bench-webhooks-'));
  console.log(`# bench:webhooks\n\n${machine()}; ${ROUNDS} rounds of ${SECONDS} s; SQLite\n\nbefore: ${uptime()}\n`);
  const receivers = await Promise.all([startReceiver(), startReceiver(), startReceiver(), startReceiver()]);
  const hooked = await startOne(root, 'three-webhooks');
  const bare = await startOne(root, 'no-webhook');
  try {
    // 1. The cost of a write with three webhooks.
    for (let i = 0; i < 3; i++) await webhook(hooked, `receiver-${i}`, receivers[i]!.url, ['servers']);
    const post = { method: 'POST' as const, path: '/en/api/config/servers', headers: { ...AUTH, 'content-type': 'application/json' }, body: '{"ip":"10.{{math.floor(n / 65536) % 256}}.{{math.floor(n / 256) % 256}}.{{n % 256}}","port":{{3306 + math.floor(n / 16777216) % 1000}}}' };
    const measured = await alternate([
      { name: 'service, 3 webhooks', url: hooked.url, pid: hooked.pid, request: post },
      { name: 'service, no webhook', url: bare.url, pid: bare.pid, request: post },
    ]);
    const rows = figures('sqlite', 'POST /servers', measured);
    console.log(`## 1. A write with three webhooks\n\n${table(rows)}\n\n${goalsTable([{ scenario: 'POST /servers', against: 'service, no webhook', atLeast: 0.9, source: '#32' }], rows)}\n`);
    const created = measured[0]!.rounds.reduce((sum, round) => sum + round.answered, 0);
    await waitFor('the three receivers got every change', () => receivers.slice(0, 3).every((r) => r.arrivals.length >= created));
    console.log(`every change of the three-webhook service delivered to each receiver (${receivers[0]!.arrivals.length} each).\n`);
    await hooked.stop();

    // 2. Deliveries a second to one fast receiver, and the floor.
    const fast = receivers[3]!;
    await webhook(bare, 'fast', fast.url, ['tags']);
    const started = Date.now();
    const cpuBefore = cpuMilliseconds(bare.pid);
    for (let start = 0; start < CHANGES; start += BULK) {
      await api(bare, 'POST', '/en/api/config/tags', Array.from({ length: BULK }, (_, i) => ({ name: `t-${start + i}` })));
    }
    const written = Date.now();
    await waitFor(`${CHANGES} deliveries`, () => fast.arrivals.length >= CHANGES);
    const cpuPerChange = ((cpuMilliseconds(bare.pid) - cpuBefore) * 1000) / CHANGES;
    const first = fast.arrivals[0]!.at;
    const last = fast.arrivals[CHANGES - 1]!.at;
    const bytes = Math.round(median(fast.arrivals.map((a) => a.bytes)));
    const floorNew = await floorSend(fast.url, CHANGES, bytes - 80, 'new');
    const floorKept = await floorSend(fast.url, CHANGES, bytes - 80, 'keep-alive');
    console.log('## 2. Deliveries a second to one fast receiver\n');
    console.log('| what | count | ms | rate | service ÷ floor |\n|---|---:|---:|---:|---:|');
    console.log(`| service: first to last delivery | ${CHANGES} | ${last - first} | ${rate(CHANGES, last - first)} | |`);
    console.log(`| service: first request to last delivery (writes ${written - started} ms) | ${CHANGES} | ${last - started} | ${rate(CHANGES, last - started)} | |`);
    console.log(`| floor: bare sender, new connection each (as the service) | ${CHANGES} | ${floorNew} | ${rate(CHANGES, floorNew)} | ${(floorNew / (last - first)).toFixed(2)} |`);
    console.log(`| floor: bare sender, kept-alive connections | ${CHANGES} | ${floorKept} | ${rate(CHANGES, floorKept)} | ${(floorKept / (last - first)).toFixed(2)} |`);
    console.log(`\nbodies of ${bytes} bytes; the service's CPU per change, written and delivered: ${Math.round(cpuPerChange)} µs; goal 1,000/s sustained.\n`);

    // 3. Commit to receiver.
    const latency = async (writers: number, each: number): Promise<number[]> => {
      const from = fast.arrivals.length;
      let n = 0;
      await Promise.all(Array.from({ length: writers }, async () => {
        for (let i = 0; i < each; i++) await api(bare, 'POST', '/en/api/config/tags', { name: `l-${writers}-${n++}` });
      }));
      await waitFor('the latency deliveries', () => fast.arrivals.length >= from + writers * each);
      return fast.arrivals.slice(from).map((a) => a.delayMs);
    };
    console.log('## 3. Commit to receiver (one instance)\n\n| writers | changes | p50 ms | p99 ms | max ms |\n|---:|---:|---:|---:|---:|');
    for (const [writers, each] of [[1, 300], [8, 100]] as const) {
      const delays = await latency(writers, each);
      console.log(`| ${writers} | ${delays.length} | ${percentile(delays, 50)} | ${percentile(delays, 99)} | ${Math.max(...delays)} |`);
    }
    console.log('\ngoal: p99 under 250 ms.\n');

    // 4. 10,000 pending for a dead receiver.
    const get = { method: 'GET' as const, path: '/en/api/config/tags/1', headers: AUTH };
    await runWrk(bare.url, get, 2);
    const quiet = [];
    for (let i = 0; i < ROUNDS; i++) quiet.push(await runWrk(bare.url, get, SECONDS));
    await api(bare, 'DELETE', `/en/api/webhooks/${(await api(bare, 'GET', '/en/api/webhooks?name=fast')).items[0].id}`);
    await webhook(bare, 'dead', `http://127.0.0.1:${await closedPort()}/hook`, ['clients']);
    for (let start = 0; start < CHANGES; start += BULK) {
      await api(bare, 'POST', '/en/api/config/clients', Array.from({ length: BULK }, (_, i) => ({ libelle: `c-${start + i}` })));
    }
    let peak = residentMegabytes(bare.pid);
    const sampler = setInterval(() => (peak = Math.max(peak, residentMegabytes(bare.pid))), 100);
    await waitFor('every dead delivery attempted once', async () => (await metric(bare, 'webhook_delivery_attempts_total\\{result="retrying"\\}')) >= CHANGES);
    const loaded = [];
    for (let i = 0; i < ROUNDS; i++) loaded.push(await runWrk(bare.url, get, SECONDS));
    clearInterval(sampler);
    const pending = await metric(bare, 'webhook_deliveries_pending');
    const attempts = await metric(bare, 'webhook_delivery_attempts_total\\{result="retrying"\\}');
    console.log(`## 4. ${CHANGES} deliveries pending for a dead receiver\n\n| GET /tags/1 | req/s median | p99 ms median (rounds) |\n|---|---:|---:|`);
    console.log(`| nothing pending | ${Math.round(median(quiet.map((r) => r.requestsPerSecond)))} | ${median(quiet.map((r) => r.p99Ms)).toFixed(1)} (${quiet.map((r) => r.p99Ms.toFixed(1)).join(', ')}) |`);
    console.log(`| ${CHANGES} pending, retried | ${Math.round(median(loaded.map((r) => r.requestsPerSecond)))} | ${median(loaded.map((r) => r.p99Ms)).toFixed(1)} (${loaded.map((r) => r.p99Ms.toFixed(1)).join(', ')}) |`);
    console.log(`\nresident memory peak ${peak.toFixed(0)} MB (goal under 200 MB); pending at the end ${pending} of ${CHANGES} (none lost: ${pending === CHANGES ? 'yes' : 'NO'}); attempts made ${attempts}.\n`);
  } finally {
    await bare.stop().catch(() => undefined);
    await hooked.stop().catch(() => undefined);
    for (const receiver of receivers) await receiver.close();
    rmSync(root, { recursive: true, force: true });
  }
  console.log(`after: ${uptime()}`);
}

await main();
