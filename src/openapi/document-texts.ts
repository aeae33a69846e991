// The sentences of the OpenAPI document that do not come from the registry, in the two
// languages that have messages. A reader of /fr/api/docs reads French; every other
// platform language gets the English document, as it gets English error messages.
import type { MessageLanguage } from '../messages/languages.js';

const en = {
  title: 'PmaControl configuration API',
  info: (resources: string) =>
    `Configuration of a MySQL/MariaDB monitoring platform. Resources: ${resources}.\n\n` +
    'Every path starts with a language (`fr` or `en` for messages in that language; the other platform languages answer in English). ' +
    'Errors are `application/problem+json` (RFC 9457) with a stable `code`. Every response carries `X-Request-Id`. ' +
    '`HEAD` is served wherever `GET` is, and `OPTIONS` answers 204 with `Allow`.\n\n' +
    'Access: while no token exists the service answers anonymous requests (on a loopback address only); once a token exists ' +
    '(configured, or created through /{lang}/api/tokens), every request except this document, its documentation page and the health probes ' +
    'needs `Authorization: Bearer …` with a token whose scope covers it: `read` for GET, `write` for changes, `admin` for the tokens themselves.',
  server: 'This service (paths are relative to the address the document was read from).',
  documentationTag: 'This OpenAPI document and its interactive documentation page.',
  probesTag: 'Probes and metrics for orchestrators, load balancers and monitoring, outside the language prefix. The probes are always public.',
  healthz: 'Liveness',
  healthzDescription: 'The process answers. Restart it if this fails; it does not look at the database.',
  alive: 'The process is alive.',
  readyz: 'Readiness',
  readyzDescription: 'The service can serve requests now: the database answers. Send it no traffic while this is 503.',
  ready: 'The database answers.',
  metrics: 'Metrics',
  metricsDescription: 'Counters and histograms of the service in the Prometheus text format.',
  metricsText: 'Prometheus text exposition format.',
  list: (resource: string) => `List entries of ${resource}`,
  listDescription: (description: string) =>
    `${description}\n\nNewest first unless \`sort\` says otherwise. Filters, \`q\` and \`include_deleted\` narrow the list; \`total\` counts every entry that matches.`,
  create: (resource: string) => `Create an entry of ${resource}`,
  createDescription: (description: string) => `${description}\n\nRequired fields must be sent; omitted optional fields take their default.`,
  read: (resource: string) => `Read one entry of ${resource}`,
  readDescription: (description: string) => `${description}\n\nWith \`If-None-Match\` holding the current ETag, the answer is 304 with no body.`,
  replace: (resource: string) => `Replace an entry of ${resource}`,
  replaceDescription:
    'Full replacement: every required writable field is sent, omitted optional fields return to their default. Never creates an entry. ' +
    'With `If-Match`, refused with 412 if the entry changed since.',
  update: (resource: string) => `Change some fields of an entry of ${resource}`,
  updateDescription: 'Partial update: only the fields sent change. Never creates an entry. With `If-Match`, refused with 412 if the entry changed since.',
  remove: (resource: string) => `Delete an entry of ${resource}`,
  removeHard: 'Deletes the entry for good.',
  removeSoft: 'Marks the entry deleted (is_deleted = 1); it stays readable by id and lists show it with include_deleted=true. Deleting it again is 200.',
  removeGuarded: 'Built-in entries are refused with 409 DELETE_GUARDED.',
  removeReferenced: (users: string) => `An entry still used by ${users} is refused with 409 REFERENCED.`,
  removeIfMatch: 'With `If-Match`, refused with 412 if the entry changed since.',
  openApi: 'This OpenAPI document',
  openApiDescription:
    'The OpenAPI 3.1 description of the API, generated from the resource registry, with descriptions in the language of the path (French under /fr/, English otherwise). `?format=yaml` returns it as YAML.',
  docs: 'Interactive documentation',
  docsDescription: 'A Swagger UI page that shows this document and lets a person try every operation.',
  docsAsset: 'A file of the documentation page',
  docsAssetDescription: 'The scripts, style sheet and icon the documentation page loads, served by the service itself (no CDN).',
  lang: 'Language of messages and of this document: fr or en; the other platform languages answer in English.',
  id: 'Id of the entry.',
  limit: 'Entries per page.',
  offset: 'Entries to skip.',
  sort: 'Comma-separated fields to sort by, each optionally preceded by `-` for descending (e.g. `-updated_at,id`). Default `-id`: newest first.',
  q: 'Case-insensitive substring searched in the text fields of the resource.',
  filter: (field: string) => `Only entries whose \`${field}\` equals this value.`,
  includeDeleted: 'true also lists entries marked deleted.',
  ifMatch: 'The ETag of the entry as last read (or `*`). If the entry has changed since, the request is refused with 412 PRECONDITION_FAILED and changes nothing.',
  ifNoneMatch: 'The ETag of the entry as last read. If it still matches, the answer is 304 with no body.',
  format: 'json (default) or yaml.',
  asset: 'File name.',
  listed: 'A page of entries.',
  created: 'Created.',
  entry: 'The entry.',
  updated: 'Updated.',
  deleted: 'Deleted (or, for a soft delete, marked deleted).',
  notModified: 'The entry has not changed since the ETag sent in If-None-Match; no body.',
  document: 'The document.',
  docsPage: 'The HTML page.',
  assetFile: 'The file.',
  location: 'Path of the new entry.',
  etag: 'Version of the entry, for If-None-Match and If-Match.',
  allow: 'Methods this path serves.',
  wwwAuthenticate: 'The authentication scheme to use (Bearer).',
  retryAfter: 'Seconds to wait before trying again.',
  badQuery: 'A query parameter is unknown, repeated or invalid (BAD_QUERY).',
  malformedJson: 'The body is not a JSON object that can be read (MALFORMED_JSON), or a query parameter was sent: writes take none (BAD_QUERY).',
  unauthorized: 'Tokens exist and the request has no valid bearer token: none, an unknown one, or an expired one (UNAUTHORIZED; `detail` says which).',
  forbidden: 'The token’s scope does not cover the request (a read token that writes, a token that is not admin on the token endpoints), or it is used from an address outside its `allowed_ips` (FORBIDDEN).',
  notFound: 'Unknown language, resource, id or path (NOT_FOUND).',
  methodNotAllowed: 'The path does not serve this method (METHOD_NOT_ALLOWED); see Allow.',
  writeConflict: 'A unique field is already taken, or a concurrent change won the race (CONFLICT); `errors` names the fields.',
  deleteConflict: 'The entry is built in (DELETE_GUARDED) or still used by others (REFERENCED, listed in `referenced_by`).',
  preconditionFailed: 'The entry changed since the ETag sent in If-Match (PRECONDITION_FAILED); nothing was changed.',
  payloadTooLarge: 'The body is over the size limit (PAYLOAD_TOO_LARGE).',
  unsupportedMediaType: 'The body is not sent as application/json (UNSUPPORTED_MEDIA_TYPE).',
  validationFailed: 'The body breaks a field rule (VALIDATION_FAILED); `errors` lists every faulty field.',
  rateLimited: 'Too many requests for this token (RATE_LIMITED).',
  internalError: 'An unexpected error (INTERNAL_ERROR); the body shows no internals.',
  unavailable: 'The database cannot be reached, or the service is stopping (UNAVAILABLE); try again.',
  problem: 'RFC 9457 problem details. `error` repeats `detail` for clients of the older API.',
  problemErrors: 'With VALIDATION_FAILED and CONFLICT: one line per faulty field (`field` is "" for the body as a whole).',
  referencedBy: 'With REFERENCED: the entries that still use the one to delete.',
  writeCreate: 'Body of a POST: required fields must be sent; omitted optional fields take their default.',
  writeReplace:
    'Body of a PUT, a full replacement: omitted optional fields return to their default; a write-only field may be omitted to keep the stored value.',
  writePatch: 'Body of a PATCH: only the fields sent change.',
  writeCommon: 'Read-only fields (id, created_at, updated_at) may be sent and are ignored, but an id other than the path’s is refused; an unknown field is refused.',
  total: 'Entries that match the filters, over all pages.',
  deletedMode: 'hard: gone for good; soft: marked deleted and kept.',
  documentBody: 'An OpenAPI 3.1 document.',
};

export type DocumentTexts = typeof en;

const fr: DocumentTexts = {
  title: 'API de configuration PmaControl',
  info: (resources: string) =>
    `Configuration d’une plateforme de supervision MySQL/MariaDB. Ressources : ${resources}.\n\n` +
    'Chaque chemin commence par une langue (`fr` ou `en` pour des messages dans cette langue ; les autres langues de la plateforme répondent en anglais). ' +
    'Les erreurs sont en `application/problem+json` (RFC 9457) avec un `code` stable. Chaque réponse porte `X-Request-Id`. ' +
    '`HEAD` est servi partout où `GET` l’est, et `OPTIONS` répond 204 avec `Allow`.\n\n' +
    'Accès : tant qu’aucun jeton n’existe, le service répond aux requêtes anonymes (sur une adresse de bouclage seulement) ; dès qu’un jeton existe ' +
    '(configuré, ou créé par /{lang}/api/tokens), toute requête sauf ce document, sa page de documentation et les sondes de santé demande ' +
    '`Authorization: Bearer …` avec un jeton dont la portée la couvre : `read` pour GET, `write` pour les modifications, `admin` pour les jetons eux-mêmes.',
  server: 'Ce service (les chemins sont relatifs à l’adresse où le document a été lu).',
  documentationTag: 'Ce document OpenAPI et sa page de documentation interactive.',
  probesTag:
    'Sondes et métriques pour les orchestrateurs, répartiteurs de charge et la supervision, hors du préfixe de langue. Les sondes sont toujours publiques.',
  healthz: 'Vivacité',
  healthzDescription: 'Le processus répond. Redémarrez-le si cela échoue ; la base de données n’est pas consultée.',
  alive: 'Le processus est vivant.',
  readyz: 'Disponibilité',
  readyzDescription: 'Le service peut servir des requêtes maintenant : la base de données répond. Ne lui envoyez pas de trafic tant que c’est 503.',
  ready: 'La base de données répond.',
  metrics: 'Métriques',
  metricsDescription: 'Compteurs et histogrammes du service au format texte de Prometheus.',
  metricsText: 'Format texte d’exposition de Prometheus.',
  list: (resource) => `Lister les entrées de ${resource}`,
  listDescription: (description) =>
    `${description}\n\nLes plus récentes d’abord, sauf si \`sort\` en décide autrement. Les filtres, \`q\` et \`include_deleted\` restreignent la liste ; \`total\` compte toutes les entrées retenues.`,
  create: (resource) => `Créer une entrée de ${resource}`,
  createDescription: (description) =>
    `${description}\n\nLes champs obligatoires doivent être envoyés ; les champs facultatifs omis prennent leur valeur par défaut.`,
  read: (resource) => `Lire une entrée de ${resource}`,
  readDescription: (description) => `${description}\n\nAvec \`If-None-Match\` portant l’ETag actuel, la réponse est 304, sans corps.`,
  replace: (resource) => `Remplacer une entrée de ${resource}`,
  replaceDescription:
    'Remplacement complet : chaque champ modifiable obligatoire est envoyé, les champs facultatifs omis reprennent leur valeur par défaut. ' +
    'Ne crée jamais d’entrée. Avec `If-Match`, refusé par 412 si l’entrée a changé entre-temps.',
  update: (resource) => `Modifier des champs d’une entrée de ${resource}`,
  updateDescription:
    'Mise à jour partielle : seuls les champs envoyés changent. Ne crée jamais d’entrée. Avec `If-Match`, refusé par 412 si l’entrée a changé entre-temps.',
  remove: (resource) => `Supprimer une entrée de ${resource}`,
  removeHard: 'Supprime l’entrée définitivement.',
  removeSoft:
    'Marque l’entrée comme supprimée (is_deleted = 1) ; elle reste lisible par son id et les listes la montrent avec include_deleted=true. La supprimer de nouveau répond 200.',
  removeGuarded: 'Les entrées intégrées à la plateforme sont refusées par 409 DELETE_GUARDED.',
  removeReferenced: (users) => `Une entrée encore utilisée par ${users} est refusée par 409 REFERENCED.`,
  removeIfMatch: 'Avec `If-Match`, refusé par 412 si l’entrée a changé entre-temps.',
  openApi: 'Ce document OpenAPI',
  openApiDescription:
    'La description OpenAPI 3.1 de l’API, produite depuis le registre des ressources, avec les descriptions dans la langue du chemin (français sous /fr/, anglais sinon). `?format=yaml` la renvoie en YAML.',
  docs: 'Documentation interactive',
  docsDescription: 'Une page Swagger UI qui présente ce document et permet d’essayer chaque opération.',
  docsAsset: 'Un fichier de la page de documentation',
  docsAssetDescription: 'Les scripts, la feuille de style et l’icône que charge la page de documentation, servis par le service lui-même (sans CDN).',
  lang: 'Langue des messages et de ce document : fr ou en ; les autres langues de la plateforme répondent en anglais.',
  id: 'Id de l’entrée.',
  limit: 'Entrées par page.',
  offset: 'Entrées à sauter.',
  sort: 'Champs de tri séparés par des virgules, chacun éventuellement précédé de `-` pour l’ordre décroissant (par exemple `-updated_at,id`). Par défaut `-id` : les plus récentes d’abord.',
  q: 'Sous-chaîne cherchée, sans tenir compte de la casse, dans les champs texte de la ressource.',
  filter: (field) => `Seulement les entrées dont \`${field}\` vaut cette valeur.`,
  includeDeleted: 'true liste aussi les entrées marquées supprimées.',
  ifMatch: 'L’ETag de l’entrée lors de la dernière lecture (ou `*`). Si l’entrée a changé depuis, la requête est refusée par 412 PRECONDITION_FAILED et ne change rien.',
  ifNoneMatch: 'L’ETag de l’entrée lors de la dernière lecture. S’il correspond encore, la réponse est 304, sans corps.',
  format: 'json (par défaut) ou yaml.',
  asset: 'Nom du fichier.',
  listed: 'Une page d’entrées.',
  created: 'Créée.',
  entry: 'L’entrée.',
  updated: 'Mise à jour.',
  deleted: 'Supprimée (ou, pour une suppression logique, marquée supprimée).',
  notModified: 'L’entrée n’a pas changé depuis l’ETag envoyé dans If-None-Match ; pas de corps.',
  document: 'Le document.',
  docsPage: 'La page HTML.',
  assetFile: 'Le fichier.',
  location: 'Chemin de la nouvelle entrée.',
  etag: 'Version de l’entrée, pour If-None-Match et If-Match.',
  allow: 'Méthodes que ce chemin sert.',
  wwwAuthenticate: 'Le schéma d’authentification à utiliser (Bearer).',
  retryAfter: 'Secondes à attendre avant de réessayer.',
  badQuery: 'Un paramètre de requête est inconnu, répété ou invalide (BAD_QUERY).',
  malformedJson: 'Le corps n’est pas un objet JSON lisible (MALFORMED_JSON), ou un paramètre de requête a été envoyé : les écritures n’en prennent aucun (BAD_QUERY).',
  unauthorized: 'Des jetons existent et la requête n’a pas de jeton valide : aucun, un jeton inconnu ou expiré (UNAUTHORIZED ; `detail` dit lequel).',
  forbidden: 'La portée du jeton ne couvre pas la requête (un jeton read qui écrit, un jeton non admin sur les jetons), ou il sert depuis une adresse hors de ses `allowed_ips` (FORBIDDEN).',
  notFound: 'Langue, ressource, id ou chemin inconnu (NOT_FOUND).',
  methodNotAllowed: 'Le chemin ne sert pas cette méthode (METHOD_NOT_ALLOWED) ; voir Allow.',
  writeConflict: 'Un champ unique est déjà pris, ou une modification concurrente est passée avant (CONFLICT) ; `errors` nomme les champs.',
  deleteConflict: 'L’entrée fait partie de la plateforme (DELETE_GUARDED) ou est encore utilisée (REFERENCED, détaillé dans `referenced_by`).',
  preconditionFailed: 'L’entrée a changé depuis l’ETag envoyé dans If-Match (PRECONDITION_FAILED) ; rien n’a été modifié.',
  payloadTooLarge: 'Le corps dépasse la taille permise (PAYLOAD_TOO_LARGE).',
  unsupportedMediaType: 'Le corps n’est pas envoyé en application/json (UNSUPPORTED_MEDIA_TYPE).',
  validationFailed: 'Le corps enfreint une règle de champ (VALIDATION_FAILED) ; `errors` liste chaque champ fautif.',
  rateLimited: 'Trop de requêtes pour ce jeton (RATE_LIMITED).',
  internalError: 'Une erreur inattendue (INTERNAL_ERROR) ; le corps ne montre rien des rouages internes.',
  unavailable: 'La base de données est injoignable, ou le service s’arrête (UNAVAILABLE) ; réessayez.',
  problem: 'Détails du problème selon la RFC 9457. `error` répète `detail` pour les clients de l’ancienne API.',
  problemErrors: 'Avec VALIDATION_FAILED et CONFLICT : une ligne par champ fautif (`field` vaut "" pour le corps entier).',
  referencedBy: 'Avec REFERENCED : les entrées qui utilisent encore celle à supprimer.',
  writeCreate: 'Corps d’un POST : les champs obligatoires doivent être envoyés ; les champs facultatifs omis prennent leur valeur par défaut.',
  writeReplace:
    'Corps d’un PUT, un remplacement complet : les champs facultatifs omis reprennent leur valeur par défaut ; un champ en écriture seule peut être omis pour garder la valeur enregistrée.',
  writePatch: 'Corps d’un PATCH : seuls les champs envoyés changent.',
  writeCommon:
    'Les champs en lecture seule (id, created_at, updated_at) peuvent être envoyés et sont ignorés, mais un id différent de celui du chemin est refusé ; un champ inconnu est refusé.',
  total: 'Entrées qui répondent aux filtres, toutes pages confondues.',
  deletedMode: 'hard : supprimée définitivement ; soft : marquée supprimée et conservée.',
  documentBody: 'Un document OpenAPI 3.1.',
};

const TEXTS: Readonly<Record<MessageLanguage, DocumentTexts>> = { en, fr };

export function documentTexts(language: MessageLanguage): DocumentTexts {
  return TEXTS[language];
}
