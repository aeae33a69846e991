// The operator console's built files (dist/console/, written by `npm run build`, never at
// start-up), read once when the service starts: the script and style sheet named in
// manifest.json, each with its gzip and brotli forms. Only these names are served, so no
// path a client sends reaches the file system.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

// The same folder whether this module runs from src/ (tests, through tsx) or from dist/.
export const CONSOLE_FOLDER = resolve(import.meta.dirname, '../../dist/console');

export type ContentCoding = 'br' | 'gzip' | 'identity';

export interface ConsoleAsset {
  readonly contentType: string;
  readonly bodies: Readonly<Record<ContentCoding, Buffer>>;
}

export interface ConsoleAssets {
  readonly script: string;
  readonly style: string;
  readonly files: ReadonlyMap<string, ConsoleAsset>;
}

const TYPES: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };

/** The built console, or undefined when dist/console/ holds none (src/ run without a build). */
export function loadConsoleAssets(folder: string = CONSOLE_FOLDER): ConsoleAssets | undefined {
  const manifestFile = resolve(folder, 'manifest.json');
  if (!existsSync(manifestFile)) return undefined;
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { script: string; style: string };
  const files = new Map<string, ConsoleAsset>();
  for (const name of [manifest.script, manifest.style]) {
    const file = resolve(folder, name);
    files.set(name, {
      contentType: TYPES[name.slice(name.lastIndexOf('.') + 1)] ?? 'application/octet-stream',
      bodies: { identity: readFileSync(file), gzip: readFileSync(`${file}.gz`), br: readFileSync(`${file}.br`) },
    });
  }
  return { script: manifest.script, style: manifest.style, files };
}

/** The coding to send for an Accept-Encoding header: brotli, else gzip, else none. A coding
 * with q=0 is refused (RFC 9110, section 12.5.3). */
export function chooseCoding(acceptEncoding: string | undefined): ContentCoding {
  if (acceptEncoding === undefined) return 'identity';
  const accepted = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...parameters] = part.split(';').map((piece) => piece.trim().toLowerCase());
    if (name === undefined || name === '') continue;
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    accepted.set(name, q === undefined ? 1 : Number(q.slice(2)) || 0);
  }
  const weight = (coding: string): number => accepted.get(coding) ?? accepted.get('*') ?? 0;
  if (weight('br') > 0) return 'br';
  if (weight('gzip') > 0) return 'gzip';
  return 'identity';
}
