// The sentences of the OpenAPI document about access and API tokens (contract section 14), in
// the two languages that have messages.
import type { MessageLanguage } from '../messages/languages.js';

const en = {
  bearer:
    'A bearer token: `Authorization: Bearer <token>`. Every token has a name (the actor of what it does) and a scope: `read` ' +
    '(GET, HEAD, OPTIONS), `write` (every configuration operation) or `admin` (`write`, and the token endpoints). Tokens come from ' +
    'API_TOKENS or API_TOKENS_FILE (`[name=]scope:token`), from `npm run token:create`, or from POST /{lang}/api/tokens, which shows ' +
    'the secret once (it starts with `pmcapi_`). An expired token is refused with 401, a token used from an address outside its ' +
    '`allowed_ips` with 403. Optional while no token exists (the service then listens on a loopback address only).',
  tokensTag: 'Bearer tokens with a name, a scope, an optional expiry and optional client networks. For admin tokens only.',
  list: 'List the API tokens',
  listDescription:
    'The managed tokens (not those of API_TOKENS), never their secret, newest first unless `sort` says otherwise. `last_used_at` is ' +
    'exact for uses through this instance, and up to a minute late for uses through others. Admin tokens only.',
  create: 'Create an API token',
  createDescription:
    'The answer holds the token (`token`) this once: the service stores only a keyed digest of it and cannot show it again. ' +
    '`expires_at` must lie in the future; `allowed_ips` lists the IPv4 and IPv6 networks it may be used from. The name must be ' +
    'unique, among the tokens of API_TOKENS too. Admin tokens only.',
  read: 'Read one API token',
  readDescription: 'The token’s description, never its secret. Admin tokens only.',
  revoke: 'Revoke an API token',
  revokeDescription:
    'Deletes the token: this instance refuses it from the answer on, every other instance on the same database within seconds. Admin tokens only.',
  secret: 'The token, to send as `Authorization: Bearer …`. Shown in this answer only: keep it now.',
  created: 'Created; the answer carries the token, once.',
  revoked: 'Revoked.',
  examples: {
    missing: 'No token',
    expired: 'An expired token',
    readOnly: 'A read token that writes',
    adminOnly: 'A token that is not admin, on the token and webhook endpoints',
    address: 'A token used from outside its allowed_ips',
    streamsPerToken: 'A token that already holds CHANGE_STREAMS_PER_TOKEN streams',
    streamsPerAddress: 'An address that already holds CHANGE_STREAMS_PER_ADDRESS streams',
    rateLimited: 'Over RATE_LIMIT_PER_MINUTE',
  },
};

export type TokenTexts = typeof en;

const fr: TokenTexts = {
  bearer:
    'Un jeton porteur : `Authorization: Bearer <jeton>`. Chaque jeton a un nom (l’auteur de ce qu’il fait) et une portée : `read` ' +
    '(GET, HEAD, OPTIONS), `write` (toute opération de configuration) ou `admin` (`write`, et les jetons). Les jetons viennent de ' +
    'API_TOKENS ou API_TOKENS_FILE (`[nom=]portée:jeton`), de `npm run token:create`, ou de POST /{lang}/api/tokens, qui montre ' +
    'le secret une fois (il commence par `pmcapi_`). Un jeton expiré est refusé par 401, un jeton utilisé depuis une adresse hors de ' +
    'ses `allowed_ips` par 403. Facultatif tant qu’aucun jeton n’existe (le service n’écoute alors que sur une adresse de bouclage).',
  tokensTag: 'Jetons porteurs avec un nom, une portée, une expiration et des réseaux clients facultatifs. Pour les jetons admin seulement.',
  list: 'Lister les jetons d’API',
  listDescription:
    'Les jetons gérés (pas ceux de API_TOKENS), jamais leur secret, les plus récents d’abord sauf si `sort` en décide autrement. ' +
    '`last_used_at` est exact pour les usages par cette instance, et en retard d’une minute au plus pour les autres. Jetons admin seulement.',
  create: 'Créer un jeton d’API',
  createDescription:
    'La réponse porte le jeton (`token`) cette fois seulement : le service n’en garde qu’une empreinte à clé et ne peut plus le montrer. ' +
    '`expires_at` doit être dans le futur ; `allowed_ips` liste les réseaux IPv4 et IPv6 depuis lesquels il peut servir. Le nom doit ' +
    'être unique, parmi les jetons de API_TOKENS aussi. Jetons admin seulement.',
  read: 'Lire un jeton d’API',
  readDescription: 'La description du jeton, jamais son secret. Jetons admin seulement.',
  revoke: 'Révoquer un jeton d’API',
  revokeDescription:
    'Supprime le jeton : cette instance le refuse dès la réponse, toute autre instance sur la même base en quelques secondes. Jetons admin seulement.',
  secret: 'Le jeton, à envoyer en `Authorization: Bearer …`. Montré dans cette réponse seulement : gardez-le maintenant.',
  created: 'Créé ; la réponse porte le jeton, une fois.',
  revoked: 'Révoqué.',
  examples: {
    missing: 'Aucun jeton',
    expired: 'Un jeton expiré',
    readOnly: 'Un jeton read qui écrit',
    adminOnly: 'Un jeton non admin, sur les jetons et les webhooks',
    address: 'Un jeton utilisé hors de ses allowed_ips',
    streamsPerToken: 'Un jeton qui tient déjà CHANGE_STREAMS_PER_TOKEN flux',
    streamsPerAddress: 'Une adresse qui tient déjà CHANGE_STREAMS_PER_ADDRESS flux',
    rateLimited: 'Au-delà de RATE_LIMIT_PER_MINUTE',
  },
};

const TEXTS: Readonly<Record<MessageLanguage, TokenTexts>> = { en, fr };

export function tokenTexts(language: MessageLanguage): TokenTexts {
  return TEXTS[language];
}
