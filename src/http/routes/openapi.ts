// GET /{lang}/api/openApi (and /openApi.yaml): the document is built once, at start-up, from the registry, in the
// language of the path (French under /fr/, English otherwise); `?format=yaml` gives YAML.
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { apiError } from '../../errors/api-error.js';
import { buildServedDocuments, DOCUMENT_CONTENT_TYPES, DOCUMENT_FORMATS, type DocumentFormat } from '../../openapi/served-documents.js';
import { endpointRoute } from './endpoint-route.js';

function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

/** As on lists, a parameter the route does not know is refused rather than ignored. */
export function documentFormat(query: Record<string, unknown>, accepted: readonly string[] = ['format']): DocumentFormat {
  for (const name of Object.keys(query)) {
    if (!accepted.includes(name)) throw apiError('BAD_QUERY', 'query.unknown', { parameter: name });
  }
  const format = query.format;
  if (format === undefined) return 'json';
  if (typeof format !== 'string') throw apiError('BAD_QUERY', 'query.repeated', { parameter: 'format' });
  if (!(DOCUMENT_FORMATS as readonly string[]).includes(format)) {
    throw apiError('BAD_QUERY', 'query.oneOf', { parameter: 'format', values: DOCUMENT_FORMATS.join(', ') });
  }
  return format as DocumentFormat;
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
