// Helpers of the token tests: bearer headers, creating a token through the API or the
// command line, waiting for what another instance learns by polling, and the forms a token
// could leak in (itself and its plain SHA-256 in the usual encodings).
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import type { TestServer } from './server.js';

export const TOKENS = '/en/api/tokens';
export const TAGS = '/en/api/config/tags';
export const TOKEN_SHAPE = /^pmcapi_[A-Za-z0-9_-]{43}$/;

const CLI = resolve(import.meta.dirname, '../../dist/token-create-cli.js');

export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

/** A random environment token. */
export const secret = (prefix: string): string => `${prefix}-${randomBytes(20).toString('hex')}`;

export interface CreatedToken {
  id: number;
  token: string;
  item: Record<string, unknown>;
}

export async function createToken(server: TestServer, admin: string | undefined, body: Record<string, unknown>): Promise<CreatedToken> {
  const reply = await server.request('POST', TOKENS, { body, ...(admin === undefined ? {} : { headers: bearer(admin) }) });
  assert.equal(reply.status, 201, reply.text);
  return reply.body as CreatedToken;
}

/** `npm run token:create` against a test server's database and keys. */
export function tokenCreateCli(server: TestServer, args: string[], env: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [CLI, ...args], {
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: server.database.url,
      SECRET_KEY_FILE: join(server.dataDir, 'secret.key'),
      TOKEN_KEY_FILE: join(server.dataDir, 'token.key'),
      ...env,
    },
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Polls `holds` until it is true; resolves to the milliseconds it took, fails past `timeoutMs`. */
export async function within(timeoutMs: number, holds: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await holds()) return Date.now() - started;
    if (Date.now() - started > timeoutMs) assert.fail(`not within ${timeoutMs} ms`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

/** The token and its plain SHA-256 as hex, base64 and base64url: none may be stored or logged. */
export function leakedForms(token: string): string[] {
  const digest = createHash('sha256').update(token).digest();
  return [token, digest.toString('hex'), digest.toString('base64'), digest.toString('base64url')];
}

export function assertHoldsNone(text: string, tokens: readonly string[], where: string): void {
  for (const token of tokens) {
    for (const form of leakedForms(token)) assert.ok(!text.includes(form), `${where} holds a token or its SHA-256`);
  }
}
