// The interactive documentation page: Swagger UI, from swagger-ui-dist, served by the
// service itself so that it works on a machine with no Internet access and sends nothing
// to a third party.
import type { MessageLanguage } from '../messages/languages.js';
import { documentTexts } from './document-texts.js';

/**
 * The page's script is a file, not inline, so that the Content-Security-Policy can forbid
 * inline scripts. It reads the document's address from the page: one script, every language.
 */
export const DOCS_PAGE_SCRIPT = `'use strict';
window.addEventListener('load', function () {
  var root = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({
    url: root.getAttribute('data-openapi-url'),
    dom_id: '#swagger-ui',
    deepLinking: true,
    // Nine sections and some fifty operations: start from the list of resources.
    docExpansion: 'none',
    tryItOutEnabled: true,
    displayOperationId: true,
    displayRequestDuration: true,
    // Never ask validator.swagger.io about the document: nothing leaves the service.
    validatorUrl: 'none',
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

/** Swagger UI sets inline styles and uses data: images; everything else comes from here. */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** `lang` is a platform language (checked by the route), so it is safe in the markup. */
export function docsPage(lang: string, language: MessageLanguage): string {
  const base = `/${lang}/api`;
  return `<!doctype html>
<html lang="${language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${documentTexts(language).title}</title>
<link rel="icon" type="image/png" href="${base}/docs/favicon-32x32.png">
<link rel="stylesheet" href="${base}/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui" data-openapi-url="${base}/openApi"></div>
<script src="${base}/docs/swagger-ui-bundle.js"></script>
<script src="${base}/docs/docs-page.js"></script>
</body>
</html>
`;
}
