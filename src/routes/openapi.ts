// GET /{lang}/api/openApi: the document is built once, at start-up, from the registry.
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { buildOpenApiDocument } from '../openapi/build-openapi-document.js';
import { routeShape } from './route-shape.js';

function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

export default async function openApiRoutes(app: FastifyInstance): Promise<void> {
  const document = JSON.stringify(buildOpenApiDocument(packageVersion()));
  routeShape(app, '/:lang/api/openApi', 'openapi', async () => ({
    status: 200,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: document,
  }));
}
