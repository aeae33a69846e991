// Contract section 17 with the real Ansible: `ansible-inventory -i contrib/ansible-inventory.mjs`
// takes the shipped script as it is (--list and --graph, CONFIG_API_URL and CONFIG_API_TOKEN
// from the environment), and shows the groups and host variables the API gives.
// The service runs as a process of its own: the script is run with spawnSync, which blocks
// this process, so a service built in it could not answer ansible-inventory meanwhile.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { INVENTORY, TOKEN_ENV, makeFleet, type Fleet } from '../support/monitoring-fleet.js';
import { tool } from '../support/real-tools.js';
import { serverPerSuite } from '../support/server.js';
import { bearer } from '../support/tokens.js';

const SCRIPT = resolve(import.meta.dirname, '../../contrib/ansible-inventory.mjs');
const ansible = tool('ansible-inventory', 'ansible-core');
const server = serverPerSuite({ env: TOKEN_ENV, process: true });
let fleet: Fleet;
let home = '';

function run(args: string[], token: string | undefined, command = 'ansible-inventory'): { status: number | null; stdout: string; stderr: string } {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: home, ANSIBLE_LOCAL_TEMP: join(home, 'tmp'), CONFIG_API_URL: server.url, ANSIBLE_NOCOLOR: '1' };
  if (token !== undefined) env.CONFIG_API_TOKEN = token;
  const result = spawnSync(command, args, { env, encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('ansible-inventory reads the shipped inventory script', { skip: ansible.skip }, () => {
  before(async () => {
    assert.ok(ansible.available, 'ansible-inventory is required (CI=true) but not found on PATH');
    fleet = await makeFleet(server);
    home = mkdtempSync(join(tmpdir(), 'config-api-ansible-'));
  });
  after(() => {
    if (home !== '') rmSync(home, { recursive: true, force: true });
  });

  test('the script is an executable file with a shebang', () => {
    assert.ok((statSync(SCRIPT).mode & 0o111) !== 0, 'executable');
    const direct = run(['--list'], fleet.read.token, SCRIPT);
    assert.equal(direct.status, 0, direct.stderr);
    assert.ok('_meta' in JSON.parse(direct.stdout));
  });

  test('--list: the groups and host variables of the API', async () => {
    const api = (await server.request('GET', INVENTORY, { headers: bearer(fleet.read.token) })).body;
    const listed = run(['-i', SCRIPT, '--list'], fleet.read.token);
    assert.equal(listed.status, 0, listed.stderr);
    const inventory = JSON.parse(listed.stdout);
    assert.deepEqual(inventory._meta.hostvars, api._meta.hostvars);
    const groups = Object.keys(api).filter((name) => name !== '_meta' && name !== 'all');
    assert.deepEqual([...inventory.all.children].sort(), [...groups, 'ungrouped'].sort());
    for (const group of groups) assert.deepEqual([...inventory[group].hosts].sort(), [...api[group].hosts].sort(), group);
    // Hosts in no group of the API: Ansible's own `ungrouped`.
    const grouped = new Set(groups.flatMap((group) => api[group].hosts));
    assert.deepEqual([...(inventory.ungrouped?.hosts ?? [])].sort(), api.all.hosts.filter((host: string) => !grouped.has(host)).sort());
  });

  test('--graph and --host', () => {
    const graph = run(['-i', SCRIPT, '--graph'], fleet.read.token);
    assert.equal(graph.status, 0, graph.stderr);
    assert.match(graph.stdout, /^@all:$/m);
    assert.match(graph.stdout, /\|--@client_ACME_Inc_:\n( +\|  \|--[^\n]+\n)+/);
    assert.match(graph.stdout, /\|--@tag__n__code:\n +\|  \|--db-a$/m);
    assert.match(graph.stdout, /\|--@ungrouped:\n +\|  \|--127\.0\.0\.12_23306\n +\|  \|--v6$/m);
    assert.ok(!graph.stderr.includes('WARNING'), graph.stderr);
    const host = run(['-i', SCRIPT, '--host', 'db-a'], fleet.read.token);
    assert.equal(host.status, 0, host.stderr);
    assert.deepEqual(JSON.parse(host.stdout), { ansible_host: '127.0.0.11', mysql_port: 23306, pmacontrol_id: fleet.servers.a.id, pmacontrol_client: 'ACME Inc.', pmacontrol_environment: 'prod', pmacontrol_tags: ['galera cluster', 'ünï-code'] });
  });

  test('without a token the script fails, saying the service answered 401', () => {
    const direct = run(['--list'], undefined, SCRIPT);
    assert.equal(direct.status, 1);
    assert.match(direct.stderr, /answered 401: UNAUTHORIZED/);
    assert.ok(!direct.stdout.includes('hostvars'));
  });
});
