// Stoplight's Prism as a validating proxy in front of a test server, a local process on
// loopback: `prism proxy <document> <service> --errors` checks every request and response that
// passes against the document, and with --errors turns a violation into an error answer of its
// own (problem+json whose type is one of Prism's) instead of passing it on.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { freePort } from './free-port.js';

const PRISM = resolve(import.meta.dirname, '../../node_modules/@stoplight/prism-cli/dist/index.js');
/** Prism reads and indexes the whole document before it listens: slow on a busy machine. */
const START_TIMEOUT_MS = 90_000;
/** The `type` of every error answer Prism makes itself. */
export const PRISM_ERROR_TYPE = 'https://stoplight.io/prism/errors';

export interface PrismProxy {
  readonly url: string;
  /** Prism's log so far (one line per request, and its violations and errors). */
  logs(): string;
  stop(): Promise<void>;
}

export async function startPrismProxy(documentFile: string, upstream: string): Promise<PrismProxy> {
  const port = await freePort();
  const child = spawn(process.execPath, [PRISM, 'proxy', documentFile, upstream, '--errors', '--host', '127.0.0.1', '--port', String(port)], {
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<void>((done) => child.once('close', () => done()));
  try {
    await new Promise<void>((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`Prism did not start in ${START_TIMEOUT_MS} ms:\n${output}`)), START_TIMEOUT_MS);
      const look = (): void => {
        if (output.includes('Prism is listening on')) {
          clearTimeout(timer);
          done();
        }
      };
      child.stdout!.on('data', look);
      void exited.then(() => {
        clearTimeout(timer);
        fail(new Error(`Prism exited before listening:\n${output}`));
      });
    });
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    url: `http://127.0.0.1:${port}`,
    logs: () => output,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
