// GET /{lang}/api/docs: the interactive documentation page, and the files it loads. Public,
// like the document it shows.
import type { FastifyInstance } from 'fastify';
import { loadDocsAssets } from '../../openapi/docs-assets.js';
import { DOCS_CONTENT_SECURITY_POLICY, docsPage } from '../../openapi/docs-page.js';
import { apiError } from '../../errors/api-error.js';
import { endpointRoute } from './endpoint-route.js';

export default async function docsRoutes(app: FastifyInstance): Promise<void> {
  const assets = loadDocsAssets();

  endpointRoute(app, app.registry, '/:lang/api/docs', 'docs', async (target) => ({
    status: 200,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': DOCS_CONTENT_SECURITY_POLICY,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      // The page names the document by language and is tiny: always fetch it fresh.
      'cache-control': 'no-cache',
    },
    body: docsPage(target.lang, target.language),
  }));

  endpointRoute(app, app.registry, '/:lang/api/docs/:asset', 'docs', async (_target, request) => {
    const asset = assets.get((request.params as { asset: string }).asset);
    if (asset === undefined) throw apiError('NOT_FOUND', 'path.unknown');
    return {
      status: 200,
      headers: {
        'content-type': asset.contentType,
        'x-content-type-options': 'nosniff',
        // The files change only with an upgrade of the service; an hour keeps the page quick.
        'cache-control': 'public, max-age=3600',
      },
      body: asset.body,
    };
  });
}
