// `npm test`: runs the black-box suite once per database backend. SQLite always runs;
// PostgreSQL and MariaDB run where they answer (TEST_POSTGRES_URL / TEST_MARIADB_URL, else
// this machine's loopback servers). TEST_BACKENDS=sqlite,postgres,mariadb demands those
// backends: one that cannot be reached is then a failure, never a skip.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { MARIADB_ADMIN_URL, POSTGRES_ADMIN_URL, type Backend } from '../test/support/test-database.js';

const ALL: Backend[] = ['sqlite', 'postgres', 'mariadb'];
const PROBE_TIMEOUT_MS = 3000;

async function reachable(backend: Backend): Promise<string | undefined> {
  try {
    if (backend === 'postgres') {
      const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: PROBE_TIMEOUT_MS });
      await client.connect();
      await client.end();
    } else if (backend === 'mariadb') {
      const connection = await mysql.createConnection({ uri: MARIADB_ADMIN_URL, connectTimeout: PROBE_TIMEOUT_MS });
      await connection.end();
    }
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

interface RunResult {
  backend: Backend;
  passed: number;
  failed: number;
  skipped: number;
  exitCode: number;
  note?: string;
}

function count(output: string, label: string): number {
  const match = new RegExp(`^[ℹ#] ${label} (\\d+)$`, 'm').exec(output);
  return match?.[1] === undefined ? 0 : Number(match[1]);
}

function runSuite(backend: Backend, files: string[]): Promise<RunResult> {
  process.stdout.write(`\n==== test suite on ${backend} ====\n`);
  return new Promise((done) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...files], {
      env: { ...process.env, TEST_DATABASE: backend },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      process.stdout.write(chunk);
    });
    child.on('exit', (code) => {
      done({
        backend,
        passed: count(output, 'pass'),
        failed: count(output, 'fail') + count(output, 'cancelled'),
        skipped: count(output, 'skipped'),
        exitCode: code ?? 1,
      });
    });
  });
}

async function main(): Promise<void> {
  const demanded = process.env.TEST_BACKENDS?.split(',').map((name) => name.trim()).filter(Boolean);
  for (const name of demanded ?? []) {
    if (!ALL.includes(name as Backend)) throw new Error(`TEST_BACKENDS: unknown backend "${name}"`);
  }
  const files = readdirSync('test')
    .filter((name) => name.endsWith('.test.ts'))
    .sort()
    .map((name) => join('test', name));

  const results: RunResult[] = [];
  for (const backend of (demanded as Backend[] | undefined) ?? ALL) {
    const problem = await reachable(backend);
    if (problem !== undefined) {
      const note = `unreachable: ${problem}`;
      if (demanded !== undefined) results.push({ backend, passed: 0, failed: 1, skipped: 0, exitCode: 1, note });
      else process.stdout.write(`\n==== ${backend}: not run (${note}); set TEST_BACKENDS to require it ====\n`);
      continue;
    }
    results.push(await runSuite(backend, files));
  }

  process.stdout.write('\n| backend | passed | failed | skipped | note |\n|---|---|---|---|---|\n');
  for (const r of results) process.stdout.write(`| ${r.backend} | ${r.passed} | ${r.failed} | ${r.skipped} | ${r.note ?? (r.exitCode === 0 ? '' : `exit ${r.exitCode}`)} |\n`);
  const passed = results.reduce((sum, r) => sum + r.passed, 0);
  const failed = results.reduce((sum, r) => sum + r.failed + (r.exitCode !== 0 && r.failed === 0 ? 1 : 0), 0);
  process.stdout.write(`\nbackends: ${passed} passed, ${failed} failed\n`);
  process.exitCode = failed > 0 ? 1 : 0;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
