// GET /{lang}/api/openApi (and /openApi.yaml): the document is built once, at start-up, from the registry, in the
// language of the path (French under /fr/, English otherwise); `?format=yaml` gives YAML.
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { buildServedDocuments, DOCUMENT_CONTENT_TYPES } from '../../openapi/served-documents.js';
import { documentFormat } from '../../pipeline/document-format.js';
import { endpointRoute } from './endpoint-route.js';

function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

export default async function openApiRoutes(app: FastifyInstance): Promise<void> {
  const documents = buildServedDocuments(app.registry, packageVersion());
  endpointRoute(app, app.registry, '/:lang/api/openApi', 'openapi', async (target, request) => {
    const format = documentFormat(request.query as Record<string, unknown>);
    return {
      status: 200,
      headers: { 'content-type': DOCUMENT_CONTENT_TYPES[format] },
      body: documents[target.language][format],
    };
  });
  // The name tools and people look for first; the same YAML as `?format=yaml`.
  endpointRoute(app, app.registry, '/:lang/api/openApi.yaml', 'openapi', async (target, request) => {
    documentFormat(request.query as Record<string, unknown>, []);
    return { status: 200, headers: { 'content-type': DOCUMENT_CONTENT_TYPES.yaml }, body: documents[target.language].yaml };
  });
}
