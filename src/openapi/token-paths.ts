// The token endpoints of the document (contract section 14): their two paths, and their
// schemas, made from the token description (src/store/api-token-definition.ts) by the same
// code as any resource's, plus the one answer that carries a secret: the token, marked
// readOnly, never with an example value.
import { MAX_ID } from '../registry/field-types.js';
import { TOKEN_PATTERN } from '../secrets/token-secrets.js';
import { API_TOKENS } from '../store/api-token-definition.js';
import { headerRef, json, parameterRef, ref, type DocumentContext, type JsonObject } from './document-parts.js';
import { ALWAYS, BODY_ERRORS, ACCESS, errors } from './error-responses.js';
import { listParameters } from './resource-paths.js';
import { resourceSchemas } from './resource-schemas.js';
import { tokenTexts } from './token-texts.js';

const TAG = 'tokens';
// Open while no token exists (loopback only), else an admin token.
const ADMIN_ONLY: JsonObject[] = [{}, { bearerAuth: ['admin'] }];
const SHOWN = new Set(['Token', 'TokenCreate', 'TokenList', 'TokenItem']);

export function tokenTag(context: DocumentContext): JsonObject {
  return { name: TAG, description: tokenTexts(context.language).tokensTag };
}

export function tokenSchemas(context: DocumentContext): [string, JsonObject][] {
  const t = tokenTexts(context.language);
  const created: JsonObject = {
    type: 'object',
    required: ['id', 'token', 'item'],
    additionalProperties: false,
    properties: {
      id: { type: 'integer', minimum: 1, maximum: MAX_ID },
      token: { type: 'string', pattern: TOKEN_PATTERN, readOnly: true, description: t.secret },
      item: ref('Token'),
    },
  };
  return [...resourceSchemas(context, API_TOKENS).filter(([name]) => SHOWN.has(name)), ['TokenCreated', created]];
}

export function tokenPaths(context: DocumentContext): [string, JsonObject][] {
  const t = tokenTexts(context.language);
  const common = { tags: [TAG], security: ADMIN_ONLY };
  return [
    [
      '/{lang}/api/tokens',
      {
        parameters: [parameterRef('Lang')],
        get: {
          operationId: 'listTokens',
          ...common,
          summary: t.list,
          description: t.listDescription,
          parameters: [...listParameters(context, API_TOKENS), parameterRef('IfNoneMatchList')],
          responses: {
            '200': { description: context.t.listed, headers: { ETag: headerRef('ETagOfList') }, content: json(ref('TokenList')) },
            '304': { $ref: '#/components/responses/ListNotModified' },
            ...errors(...ALWAYS, ...ACCESS, 'BadQuery'),
          },
        },
        post: {
          operationId: 'createToken',
          ...common,
          summary: t.create,
          description: t.createDescription,
          requestBody: { required: true, content: { 'application/json': { schema: ref('TokenCreate'), example: API_TOKENS.example } } },
          responses: {
            '201': { description: t.created, headers: { Location: headerRef('Location'), ETag: headerRef('ETag') }, content: json(ref('TokenCreated')) },
            ...errors(...ALWAYS, ...ACCESS, ...BODY_ERRORS),
          },
        },
      },
    ],
    [
      '/{lang}/api/tokens/{id}',
      {
        parameters: [parameterRef('Lang'), parameterRef('Id')],
        get: {
          operationId: 'getToken',
          ...common,
          summary: t.read,
          description: t.readDescription,
          parameters: [parameterRef('IfNoneMatch')],
          responses: {
            '200': { description: context.t.entry, headers: { ETag: headerRef('ETag') }, content: json(ref('TokenItem')) },
            '304': { $ref: '#/components/responses/NotModified' },
            ...errors(...ALWAYS, ...ACCESS, 'BadQuery'),
          },
        },
        delete: {
          operationId: 'revokeToken',
          ...common,
          summary: t.revoke,
          description: t.revokeDescription,
          parameters: [parameterRef('IfMatch')],
          responses: { '200': { description: t.revoked, content: json(ref('Deleted')) }, ...errors(...ALWAYS, ...ACCESS, 'BadQuery', 'PreconditionFailed') },
        },
      },
    ],
  ];
}
