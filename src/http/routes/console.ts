// GET /{lang}/console/: the operator console (contract section 19), and the two files it
// loads. Public, like the documentation page: the page holds no data and asks for a token
// itself. The page is never cached (it names the files of the current build); the files,
// named by their content's digest, are kept for a year.
import type { FastifyInstance } from 'fastify';
import { apiError } from '../../errors/api-error.js';
import type { MessageLanguage } from '../../messages/languages.js';
import { chooseCoding, loadConsoleAssets, type ConsoleAssets } from '../console-assets.js';
import { endpointRoute } from './endpoint-route.js';

/** Nothing inline, nothing from elsewhere: the page's own script and style sheet, and the API. */
export const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const TITLES: Record<MessageLanguage, string> = { en: 'PmaControl console', fr: 'Console PmaControl' };
const NO_SCRIPT: Record<MessageLanguage, string> = {
  en: 'The console needs JavaScript.',
  fr: 'La console a besoin de JavaScript.',
};

/** `lang` is a platform language (checked by the route), so it is safe in the markup. */
function consolePage(assets: ConsoleAssets, lang: string, language: MessageLanguage): string {
  const base = `/${lang}/console`;
  return `<!doctype html>
<html lang="${language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${TITLES[language]}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${base}/${assets.style}">
<script type="module" src="${base}/${assets.script}"></script>
</head>
<body>
<div id="console" data-lang="${lang}"><noscript>${NO_SCRIPT[language]}</noscript></div>
</body>
</html>
`;
}

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

export default async function consoleRoutes(app: FastifyInstance): Promise<void> {
  const assets = loadConsoleAssets();
  const built = (): ConsoleAssets => {
    if (assets === undefined) throw apiError('NOT_FOUND', 'console.notBuilt');
    return assets;
  };

  endpointRoute(app, app.registry, '/:lang/console', 'console', async (target) => ({
    status: 200,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': CONSOLE_CONTENT_SECURITY_POLICY,
      ...SECURITY_HEADERS,
      'cache-control': 'no-cache',
    },
    body: consolePage(built(), target.lang, target.language),
  }));

  endpointRoute(app, app.registry, '/:lang/console/:asset', 'console', async (_target, request) => {
    const asset = built().files.get((request.params as { asset: string }).asset);
    if (asset === undefined) throw apiError('NOT_FOUND', 'path.unknown');
    const coding = chooseCoding(request.headers['accept-encoding']);
    return {
      status: 200,
      headers: {
        'content-type': asset.contentType,
        ...(coding === 'identity' ? {} : { 'content-encoding': coding }),
        vary: 'Accept-Encoding',
        ...SECURITY_HEADERS,
        'cache-control': 'public, max-age=31536000, immutable',
      },
      body: asset.bodies[coding],
    };
  });
}
