// The files the documentation page loads: Swagger UI's own, read from node_modules once at
// start-up (no CDN), and the page's script. Only these names are served, so no path a
// client sends ever reaches the file system.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { DOCS_PAGE_SCRIPT } from './docs-page.js';

export const DOCS_ASSET_NAMES = ['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png', 'docs-page.js'] as const;

export type DocsAssetName = (typeof DOCS_ASSET_NAMES)[number];

export interface DocsAsset {
  contentType: string;
  body: Buffer;
}

const FROM_SWAGGER_UI: Record<Exclude<DocsAssetName, 'docs-page.js'>, string> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

export function loadDocsAssets(): ReadonlyMap<string, DocsAsset> {
  const require = createRequire(import.meta.url);
  const assets = new Map<string, DocsAsset>();
  for (const [name, contentType] of Object.entries(FROM_SWAGGER_UI)) {
    assets.set(name, { contentType, body: readFileSync(require.resolve(`swagger-ui-dist/${name}`)) });
  }
  assets.set('docs-page.js', { contentType: 'text/javascript; charset=utf-8', body: Buffer.from(DOCS_PAGE_SCRIPT) });
  return assets;
}
