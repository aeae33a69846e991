// Builds the operator console (console/, browser code) into dist/console/: one script and one
// style sheet, minified, named by the digest of their content (so that the service may let
// browsers keep them for a year), each also written gzip- and brotli-compressed beside it (the
// service sends the smallest one the browser accepts, and compresses nothing per request),
// and manifest.json naming them for the page. Run by `npm run build`, never at start-up.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build, type Plugin } from 'esbuild';
import { consoleResources } from './console-registry.js';

const ROOT = resolve(import.meta.dirname, '../..');
export const CONSOLE_SOURCE = join(ROOT, 'console');
export const CONSOLE_OUTPUT = join(ROOT, 'dist', 'console');

/** `import { RESOURCES } from 'console:registry'`: the resources as the registry describes them. */
const registryModule: Plugin = {
  name: 'console-registry',
  setup(builder) {
    builder.onResolve({ filter: /^console:registry$/ }, (args) => ({ path: args.path, namespace: 'console-registry' }));
    builder.onLoad({ filter: /.*/, namespace: 'console-registry' }, () => ({
      contents: `export const RESOURCES = ${JSON.stringify(consoleResources())};`,
      loader: 'js',
    }));
  },
};

export interface ConsoleManifest {
  script: string;
  style: string;
  /** Bytes of each file as sent with brotli, as sent with gzip, and uncompressed. */
  sizes: Record<string, { raw: number; gzip: number; brotli: number }>;
}

export async function buildConsole(): Promise<ConsoleManifest> {
  rmSync(CONSOLE_OUTPUT, { recursive: true, force: true });
  mkdirSync(CONSOLE_OUTPUT, { recursive: true });
  const result = await build({
    entryPoints: [join(CONSOLE_SOURCE, 'src', 'main.tsx')],
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2020'],
    platform: 'browser',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    entryNames: 'console-[hash]',
    assetNames: 'console-[hash]',
    outdir: CONSOLE_OUTPUT,
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
    plugins: [registryModule],
  });
  const files = Object.keys(result.metafile.outputs).map((path) => resolve(ROOT, path));
  const script = files.find((file) => file.endsWith('.js'));
  const style = files.find((file) => file.endsWith('.css'));
  if (script === undefined || style === undefined) throw new Error(`the console build wrote no script or no style sheet: ${files.join(', ')}`);
  const sizes: ConsoleManifest['sizes'] = {};
  for (const file of [script, style]) {
    const body = readFileSync(file);
    const gzip = gzipSync(body, { level: 9 });
    const brotli = brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } });
    writeFileSync(`${file}.gz`, gzip);
    writeFileSync(`${file}.br`, brotli);
    sizes[basename(file)] = { raw: body.length, gzip: gzip.length, brotli: brotli.length };
  }
  const manifest: ConsoleManifest = { script: basename(script), style: basename(style), sizes };
  writeFileSync(join(CONSOLE_OUTPUT, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}
