// The paths that are not resources: the document itself, its documentation page and files,
// and the probes.
import { DOCS_ASSET_NAMES } from './docs-assets.js';
import { json, parameterRef, ref, type DocumentContext, type JsonObject } from './document-parts.js';
import { ALWAYS, ACCESS, errors, type ErrorName } from './error-responses.js';

export function documentationPaths(context: DocumentContext): [string, JsonObject][] {
  const t = context.t;
  const tags = ['documentation'];
  // Public whatever the access settings: a client needs the document to learn how to log in.
  const security: JsonObject[] = [];
  const documentSchema = { type: 'object', description: t.documentBody };
  return [
    [
      '/{lang}/api/openApi',
      {
        parameters: [parameterRef('Lang')],
        get: {
          operationId: 'getOpenApiDocument',
          tags,
          summary: t.openApi,
          description: t.openApiDescription,
          security,
          parameters: [{ name: 'format', in: 'query', description: t.format, schema: { type: 'string', enum: ['json', 'yaml'], default: 'json' } }],
          responses: {
            '200': {
              description: t.document,
              content: { 'application/json': { schema: documentSchema }, 'application/yaml': { schema: { type: 'string', description: t.documentYaml } } },
            },
            ...errors(...ALWAYS, 'BadQuery'),
          },
        },
      },
    ],
    [
      '/{lang}/api/openApi.yaml',
      {
        parameters: [parameterRef('Lang')],
        get: {
          operationId: 'getOpenApiDocumentYaml',
          tags,
          summary: t.openApiYaml,
          description: t.openApiYamlDescription,
          security,
          responses: {
            '200': { description: t.document, content: { 'application/yaml': { schema: { type: 'string', description: t.documentYaml } } } },
            ...errors(...ALWAYS, 'BadQuery'),
          },
        },
      },
    ],
    [
      '/{lang}/api/docs',
      {
        parameters: [parameterRef('Lang')],
        get: {
          operationId: 'getDocumentationPage',
          tags,
          summary: t.docs,
          description: t.docsDescription,
          security,
          responses: { '200': { description: t.docsPage, content: { 'text/html': { schema: { type: 'string' } } } }, ...errors(...ALWAYS) },
        },
      },
    ],
    [
      '/{lang}/api/docs/{asset}',
      {
        parameters: [
          parameterRef('Lang'),
          { name: 'asset', in: 'path', required: true, description: t.asset, schema: { type: 'string', enum: [...DOCS_ASSET_NAMES] }, example: 'swagger-ui.css' },
        ],
        get: {
          operationId: 'getDocumentationAsset',
          tags,
          summary: t.docsAsset,
          description: t.docsAssetDescription,
          security,
          responses: {
            '200': {
              description: t.assetFile,
              content: {
                'text/javascript': { schema: { type: 'string' } },
                'text/css': { schema: { type: 'string' } },
                'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } },
              },
            },
            ...errors(...ALWAYS),
          },
        },
      },
    ],
  ];
}

/** /healthz, /readyz and /metrics: no language; the probes never need a token, metrics do. */
export function probePaths(context: DocumentContext): [string, JsonObject][] {
  const t = context.t;
  const probe = (operationId: string, summary: string, description: string, ok: JsonObject, failures: ErrorName[]): JsonObject => ({
    get: {
      operationId,
      tags: ['probes'],
      summary,
      description,
      ...(failures.includes('Unauthorized') ? {} : { security: [] }),
      responses: { '200': ok, ...errors('MethodNotAllowed', 'InternalError', ...failures) },
    },
  });
  return [
    ['/healthz', probe('getLiveness', t.healthz, t.healthzDescription, { description: t.alive, content: json(ref('Health')) }, [])],
    ['/readyz', probe('getReadiness', t.readyz, t.readyzDescription, { description: t.ready, content: json(ref('Readiness')) }, ['Unavailable'])],
    [
      '/metrics',
      probe('getMetrics', t.metrics, t.metricsDescription, { description: t.metricsText, content: { 'text/plain': { schema: { type: 'string' } } } }, [
        'Unavailable',
        ...ACCESS,
      ]),
    ],
  ];
}
