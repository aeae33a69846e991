// @backend-independent
// Contract section 18, the command line: `npm run config -- apply FILE …` (contrib/config-cli.mjs)
// run as its own process against a started service with tokens: the plan printed as a diff
// (+ created, ~ changed field by field, - deleted), the ETag, --dry-run, --prune, --if-match,
// and its exit codes: 0 done, 1 refused (412 included) with the problem's places, 2 a wrong
// command line, 3 no service. The CLI runs asynchronously (spawn), so the service answers it
// from this process.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { stringify } from 'yaml';
import { serverPerSuite } from '../support/server.js';

const CLI = resolve(import.meta.dirname, '../../contrib/config-cli.mjs');
const WRITE = 'cli-writer-token-0123456789abcdef';
const READ = 'cli-reader-token-0123456789abcdef';
const server = serverPerSuite({ env: { API_TOKENS: `deployer=write:${WRITE},auditor=read:${READ}` } });
const auth = { authorization: `Bearer ${WRITE}` };
let folder = '';

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', CONFIG_API_URL: server.url, CONFIG_API_TOKEN: WRITE, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', fail);
    child.on('close', (status) => {
      clearTimeout(timer);
      done({ status, stdout, stderr });
    });
  });
}

function file(name: string, document: unknown): string {
  const path = join(folder, name);
  writeFileSync(path, name.endsWith('.json') ? JSON.stringify(document) : stringify(document));
  return path;
}

const tag = `cli-${process.pid}`;
const old = `cli-old-${process.pid}`;
const fleet = (hostname: string) => ({
  version: 1,
  tags: [{ name: tag }],
  clients: [{ libelle: `cli-client-${process.pid}` }],
  servers: [
    { ip: '10.88.0.1', port: 3306, hostname, id_client: `cli-client-${process.pid}`, tags: [tag] },
    { ip: '10.88.0.2', port: 3307 },
  ],
});

describe('npm run config -- apply', () => {
  before(() => {
    folder = mkdtempSync(join(tmpdir(), 'config-cli-'));
  });
  after(() => rmSync(folder, { recursive: true, force: true }));

  test('a dry run prints the plan and its ETag and changes nothing; the apply with that ETag does it', async () => {
    const path = file('fleet.yaml', fleet('db-1'));
    const before = await server.rows();
    const dry = await cli(['apply', path, '--dry-run']);
    assert.equal(dry.status, 0, dry.stderr);
    assert.equal(await server.rows(), before, 'a dry run changes nothing');
    const lines = dry.stdout.trimEnd().split('\n');
    assert.deepEqual(lines.slice(0, 4), [`+ tags ${tag}`, `+ clients cli-client-${process.pid}`, '+ servers 10.88.0.1:3306', '+ servers 10.88.0.2:3307']);
    assert.equal(lines[4], '4 to create, 0 to update, 0 to delete, 0 unchanged');
    assert.match(lines[5]!, /^dry run: nothing changed/);
    const etag = /^ETag: ("apply-[^"]+")$/.exec(lines[6]!)?.[1];
    assert.ok(etag, dry.stdout);

    const applied = await cli(['apply', path, '--if-match', etag]);
    assert.equal(applied.status, 0, applied.stderr);
    assert.match(applied.stdout, /^applied \(change \d+\)$/m);
    const stored = await server.request('GET', '/en/api/config/servers?ip=10.88.0.1', { headers: auth });
    assert.equal(stored.body.items[0].hostname, 'db-1');

    const again = await cli(['apply', path]);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /^0 to create, 0 to update, 0 to delete, 4 unchanged$/m);
  });

  test('a change is shown field by field, a prune as a deletion; JSON files too', async () => {
    assert.equal((await cli(['apply', file('old.json', { tags: [{ name: old }] })])).status, 0);
    const document = fleet('db-2');
    const tags = (await server.request('GET', '/en/api/config/tags?limit=1000', { headers: auth })).body.items.map((entry: { name: string }) => entry.name);
    document.tags = tags.filter((name: string) => name !== old).map((name: string) => ({ name }));
    const run = await cli(['apply', file('edited.json', document), '--prune', 'tags']);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^~ servers 10\.88\.0\.1:3306 {2}hostname: db-1 -> db-2$/m);
    assert.match(run.stdout, new RegExp(`^- tags ${old}$`, 'm'));
    assert.match(run.stdout, /^0 to create, 1 to update, 1 to delete, \d+ unchanged$/m);
  });

  test('a refusal exits 1 with the detail and the places it names; 412 after a concurrent change', async () => {
    const before = await server.rows();
    const bad = await cli(['apply', file('bad.yaml', { servers: [{ ip: '10.88.0.9', id_client: 'nobody' }, { ip: '10.88.0.10', hostname: 'x'.repeat(300) }] })]);
    assert.equal(bad.status, 1);
    assert.equal(bad.stdout, '');
    assert.match(bad.stderr, /refused: HTTP 422 VALIDATION_FAILED: /);
    assert.match(bad.stderr, /^ {2}servers\[1\]\.hostname: /m);
    assert.match(bad.stderr, /^ {2}servers\[0\]\.id_client: /m);
    assert.equal(await server.rows(), before);

    const path = file('stale.yaml', { tags: [{ name: `${tag}-stale` }] });
    const dry = await cli(['apply', path, '--dry-run']);
    const etag = /^ETag: (.+)$/m.exec(dry.stdout)![1]!;
    assert.equal((await server.request('POST', '/en/api/config/tags', { body: { name: `${tag}-meanwhile` }, headers: auth })).status, 201);
    const stale = await cli(['apply', path, '--if-match', etag]);
    assert.equal(stale.status, 1);
    assert.match(stale.stderr, /refused: HTTP 412 PRECONDITION_FAILED: /);

    const reader = await cli(['apply', path], { CONFIG_API_TOKEN: READ });
    assert.equal(reader.status, 1);
    assert.match(reader.stderr, /HTTP 403 FORBIDDEN/);
  });

  test('export writes the document an apply of which changes nothing (round trip through the CLI)', async () => {
    const path = join(folder, 'exported.yaml');
    const exported = await cli(['export', '--yaml', '--output', path], { CONFIG_API_TOKEN: READ });
    assert.equal(exported.status, 0, exported.stderr);
    const plan = await cli(['apply', path, '--dry-run', '--prune', 'tags,clients,environments,servers,aliases,ssh-keys,storage-areas']);
    assert.equal(plan.status, 0, plan.stderr);
    assert.match(plan.stdout, /^0 to create, 0 to update, 0 to delete, \d+ unchanged$/m);
    const json = await cli(['export'], { CONFIG_API_TOKEN: READ });
    assert.equal(json.status, 0, json.stderr);
    assert.equal(JSON.parse(json.stdout).version, 1);
  });

  test('a wrong command line exits 2, an unreachable service 3', async () => {
    assert.equal((await cli([])).status, 2);
    assert.equal((await cli(['apply'])).status, 2);
    assert.equal((await cli(['apply', 'x.yaml', '--prune'])).status, 2);
    assert.equal((await cli(['apply', join(folder, 'missing.yaml')])).status, 2);
    assert.equal((await cli(['apply', join(folder, 'fleet.yaml')], { CONFIG_API_URL: '' })).status, 2);
    const away = await cli(['apply', join(folder, 'fleet.yaml')], { CONFIG_API_URL: 'http://127.0.0.1:9' });
    assert.equal(away.status, 3, away.stderr);
  });
});
