// `npm run soak`: a steady mixed load on loopback against a service this script starts —
// 60 % GET by id, 20 % list pages, 10 % POST, 10 % PATCH — for SOAK_SECONDS (default 180)
// at SOAK_RATE requests per second (default 200). It prints, per time window, throughput,
// p99 latency, errors and the service's resident memory, then a verdict. It exits non-zero
// if any request failed (connection error, timeout or non-2xx) or if the median RSS of the
// last third of the run exceeds that of the first third by more than SOAK_RSS_TOLERANCE
// (default 0.10, i.e. 10 %). DATABASE_URL defaults to a fresh SQLite file.
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { residentMegabytes, startService } from './support/service-process.js';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 180);
const RATE = Number(process.env.SOAK_RATE ?? 200);
const CONNECTIONS = Number(process.env.SOAK_CONNECTIONS ?? 16);
const RSS_TOLERANCE = Number(process.env.SOAK_RSS_TOLERANCE ?? 0.1);
const WINDOWS = 12;
const REQUEST_TIMEOUT_MS = 10_000;
const SEED = 200;

interface Window {
  startedAt: number;
  latencies: number[];
  errors: number;
  rssMegabytes?: number;
}

interface Call {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  body?: string;
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function median(values: number[]): number {
  return percentile(values, 50);
}

async function post(url: string, path: string, body: unknown): Promise<number> {
  const reply = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (reply.status !== 201) throw new Error(`seeding ${path} answered ${reply.status}: ${await reply.text()}`);
  return ((await reply.json()) as { id: number }).id;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'config-api-soak-'));
  const service = await startService({
    DATABASE_URL: process.env.DATABASE_URL ?? `sqlite:${join(dataDir, 'config.db')}`,
    SECRET_KEY_FILE: join(dataDir, 'secret.key'),
    TOKEN_KEY_FILE: join(dataDir, 'token.key'),
  });
  const run = Date.now().toString(36);
  const tagIds: number[] = [];
  const serverIds: number[] = [];
  for (let i = 0; i < SEED; i++) {
    tagIds.push(await post(service.url, '/en/api/config/tags', { name: `soak-${run}-seed-${i}` }));
    serverIds.push(await post(service.url, '/en/api/config/servers', { ip: `10.77.${i >> 8}.${i & 255}`, port: 3306, hostname: `soak-${i}` }));
  }

  let counter = 0;
  const pick = <T>(list: T[]): T => list[Math.floor(Math.random() * list.length)]!;
  const next = (): Call => {
    const roll = Math.random();
    counter++;
    if (roll < 0.6) return { method: 'GET', path: `/en/api/config/tags/${pick(tagIds)}` };
    if (roll < 0.8) return { method: 'GET', path: `/en/api/config/servers?limit=50&offset=${Math.floor(Math.random() * 150)}` };
    if (roll < 0.9) return { method: 'POST', path: '/en/api/config/tags', body: JSON.stringify({ name: `soak-${run}-${counter}` }) };
    return { method: 'PATCH', path: `/en/api/config/servers/${pick(serverIds)}`, body: JSON.stringify({ hostname: `soak-patched-${counter}` }) };
  };

  const windowMs = (SECONDS * 1000) / WINDOWS;
  const started = Date.now();
  const windows: Window[] = [{ startedAt: started, latencies: [], errors: 0 }];
  const current = (): Window => windows[windows.length - 1]!;
  const sampler = setInterval(() => {
    current().rssMegabytes = residentMegabytes(service.pid);
    if (windows.length < WINDOWS) windows.push({ startedAt: Date.now(), latencies: [], errors: 0 });
  }, windowMs);

  // Open loop: requests leave on a fixed schedule whatever the answers' speed, so a slow
  // answer shows as latency instead of silently lowering the rate (coordinated omission).
  // Node 20's Agent heeds the server's "Keep-Alive: timeout=N" (dropping an idle socket just
  // before the server does) only when it has a timeout of its own; without one it may reuse
  // a socket at the moment the server closes it, and count the server's legitimate
  // keep-alive expiry as an error.
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS, timeout: REQUEST_TIMEOUT_MS });
  let due = 0;
  const failures: string[] = [];
  let inFlight = 0;
  const send = (): void => {
    const call = next();
    const window = current();
    const sentAt = performance.now();
    inFlight++;
    const request = httpRequest(`${service.url}${call.path}`, {
      method: call.method,
      agent,
      timeout: REQUEST_TIMEOUT_MS,
      headers: call.body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(call.body) },
    });
    const finish = (failure?: string): void => {
      inFlight--;
      window.latencies.push(performance.now() - sentAt);
      if (failure === undefined) return;
      window.errors++;
      if (failures.length < 10) failures.push(`${call.method} ${call.path}: ${failure}`);
    };
    request.on('response', (reply) => {
      let text = '';
      reply.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      reply.on('end', () => {
        const status = reply.statusCode ?? 0;
        finish(status >= 200 && status < 300 ? undefined : `${status} ${text.slice(0, 200)}`);
      });
    });
    request.on('timeout', () => request.destroy(new Error('no answer in time')));
    request.on('error', (error: NodeJS.ErrnoException) => finish(`${error.code ?? ''} ${error.message}`));
    request.end(call.body);
  };
  await new Promise<void>((done) => {
    const pacer = setInterval(() => {
      const elapsed = Date.now() - started;
      if (elapsed >= SECONDS * 1000) {
        clearInterval(pacer);
        done();
        return;
      }
      const target = Math.floor((elapsed / 1000) * RATE);
      for (; due < target; due++) send();
    }, 2);
  });
  while (inFlight > 0) await new Promise((done) => setTimeout(done, 20));
  agent.destroy();
  clearInterval(sampler);
  if (current().rssMegabytes === undefined) current().rssMegabytes = residentMegabytes(service.pid);
  const exitCode = await service.stop();
  rmSync(dataDir, { recursive: true, force: true });

  process.stdout.write(
    `\nsoak: ${SECONDS} s at ${RATE} req/s target, ${CONNECTIONS} connections; ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ` +
      `Node ${process.version}, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC\n\n` +
      '| window (s) | requests | req/s | p99 ms | errors | RSS MiB |\n|---|---|---|---|---|---|\n',
  );
  for (const w of windows) {
    const from = (w.startedAt - started) / 1000;
    const seconds = windowMs / 1000;
    process.stdout.write(
      `| ${from.toFixed(0)}–${(from + seconds).toFixed(0)} | ${w.latencies.length} | ${Math.round(w.latencies.length / seconds)} | ${percentile(w.latencies, 99).toFixed(1)} | ${w.errors} | ${w.rssMegabytes?.toFixed(0) ?? '-'} |\n`,
    );
  }

  const all = windows.flatMap((w) => w.latencies);
  const errors = windows.reduce((sum, w) => sum + w.errors, 0);
  const rss = windows.map((w) => w.rssMegabytes ?? 0);
  const third = Math.max(1, Math.floor(rss.length / 3));
  const first = median(rss.slice(0, third));
  const last = median(rss.slice(-third));
  const growth = (last - first) / first;
  const memoryOk = growth <= RSS_TOLERANCE;
  process.stdout.write(
    `\ntotal ${all.length} requests, ${Math.round(all.length / SECONDS)} req/s, p99 ${percentile(all, 99).toFixed(1)} ms, ` +
      `errors ${errors}; RSS median first third ${first.toFixed(0)} MiB, last third ${last.toFixed(0)} MiB ` +
      `(${growth >= 0 ? '+' : ''}${(growth * 100).toFixed(1)} %, tolerance ${(RSS_TOLERANCE * 100).toFixed(0)} %); ` +
      `service exit code ${exitCode}\n` +
      `${errors === 0 && memoryOk && exitCode === 0 ? 'PASS' : 'FAIL'}\n`,
  );
  for (const failure of failures) process.stdout.write(`  failed: ${failure}\n`);
  process.exitCode = errors === 0 && memoryOk && exitCode === 0 ? 0 : 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
