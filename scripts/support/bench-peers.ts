// The servers `npm run bench` measures the service against, besides the node:http ceiling:
// - json-server 1.0.0-beta.3 (json-server-bench.ts; a devDependency, small);
// - Platformatic DB 2.61.0: CRUD generated over a SQLite file on Fastify, the closest peer.
//   It brings several hundred packages: rather than make every `npm ci` and CI run pay for
//   them in devDependencies, the bench installs this pinned version on demand into a cache
//   folder outside the repository (BENCH_CACHE, by default $XDG_CACHE_HOME/pmacontrol-bench
//   or ~/.cache/pmacontrol-bench) and reuses it. 2.61.0 is the newest 2.x; it runs on Node
//   20 (some of its dependencies declare Node 22, which npm only warns of);
// - an earlier build of this service (BENCH_BASELINE: a commit, built once into the cache
//   from `git archive`, or the path of a built checkout).
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { freePort } from './free-port.js';

export const PLATFORMATIC_VERSION = '2.61.0';
const REPOSITORY = resolve(import.meta.dirname, '../..');
const RUNNER = resolve(import.meta.dirname, 'platformatic-server.mjs');

export function benchCache(): string {
  const dir = process.env.BENCH_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'pmacontrol-bench');
  mkdirSync(dir, { recursive: true });
  return dir;
}

function run(command: string, args: readonly string[], cwd: string): void {
  const result = spawnSync(command, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed in ${cwd} (${result.status})`);
}

/** Installs the pinned Platformatic DB into the cache once; resolves to its folder. */
export function ensurePlatformatic(): string {
  const dir = join(benchCache(), `platformatic-db-${PLATFORMATIC_VERSION}`);
  const bin = join(dir, 'node_modules/@platformatic/db/index.js');
  if (existsSync(join(dir, 'installed'))) return dir;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'bench-peer-platformatic', private: true }));
  process.stderr.write(`installing @platformatic/db@${PLATFORMATIC_VERSION} into ${dir} (once)\n`);
  run('npm', ['install', '--save-exact', '--no-audit', '--no-fund', '--loglevel=error', `@platformatic/db@${PLATFORMATIC_VERSION}`], dir);
  if (!existsSync(bin)) throw new Error(`@platformatic/db installed, but ${bin} is missing`);
  writeFileSync(join(dir, 'installed'), `${PLATFORMATIC_VERSION}\n`);
  return dir;
}

export interface PeerServer {
  readonly url: string;
  readonly pid: number;
  close(): Promise<void>;
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once('exit', () => done());
      child.kill('SIGTERM');
    });
}

async function until(url: string, child: ChildProcess, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await fetch(url).then(async (r) => (await r.arrayBuffer(), r.ok), () => false))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${what} did not start (see its log in the bench's data folder)`);
    await new Promise((done) => setTimeout(done, 200));
  }
}

/** Platformatic DB over a SQLite file of its own holding `tags` (the same rows as the
 * service's: id, name, color, background; it stamps created_at and updated_at itself), its
 * logger at the service's level, to a file. */
export async function startPlatformatic(dataDir: string, tags: readonly { name: string; color: string; background: string }[], logLevel: string): Promise<PeerServer> {
  const installed = ensurePlatformatic();
  const dir = join(dataDir, 'platformatic');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'migrations'), { recursive: true });
  const db = new SqliteDatabase(join(dir, 'db.sqlite'));
  db.pragma('journal_mode = WAL');
  db.exec(`create table tags (id integer primary key, name varchar(50) not null unique, color varchar(7) not null, background varchar(7) not null,
           created_at timestamp not null default current_timestamp, updated_at timestamp not null default current_timestamp)`);
  const insert = db.prepare('insert into tags (name, color, background) values (?, ?, ?)');
  db.transaction(() => tags.forEach((tag) => insert.run(tag.name, tag.color, tag.background)))();
  db.close();
  const port = await freePort();
  writeFileSync(
    join(dir, 'platformatic.json'),
    JSON.stringify({
      $schema: `https://schemas.platformatic.dev/@platformatic/db/${PLATFORMATIC_VERSION}.json`,
      server: { hostname: '127.0.0.1', port, logger: { level: logLevel } },
      db: { connectionString: `sqlite://${join(dir, 'db.sqlite')}`, graphql: false, openapi: true, events: false },
      migrations: { dir: join(dir, 'migrations'), autoApply: false },
      watch: false,
      plugins: { paths: [] },
    }),
  );
  const child = spawn(process.execPath, [RUNNER, installed, join(dir, 'platformatic.json'), String(port)], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', PLT_DISABLE_FLAMEGRAPHS: '1' },
    stdio: ['ignore', openSync(join(dataDir, 'platformatic.log'), 'a'), openSync(join(dataDir, 'platformatic.log'), 'a')],
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await until(`${url}/tags/1`, child, 'Platformatic DB');
  } catch (error) {
    await stopper(child)();
    throw error;
  }
  return { url, pid: child.pid!, close: stopper(child) };
}

/** The entry point of an earlier build: `BENCH_BASELINE` is a commit (its tree exported with
 * git archive into the cache, `npm ci`, built, once) or the path of a built checkout. */
export function ensureBaseline(baseline: string): { name: string; main: string } {
  if (existsSync(join(baseline, 'dist/main.js'))) return { name: baseline, main: resolve(baseline, 'dist/main.js') };
  const commit = execFileSync('git', ['rev-parse', '--verify', `${baseline}^{commit}`], { cwd: REPOSITORY, encoding: 'utf8' }).trim();
  const dir = join(benchCache(), `build-${commit.slice(0, 12)}`);
  const main = join(dir, 'dist/main.js');
  if (!existsSync(join(dir, 'built'))) {
    process.stderr.write(`building ${baseline} (${commit.slice(0, 12)}) into ${dir} (once)\n`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const archive = spawnSync('sh', ['-c', `git archive ${commit} | tar -x -C '${dir}'`], { cwd: REPOSITORY, stdio: 'inherit' });
    if (archive.status !== 0) throw new Error(`git archive ${commit} failed`);
    run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], dir);
    run('npm', ['run', 'build'], dir);
    writeFileSync(join(dir, 'built'), `${commit}\n`);
  }
  return { name: baseline.length > 12 ? baseline.slice(0, 12) : baseline, main };
}
