// `npm run bench:config`: the apply of contract section 18 (issue #34's figures), on SQLite (or
// BENCH_DATABASE=postgres), against the built service as an operator runs it:
// - a document creating 10,000 servers (BENCH_CONFIG_CREATE) with 100 tags, 100 clients and
//   20 environments, each server with a client, an environment and two tags: one POST /apply
//   on a fresh database, BENCH_ROUNDS times;
// - its floor, in the same round and database: the same number of servers with their tag
//   links stored by bare multi-row INSERTs through Kysely (support/config-floor.ts);
// - a document of 100,000 servers (BENCH_CONFIG_UNCHANGED) applied once (timed too), then its
//   dry run over the unchanged store, BENCH_ROUNDS times, then its apply, which must write
//   nothing.
// BENCH_BASELINE=path/to/main.js (another build, e.g. a copy of dist/ from before a change)
// runs that build beside this one, in alternating turns on databases of their own, so that a
// change shows as a ratio taken under the same load. CPU time is read from /proc (the
// service's process, and on PostgreSQL the server's backends serving it).
// BENCH_SERVICE_EXEC_ARGV: Node options for the services (e.g. "--cpu-prof --cpu-prof-dir=…").
// Figures go to docs/performance.md with `uptime`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bareInsertFloor } from './support/config-floor.js';
import { benchBackend, createBenchDatabase, serviceCpuMeter, type BenchDatabase } from './support/bench-database.js';
import { machine, median, ROUNDS, startBenchService, uptime } from './support/bench-kit.js';
import type { ServiceProcess } from './support/service-process.js';

const CREATE = Number(process.env.BENCH_CONFIG_CREATE ?? 10_000);
const UNCHANGED = Number(process.env.BENCH_CONFIG_UNCHANGED ?? 100_000);
const BASELINE = process.env.BENCH_BASELINE;
const EXEC_ARGV = (process.env.BENCH_SERVICE_EXEC_ARGV ?? '').split(' ').filter(Boolean);

const address = (block: number, index: number): string => `10.${block}.${Math.floor(index / 250)}.${(index % 250) + 1}`;

function fleetDocument(servers: number, block: number): Record<string, unknown> {
  const tags = Array.from({ length: 100 }, (_, index) => ({ name: `tag-${index}` }));
  const clients = Array.from({ length: 100 }, (_, index) => ({ libelle: `client-${index}` }));
  const environments = Array.from({ length: 20 }, (_, index) => ({ libelle: `Env ${index}`, key: `env-${index}`, class: 'info', letter: 'E' }));
  const entries = Array.from({ length: servers }, (_, index) => ({
    ip: address(block + Math.floor(index / 60_000), index % 60_000),
    port: 3306,
    hostname: `db-${block}-${index}`,
    id_client: `client-${index % 100}`,
    id_environment: `env-${index % 20}`,
    tags: [`tag-${index % 100}`, `tag-${(index + 1) % 100}`],
  }));
  return { version: 1, tags, clients, environments, servers: entries };
}

interface Timed {
  readonly ms: number;
  readonly cpuMs: number;
  readonly answer: any;
}

async function post(side: Running, path: string, body: unknown): Promise<Timed> {
  const text = JSON.stringify(body);
  const cpu = await serviceCpuMeter(side.service.pid, side.database);
  const started = performance.now();
  const response = await fetch(`${side.service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
  const answer = await response.json();
  const ms = performance.now() - started;
  if (response.status >= 300) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(answer).slice(0, 500)}`);
  return { ms, cpuMs: await cpu(), answer };
}

interface Side {
  readonly name: string;
  readonly main: string | undefined;
}

interface Running {
  readonly side: Side;
  readonly dir: string;
  readonly database: BenchDatabase;
  readonly service: ServiceProcess;
  stop(): Promise<void>;
}

async function start(side: Side): Promise<Running> {
  const dir = mkdtempSync(join(tmpdir(), `config-api-bench-config-${side.name}-`));
  const database = await createBenchDatabase(benchBackend(), dir);
  const env = { DATABASE_URL: database.url, REQUEST_TIMEOUT_MS: '600000', DATABASE_QUERY_TIMEOUT_MS: '600000', HEAVY_QUERY_WAIT_MS: '600000' };
  const service = await startBenchService(dir, env, { main: side.main, execArgv: EXEC_ARGV });
  return {
    side,
    dir,
    database,
    service,
    stop: async () => {
      await service.stop();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const seconds = (ms: number): string => (ms / 1000).toFixed(2);
const spread = (values: readonly number[]): string => values.map(seconds).join(', ');

/** The sides in alternating order, round by round: neither always goes first. */
const turn = <T>(sides: readonly T[], round: number): T[] => (round % 2 === 0 ? [...sides] : [...sides].reverse());

async function main(): Promise<void> {
  const backend = benchBackend();
  const sides: Side[] = [{ name: 'this', main: undefined }, ...(BASELINE === undefined ? [] : [{ name: 'baseline', main: BASELINE }])];
  const lines: string[] = [];
  const say = (line: string): void => {
    lines.push(line);
    console.log(line);
  };
  say(`${machine()}, ${backend}, ${CREATE} creates, ${UNCHANGED} unchanged, ${ROUNDS} rounds`);
  say(`uptime before: ${uptime()}`);

  // Creates: a fresh database per side and round, the floor in the same database after it.
  const creates = new Map(sides.map((side) => [side.name, { ms: [] as number[], cpu: [] as number[], floor: [] as number[], floorCpu: [] as number[] }]));
  const floorServers = Array.from({ length: CREATE }, (_, index) => ({ ip: address(90, index), hostname: `floor-${index}`, tags: [`tag-${index % 100}`, `tag-${(index + 1) % 100}`] }));
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of turn(sides, round)) {
      const running = await start(side);
      try {
        const created = await post(running, '/en/api/apply', fleetDocument(CREATE, 20));
        if (created.answer.counts.create !== CREATE + 220) throw new Error(`expected ${CREATE + 220} creates: ${JSON.stringify(created.answer.counts)}`);
        const floor = await bareInsertFloor(running.database.url, floorServers);
        const figures = creates.get(side.name)!;
        figures.ms.push(created.ms);
        figures.cpu.push(created.cpuMs);
        figures.floor.push(floor.ms);
        figures.floorCpu.push(floor.cpuMs);
        say(`round ${round} ${side.name}: apply creating ${CREATE} ${seconds(created.ms)} s (CPU ${seconds(created.cpuMs)} s), floor ${seconds(floor.ms)} s (CPU ${seconds(floor.cpuMs)} s); ${uptime()}`);
      } finally {
        await running.stop();
      }
    }
  }

  // Unchanged: one database per side, both services up, dry runs in turns.
  const dry = new Map(sides.map((side) => [side.name, { ms: [] as number[], cpu: [] as number[], first: 0, again: 0 }]));
  const document = fleetDocument(UNCHANGED, 30);
  const running: Running[] = [];
  try {
    for (const side of sides) {
      const one = await start(side);
      running.push(one);
      const first = await post(one, '/en/api/apply', document);
      dry.get(side.name)!.first = first.ms;
      say(`${side.name}: apply creating ${UNCHANGED} ${seconds(first.ms)} s (CPU ${seconds(first.cpuMs)} s); ${uptime()}`);
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const one of turn(running, round)) {
        const answer = await post(one, '/en/api/apply?dry_run=true', document);
        if (answer.answer.counts.unchanged !== UNCHANGED + 220) throw new Error(`the dry run found changes: ${JSON.stringify(answer.answer.counts)}`);
        dry.get(one.side.name)!.ms.push(answer.ms);
        dry.get(one.side.name)!.cpu.push(answer.cpuMs);
        say(`round ${round} ${one.side.name}: dry run of the unchanged ${UNCHANGED} ${seconds(answer.ms)} s (CPU ${seconds(answer.cpuMs)} s); ${uptime()}`);
      }
    }
    for (const one of running) {
      const lastBefore = (await post(one, '/en/api/apply?dry_run=true', { version: 1 })).answer.change_id;
      const again = await post(one, '/en/api/apply', document);
      const wrote = again.answer.counts.create + again.answer.counts.update + again.answer.counts.delete;
      if (wrote !== 0 || again.answer.change_id !== lastBefore) throw new Error(`the apply of an unchanged document wrote: ${JSON.stringify(again.answer.counts)}`);
      dry.get(one.side.name)!.again = again.ms;
    }
  } finally {
    for (const one of running) await one.stop();
  }
  say(`uptime after:  ${uptime()}`);
  say(new Date().toISOString());

  say(`\n| scenario (${backend}) | side | s (median) | runs | CPU s (median) | target s |\n|---|---|---:|---|---:|---:|`);
  for (const side of sides) {
    const c = creates.get(side.name)!;
    say(`| apply creating ${CREATE.toLocaleString('en')} servers (+100 tags, 100 clients, 20 environments) | ${side.name} | ${seconds(median(c.ms))} | ${spread(c.ms)} | ${seconds(median(c.cpu))} | < 3 |`);
    say(`| floor: the same servers and tag links by bare 100-row INSERTs (Kysely, one transaction) | ${side.name} run | ${seconds(median(c.floor))} | ${spread(c.floor)} | ${seconds(median(c.floorCpu))} | |`);
  }
  for (const side of sides) {
    const d = dry.get(side.name)!;
    say(`| apply creating ${UNCHANGED.toLocaleString('en')} servers (once) | ${side.name} | ${seconds(d.first)} | | | |`);
    say(`| dry run of the unchanged ${UNCHANGED.toLocaleString('en')}-server document | ${side.name} | ${seconds(median(d.ms))} | ${spread(d.ms)} | ${seconds(median(d.cpu))} | < 5 |`);
    say(`| apply of the unchanged document (0 changes, no change record) | ${side.name} | ${seconds(d.again)} | | | |`);
  }
  const mine = creates.get('this')!;
  say(`\napply / floor (medians): time ${(median(mine.ms) / median(mine.floor)).toFixed(1)}x, CPU ${(median(mine.cpu) / median(mine.floorCpu)).toFixed(1)}x`);
  if (BASELINE !== undefined) {
    const base = creates.get('baseline')!;
    const [dThis, dBase] = [dry.get('this')!, dry.get('baseline')!];
    say(`this / baseline, creates: time ${(median(mine.ms) / median(base.ms)).toFixed(2)}, CPU ${(median(mine.cpu) / median(base.cpu)).toFixed(2)}`);
    say(`this / baseline, dry runs: time ${(median(dThis.ms) / median(dBase.ms)).toFixed(2)}, CPU ${(median(dThis.cpu) / median(dBase.cpu)).toFixed(2)}`);
  }
}

await main();
