// `npm run bench:compare`: the service's CPU time per request, this build against another
// (BENCH_BASELINE: a checkout of an earlier revision, built), for single POSTs and PATCHes of
// servers. The two run side by side on SQLite files of their own and are loaded in turns, with
// the same requests from 8 connections; CPU time per request is read from /proc. On a shared,
// noisy machine this is far steadier than requests per second, which the other load moves by
// 2x: what a change costs shows as the ratio of the medians.
//
//   git worktree add /tmp/base <revision> && (cd /tmp/base && npm ci && npm run build)
//   BENCH_BASELINE=/tmp/base npm run bench:compare
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { cpuMilliseconds, startService, type ServiceProcess } from './support/service-process.js';

const BASELINE = process.env.BENCH_BASELINE;
const REQUESTS = Number(process.env.BENCH_COMPARE_REQUESTS ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = 8;

interface Side {
  readonly name: string;
  readonly service: ServiceProcess;
  readonly dir: string;
  readonly cpu: { POST: number[]; PATCH: number[] };
}

async function side(name: string, main: string): Promise<Side> {
  const dir = mkdtempSync(join(tmpdir(), `config-api-compare-${name}-`));
  const service = await startService({ DATABASE_URL: `sqlite:${join(dir, 'config.db')}`, SECRET_KEY_FILE: join(dir, 'secret.key'), TOKEN_KEY_FILE: join(dir, 'token.key') }, 1, main);
  return { name, service, dir, cpu: { POST: [], PATCH: [] } };
}

async function load(url: string, next: () => { method: string; path: string; body: string }): Promise<void> {
  let sent = 0;
  const connection = async (): Promise<void> => {
    while (sent < REQUESTS) {
      sent += 1;
      const { method, path, body } = next();
      const response = await fetch(`${url}${path}`, { method, headers: { 'content-type': 'application/json' }, body });
      await response.arrayBuffer();
      if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}`);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, connection));
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  if (BASELINE === undefined) throw new Error('set BENCH_BASELINE to a built checkout of the revision to compare with (see the top of this file)');
  const sides = [await side('baseline', resolve(BASELINE, 'dist/main.js')), await side('this-build', resolve(import.meta.dirname, '../dist/main.js'))];
  let created = 0;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const current of sides) {
        const { url, pid } = current.service;
        let before = cpuMilliseconds(pid);
        await load(url, () => {
          created += 1;
          return { method: 'POST', path: '/en/api/config/servers', body: JSON.stringify({ ip: `10.${(created >> 16) & 255}.${(created >> 8) & 255}.${created & 255}`, hostname: `compare-${created}` }) };
        });
        current.cpu.POST.push(((cpuMilliseconds(pid) - before) * 1000) / REQUESTS);
        before = cpuMilliseconds(pid);
        await load(url, () => ({
          method: 'PATCH',
          path: `/en/api/config/servers/${1 + Math.floor(Math.random() * REQUESTS)}`,
          body: JSON.stringify({ hostname: `patched-${Math.random().toString(36).slice(2, 10)}` }),
        }));
        current.cpu.PATCH.push(((cpuMilliseconds(pid) - before) * 1000) / REQUESTS);
      }
    }
  } finally {
    for (const current of sides) {
      await current.service.stop();
      rmSync(current.dir, { recursive: true, force: true });
    }
  }
  process.stdout.write(`\n${ROUNDS} rounds of ${REQUESTS} requests, ${CONNECTIONS} connections; CPU µs per request (each round), median\n\n`);
  process.stdout.write('| request | baseline | this build | throughput this build / baseline (from CPU) |\n|---|---|---|---:|\n');
  for (const request of ['POST', 'PATCH'] as const) {
    const [base, mine] = sides.map((current) => current.cpu[request]);
    const cells = [base!, mine!].map((values) => `${values.map((value) => value.toFixed(0)).join(' / ')} (${median(values).toFixed(0)})`);
    process.stdout.write(`| ${request} | ${cells[0]} | ${cells[1]} | ${(median(base!) / median(mine!)).toFixed(2)} |\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
