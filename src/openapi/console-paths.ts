// The operator console's part of the document (contract section 19): its page and the files
// the page loads, public like the documentation page (the page itself asks for a token).
import { parameterRef, type DocumentContext, type JsonObject } from './document-parts.js';
import { ALWAYS, errors } from './error-responses.js';
import type { MessageLanguage } from '../messages/languages.js';

/** The console's file names: `console-` and the digest of the content, then the kind. */
export const CONSOLE_ASSET_PATTERN = '^console-[A-Za-z0-9_-]+\\.(js|css)$';

const TEXTS = {
  en: {
    page: 'Operator console',
    pageDescription:
      'A browser application for operators, in the language of the path (French under /fr/, English otherwise), that uses only this API: ' +
      'servers, their history, the other resources, a CSV import of servers, webhooks and live updates. It signs in with a bearer token ' +
      'kept in the tab’s session storage, or works anonymously where the service allows it. Never cached (`Cache-Control: no-cache`).',
    html: 'The HTML page; it loads its script and style sheet from this service only.',
    asset: 'A file of the operator console',
    assetDescription:
      'The console’s script and style sheet, named by the digest of their content and kept by browsers for a year. Sent compressed ' +
      '(`Content-Encoding: br` or `gzip`) to a client that accepts it.',
    assetName: 'The file name the page gives, e.g. `console-Q2XG7ZKP.js`.',
    file: 'The file.',
  },
  fr: {
    page: 'Console d’exploitation',
    pageDescription:
      'Une application pour navigateur, destinée aux exploitants, dans la langue du chemin (français sous /fr/, anglais sinon), qui n’utilise ' +
      'que cette API : les serveurs, leur historique, les autres ressources, un import CSV de serveurs, les webhooks et le suivi en direct. ' +
      'Elle se connecte avec un jeton gardé dans le stockage de session de l’onglet, ou sans jeton là où le service le permet. Jamais mise en ' +
      'cache (`Cache-Control: no-cache`).',
    html: 'La page HTML ; elle ne charge son script et sa feuille de style que depuis ce service.',
    asset: 'Un fichier de la console d’exploitation',
    assetDescription:
      'Le script et la feuille de style de la console, nommés par l’empreinte de leur contenu et gardés un an par les navigateurs. Envoyés ' +
      'compressés (`Content-Encoding: br` ou `gzip`) au client qui l’accepte.',
    assetName: 'Le nom de fichier que donne la page, par exemple `console-Q2XG7ZKP.js`.',
    file: 'Le fichier.',
  },
} satisfies Record<MessageLanguage, Record<string, string>>;

export function consolePaths(context: DocumentContext): [string, JsonObject][] {
  const t = TEXTS[context.language];
  const tags = ['documentation'];
  const security: JsonObject[] = [];
  return [
    [
      '/{lang}/console',
      {
        parameters: [parameterRef('Lang')],
        get: {
          operationId: 'getConsolePage',
          tags,
          summary: t.page,
          description: t.pageDescription,
          security,
          responses: { '200': { description: t.html, content: { 'text/html': { schema: { type: 'string' } } } }, ...errors(...ALWAYS) },
        },
      },
    ],
    [
      '/{lang}/console/{asset}',
      {
        parameters: [
          parameterRef('Lang'),
          { name: 'asset', in: 'path', required: true, description: t.assetName, schema: { type: 'string', pattern: CONSOLE_ASSET_PATTERN }, example: 'console-Q2XG7ZKP.js' },
        ],
        get: {
          operationId: 'getConsoleAsset',
          tags,
          summary: t.asset,
          description: t.assetDescription,
          security,
          responses: {
            '200': {
              description: t.file,
              content: { 'text/javascript': { schema: { type: 'string' } }, 'text/css': { schema: { type: 'string' } } },
            },
            ...errors(...ALWAYS),
          },
        },
      },
    ],
  ];
}
