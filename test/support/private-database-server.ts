// A PostgreSQL or MariaDB server of one test's own, in a temporary folder, on a loopback port
// of its own, for the tests that restart the database under the service: the shared servers
// of the other suites are never stopped. PostgreSQL from the distribution's binaries
// (/usr/lib/postgresql/<version>/bin, initdb with trust authentication), run as the
// `postgres` user when the tests run as root (it refuses root); MariaDB from
// mariadb-install-db and mariadbd, as `mysql` when root, without grant tables (root, no
// password, as the shared one).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { freePort } from './free-port.js';
import type { Backend } from './test-database.js';

/** How long a start may take on a loaded machine (crash recovery included). */
const START_TIMEOUT_MS = 60_000;

export interface PrivateDatabaseServer {
  /** The admin URL (createTestDatabase's second argument). */
  readonly adminUrl: string;
  /** Stops the server the hard way (SIGKILL of every process of it: no checkpoint, no
   * goodbye to the sessions), then starts it again on the same port and folder: it recovers
   * from its log as after a crash. Resolves once it answers again; `downMs`: the time it
   * stays down before the start. */
  crashAndRestart(downMs: number): Promise<void>;
  /** Stops it and removes its folder. */
  remove(): Promise<void>;
}

interface Owner {
  uid: number;
  gid: number;
}

function ownerOf(user: string): Owner | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', user], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

/** The newest PostgreSQL's binaries of the distribution. */
function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((name) => existsSync(join(root, name, 'bin', 'postgres'))) : [];
  if (versions.length === 0) throw new Error(`no PostgreSQL binaries under ${root}`);
  return join(root, versions.sort((a, b) => Number(b) - Number(a))[0]!, 'bin');
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => child.once('exit', () => done()));
}

async function until(what: string, ready: () => Promise<boolean>, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await ready().catch(() => false))) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${what} exited (${child.exitCode ?? child.signalCode}):\n${log()}`);
    if (Date.now() > deadline) throw new Error(`${what} did not answer in ${START_TIMEOUT_MS} ms:\n${log()}`);
    await new Promise((done) => setTimeout(done, 100));
  }
}

export async function startPrivateDatabaseServer(backend: Exclude<Backend, 'sqlite'>): Promise<PrivateDatabaseServer> {
  const dir = mkdtempSync(join(tmpdir(), `config-api-private-${backend}-`));
  const owner = ownerOf(backend === 'postgres' ? 'postgres' : 'mysql');
  const data = join(dir, 'data');
  mkdirSync(data, { mode: 0o700 });
  if (owner !== undefined) {
    chownSync(dir, owner.uid, owner.gid);
    chownSync(data, owner.uid, owner.gid);
  }
  const port = await freePort();
  let log = '';
  let child: ChildProcess | undefined;
  const run = (command: string, args: string[]): ChildProcess => {
    const started = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true, ...owner });
    started.stdout!.setEncoding('utf8').on('data', (text: string) => (log = (log + text).slice(-20_000)));
    started.stderr!.setEncoding('utf8').on('data', (text: string) => (log = (log + text).slice(-20_000)));
    return started;
  };

  let adminUrl: string;
  let start: () => Promise<void>;
  if (backend === 'postgres') {
    const bin = postgresBin();
    execFileSync(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8'], { stdio: 'pipe', ...owner });
    adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
    start = async () => {
      // fsync off: a killed process loses nothing the kernel has, and the machine is shared.
      child = run(join(bin, 'postgres'), ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'max_connections=100']);
      await until('the private PostgreSQL', async () => {
        const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 1000 });
        await client.connect();
        await client.end();
        return true;
      }, child, () => log);
    };
  } else {
    execFileSync('mariadb-install-db', [`--datadir=${data}`, '--auth-root-authentication-method=normal', '--skip-test-db', ...(owner === undefined ? [] : ['--user=mysql'])], { stdio: 'pipe' });
    adminUrl = `mysql://root@127.0.0.1:${port}/mysql`;
    start = async () => {
      child = run('mariadbd', [
        '--no-defaults',
        `--datadir=${data}`,
        `--port=${port}`,
        `--socket=${join(dir, 'mariadb.sock')}`,
        `--pid-file=${join(dir, 'mariadb.pid')}`,
        '--bind-address=127.0.0.1',
        '--skip-grant-tables',
        '--innodb-flush-log-at-trx-commit=2',
        '--innodb-buffer-pool-size=64M',
        ...(owner === undefined ? [] : ['--user=mysql']),
      ]);
      await until('the private MariaDB', async () => {
        const connection = await mysql.createConnection({ uri: adminUrl, connectTimeout: 1000 });
        await connection.end();
        return true;
      }, child, () => log);
    };
  }
  await start();

  // Every process of the server at once, as a power cut or the OOM killer would: it leads a
  // process group of its own (detached), which PostgreSQL's backends are in too.
  const kill = async (): Promise<void> => {
    const running = child;
    if (running?.pid === undefined) return;
    try {
      process.kill(-running.pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
    await exited(running);
    // A new postmaster refuses to start while a backend of the old one still holds its memory.
    const deadline = Date.now() + 10_000;
    while (groupAlive(running.pid) && Date.now() < deadline) await new Promise((done) => setTimeout(done, 50));
  };

  return {
    adminUrl,
    async crashAndRestart(downMs) {
      await kill();
      await new Promise((done) => setTimeout(done, downMs));
      await start();
    },
    async remove() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
