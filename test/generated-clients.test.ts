// Client code that tools nobody here wrote generate from the served document must work: two
// independent generated clients — the committed openapi-typescript + openapi-fetch client of
// client/, and @hey-api/openapi-ts's SDK generated here — each drive a lifecycle of every
// resource of the registry, written as a developer would write it ("read, change a field, PUT
// it back" included) and compiled with `tsc --strict` first. Their requests go through
// Stoplight's Prism (`prism proxy --errors`), which checks each request and response against
// the document: any violation it reports fails the test. HEAD goes straight to the service:
// Prism 5's proxy reads the (empty) body of a HEAD answer as JSON and fails on it. Every answer
// is also checked against the document by the suite's own checker.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { DEFAULT_REGISTRY } from '../src/registry/registry.js';
import { heyApiDialect, lifecycleProgram, openapiFetchDialect, type ClientDialect, type LifecycleProgram } from './support/client-lifecycle.js';
import { PRISM_ERROR_TYPE, startPrismProxy, type PrismProxy } from './support/prism.js';
import { fetchOnOwnConnection, startServer, type TestServer } from './support/server.js';
import { BACKEND } from './support/test-database.js';

const ROOT = resolve(import.meta.dirname, '..');
// Inside the repository, so that the generated code finds node_modules; git-ignored, and left
// after the run for a person to read (emptied at the start of the next one).
const SCRATCH = join(ROOT, 'test-artifacts', 'generated-clients', BACKEND);
const HEY_API = join(ROOT, 'node_modules', '@hey-api', 'openapi-ts', 'bin', 'run.js');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
/** Generation and compilation on a busy two-core machine: generous, but bounded. */
const STEP_TIMEOUT_MS = 180_000;

/** Runs a Node script to its end; rejects with its output if it fails or takes too long. */
function run(script: string, args: string[], cwd: string): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [script, ...args], { cwd, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), STEP_TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) done(output);
      else fail(new Error(`${relative(ROOT, script)} ${args.join(' ')} ended with ${code ?? signal}:\n${output}`));
    });
  });
}

let server: TestServer;
let prism: PrismProxy | undefined;
const programs = new Map<string, LifecycleProgram & { file: string }>();

before(async () => {
  rmSync(SCRATCH, { recursive: true, force: true });
  mkdirSync(SCRATCH, { recursive: true });
  server = await startServer();
});
after(async () => {
  await prism?.stop();
  await server.stop();
  await server.cleanup();
});

/** fetch for the clients: each answer is held to the document, and one Prism made is a failure. */
const observedFetch: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  const response = await fetchOnOwnConnection(request);
  const text = await response.clone().text();
  const url = new URL(request.url);
  const label = `${request.method} ${url.pathname}${url.search}`;
  const violations = response.headers.get('sl-violations');
  if (violations !== null) throw new Error(`Prism reports violations on ${label}: ${violations}`);
  if (text.includes(PRISM_ERROR_TYPE)) throw new Error(`Prism refused ${label}: ${text}`);
  server.checkResponse(request.method, `${url.pathname}${url.search}`, { status: response.status, headers: response.headers, text });
  return response;
};

describe('generated clients drive every resource through a validating proxy', { timeout: 600_000 }, () => {
  test('the served document generates both clients, and their lifecycle programs compile with tsc --strict', { timeout: STEP_TIMEOUT_MS * 2 }, async () => {
    const documentFile = join(SCRATCH, 'openapi.json');
    const served = await server.request('GET', '/en/api/openApi');
    writeFileSync(documentFile, served.text);
    const document = JSON.parse(served.text);
    // Prism indexes the document while the SDK is generated.
    const starting = startPrismProxy(documentFile, server.url).then((proxy) => (prism = proxy));
    await run(HEY_API, ['--input', documentFile, '--output', join(SCRATCH, 'hey-api')], SCRATCH);

    const dialects: [string, ClientDialect][] = [
      ['openapi-fetch', openapiFetchDialect(relative(SCRATCH, join(ROOT, 'client')))],
      ['hey-api', heyApiDialect('./hey-api')],
    ];
    const written = dialects.map(([name, dialect]) => {
      const program = lifecycleProgram(DEFAULT_REGISTRY, document, dialect);
      const file = join(SCRATCH, `${name}.ts`);
      writeFileSync(file, program.source);
      return [name, { ...program, file }] as const;
    });
    writeFileSync(
      join(SCRATCH, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2023', 'DOM'], skipLibCheck: true, types: ['node'] },
        files: dialects.map(([name]) => `${name}.ts`),
      }),
    );
    await run(TSC, ['-p', join(SCRATCH, 'tsconfig.json')], SCRATCH);
    for (const [name, program] of written) programs.set(name, program);
    await starting;
  });

  for (const name of ['openapi-fetch', 'hey-api']) {
    test(`${name}: every resource's lifecycle, through prism proxy --errors`, { timeout: STEP_TIMEOUT_MS }, async () => {
      const program = programs.get(name);
      assert.ok(program !== undefined && prism !== undefined, 'the clients were generated and compiled (see the first test)');
      const { runLifecycle } = (await import(pathToFileURL(program.file).href)) as {
        runLifecycle(options: { baseUrl: string; directUrl: string; fetch: typeof fetch; secrets: LifecycleProgram['secrets'] }): Promise<void>;
      };
      await runLifecycle({ baseUrl: prism.url, directUrl: server.url, fetch: observedFetch, secrets: program.secrets });
    });
  }

  test('Prism logged no violation and no error, and it does catch one', async () => {
    assert.ok(prism !== undefined);
    const problems = prism.logs().split('\n').filter((line) => /✖|⚠|violation/i.test(line));
    assert.deepEqual(problems, [], 'Prism reported problems');
    // The proxy is not asleep: a body with a field no resource has is refused by Prism itself.
    const response = await fetchOnOwnConnection(`${prism.url}/en/api/config/tags`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'prism-check', colour: '#000000' }),
    });
    assert.equal(response.status, 422);
    assert.match(await response.text(), new RegExp(PRISM_ERROR_TYPE.replace(/[.]/g, '\\.')));
  });
});
