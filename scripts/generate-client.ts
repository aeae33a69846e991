// `npm run client:generate`: writes client/schema.d.ts, the types of the typed client, from the
// document buildOpenApiDocument makes (no server needed). The test suite runs the same
// generation into a temporary file and fails if the committed types are stale.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildOpenApiDocument } from '../src/openapi/build-openapi-document.js';
import { DEFAULT_REGISTRY } from '../src/registry/registry.js';

const ROOT = resolve(import.meta.dirname, '..');
export const CLIENT_TYPES_FILE = join(ROOT, 'client', 'schema.d.ts');
const OPENAPI_TYPESCRIPT = join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js');

export function generateClientTypes(outputFile: string): void {
  const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const scratch = mkdtempSync(join(tmpdir(), 'config-api-client-'));
  try {
    const input = join(scratch, 'openapi.json');
    // English: the client's doc comments are read by developers, not by the platform's users.
    writeFileSync(input, JSON.stringify(buildOpenApiDocument(DEFAULT_REGISTRY, version, 'en'), null, 2));
    // Run from the scratch folder, so that the project's redocly.yaml (lint settings) is not
    // taken as openapi-typescript's configuration.
    // --default-non-nullable=false: a field with a default may be left out of a request body.
    const options = [input, '--output', resolve(outputFile), '--default-non-nullable=false'];
    const run = spawnSync(process.execPath, [OPENAPI_TYPESCRIPT, ...options], { cwd: scratch, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`openapi-typescript failed (${run.status}):\n${run.stdout}\n${run.stderr}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  generateClientTypes(CLIENT_TYPES_FILE);
  process.stdout.write(`wrote ${CLIENT_TYPES_FILE}\n`);
}
