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
// A choice of strings that differ by format (an IP address or a DNS name) reads
// "string (ipv4 | ipv6 | hostname)" rather than Swagger UI's "(string | string | string)".
function formatChoicesPlugin(system) {
  function formatChoice(schema) {
    var members = schema && typeof schema === 'object' ? schema.anyOf || schema.oneOf : undefined;
    if (!Array.isArray(members) || members.length < 2 || schema.type !== undefined) return undefined;
    var type = members[0] && members[0].type;
    var same = members.every(function (member) {
      return member && member.type === type && typeof type === 'string' && typeof member.format === 'string';
    });
    if (!same) return undefined;
    return type + ' (' + members.map(function (member) { return member.format; }).join(' | ') + ')';
  }
  return {
    wrapComponents: {
      JSONSchema202012KeywordType: function (Original) {
        return function (props) {
          var label = formatChoice(props.schema);
          if (label === undefined) return system.React.createElement(Original, props);
          return system.React.createElement('strong', { className: 'json-schema-2020-12__attribute json-schema-2020-12__attribute--primary' }, label);
        };
      },
    },
  };
}

window.addEventListener('load', function () {
  var root = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({
    url: root.getAttribute('data-openapi-url'),
    dom_id: '#swagger-ui',
    deepLinking: true,
    // Nine sections and some fifty operations: start from the list of resources.
    docExpansion: 'none',
    // Every field with its type, rule, default and description in sight, without a click per
    // field: schemas open to their fields' details, and operations show the schema first.
    defaultModelRendering: 'model',
    defaultModelExpandDepth: 5,
    defaultModelsExpandDepth: 6,
    tryItOutEnabled: true,
    displayOperationId: true,
    displayRequestDuration: true,
    // Never ask validator.swagger.io about the document: nothing leaves the service.
    validatorUrl: 'none',
    presets: [SwaggerUIBundle.presets.apis],
    plugins: [formatChoicesPlugin],
    layout: 'BaseLayout',
    // Swagger UI keeps the Schemas section shut under docExpansion 'none': open it, so that
    // the reference of every field is on the page as it loads.
    onComplete: function () {
      window.ui.layoutActions.show(['components', 'schemas'], true);
    },
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
