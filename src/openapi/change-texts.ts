// The sentences of the OpenAPI document about the change log (contract section 13), in the
// two languages that have messages.
import type { MessageLanguage } from '../messages/languages.js';

const en = {
  changesTag:
    'The change log: one record per committed create, update, delete and restore, single or bulk, written in the transaction of the change. ' +
    'Read it as a list (`/changes`), as a live stream of Server-Sent Events (`/changes/stream`), or one entry at a time (`…/{id}/history` ' +
    'under each resource). The creations and revocations of managed API tokens are recorded too, as resource `tokens` (name, scope, ' +
    'expiry and allowed networks, never the token nor its digest). Needs a `read` token once tokens exist. Records never carry key material.',
  list: 'List the changes after a point',
  listDescription:
    'The records with an id greater than `since`, oldest first, at most `limit`, narrowed by the filters. `next` is the `since` of the ' +
    'following page (the same `since` when the page is empty: ask again later from there). Resuming from the last id seen gives every ' +
    'committed change exactly once, in id order, even with several instances on one database. Records older than ' +
    'CHANGELOG_RETENTION_DAYS (90 by default; 0 keeps them all) are pruned.',
  listed: 'A page of records, oldest first.',
  stream: 'Follow the changes as they are committed (Server-Sent Events)',
  streamDescription:
    'A `text/event-stream` that never ends by itself: first the records after `since` (or after `Last-Event-ID`, which wins: an ' +
    '`EventSource` sends it when it reconnects), then each record as it is committed, on this instance or another one sharing the ' +
    'database (within a second). Each record is one event: `id: <record id>`, `event: change`, `data: <the record as JSON, one line>`, ' +
    'then a blank line. Comment lines (starting with `:`) keep the connection alive (every 15 s by default). The filters are those of ' +
    'GET /{lang}/api/changes; there is no `limit`. A client too slow to read is disconnected and resumes from the last id it received. ' +
    'The stream ends when its token is revoked or expires. A token and a client address may each hold a limited number of streams ' +
    '(429 TOO_MANY_STREAMS), and streams may use at most half of the instance’s connections (503). ' +
    'Errors before the stream starts are answered as everywhere else; HEAD is not served here (405).',
  streamed: 'The stream of events; it stays open.',
  streamBody: 'Server-Sent Events: comment lines, and one `change` event per record, its `data` being a ChangeRecord as JSON.',
  cacheControl: 'The stream is never cached: `no-store`.',
  history: (resource: string) => `The history of an entry of ${resource}`,
  historyDescription:
    'The change records of this entry, newest first, with `total` and `limit`/`offset` paging. It still answers once the entry is ' +
    'hard-deleted; 404 NOT_FOUND for an id that has no record and no entry (an entry with no record, such as a built-in one, has an empty history).',
  historyListed: 'A page of the entry’s records, newest first.',
  since: 'Only records with an id greater than this one (the `next` of the previous page, or the last id seen). 0: from the oldest kept.',
  lastEventId: 'Sent by a reconnecting EventSource: the id of the last event received. Resumes after it, and wins over `since`.',
  resource: 'Only the records of this resource; `tokens`: the creations and revocations of managed API tokens.',
  entryId: 'Only the records of the entry with this id (with `resource`, one entry).',
  actor: 'Only the records of changes made by this actor (a token’s name, or `anonymous`).',
  action: 'Only the records of this action.',
  limit: 'Records per page.',
  offset: 'Records to skip.',
  record: 'One committed change of one entry.',
  id: 'The record’s id: ids grow in commit order, and one is never reused.',
  at: 'When the change was committed (ISO 8601, UTC).',
  actionField: 'create, update, delete (soft or hard) or restore.',
  resourceField: 'The resource of the entry (its name at the time of the change); `tokens` for a managed API token.',
  entryIdField: 'The id of the entry that changed.',
  actorField: 'Who made the change: the name of the token, or `anonymous`.',
  requestId: 'The id of the request that made the change, as its `X-Request-Id` answer header and its log lines show it.',
  before: 'The entry as GET showed it before the change (write-only fields left out); null for a create.',
  after: 'The entry as GET shows it after the change (write-only fields left out); null for a hard delete. A soft delete shows `is_deleted` 1.',
  snapshot: 'The entry as its resource’s GET shows it (write-only fields left out); a token as GET /{lang}/api/tokens/{id} shows it.',
  secretsChanged: 'The write-only fields the change set (their values never appear anywhere).',
  next: 'The `since` of the following page: the id of this page’s last record, or the `since` asked for when the page is empty.',
  total: 'Records of this entry, over all pages.',
};

export type ChangeTexts = typeof en;

const fr: ChangeTexts = {
  changesTag:
    'Le journal des modifications : un enregistrement par création, modification, suppression et restauration validée, unitaire ou en lot, ' +
    'écrit dans la transaction de la modification. Il se lit en liste (`/changes`), en flux continu de Server-Sent Events (`/changes/stream`) ' +
    'ou entrée par entrée (`…/{id}/history` sous chaque ressource). Les créations et révocations des jetons d’API gérés y sont aussi, ' +
    'en ressource `tokens` (nom, portée, expiration et réseaux permis, jamais le jeton ni son condensat). Demande un jeton `read` dès que ' +
    'des jetons existent. Les enregistrements ne portent jamais de matériel de clé.',
  list: 'Lister les modifications après un point',
  listDescription:
    'Les enregistrements d’id supérieur à `since`, les plus anciens d’abord, `limit` au plus, restreints par les filtres. `next` est le ' +
    '`since` de la page suivante (le même `since` quand la page est vide : redemander plus tard à partir de là). Reprendre après le dernier ' +
    'id vu donne chaque modification validée exactement une fois, dans l’ordre des id, même avec plusieurs instances sur une même base. ' +
    'Les enregistrements plus anciens que CHANGELOG_RETENTION_DAYS (90 par défaut ; 0 les garde tous) sont purgés.',
  listed: 'Une page d’enregistrements, les plus anciens d’abord.',
  stream: 'Suivre les modifications à mesure qu’elles sont validées (Server-Sent Events)',
  streamDescription:
    'Un `text/event-stream` qui ne se termine jamais de lui-même : d’abord les enregistrements après `since` (ou après `Last-Event-ID`, ' +
    'prioritaire : un `EventSource` l’envoie quand il se reconnecte), puis chaque enregistrement à mesure qu’il est validé, sur cette ' +
    'instance ou une autre partageant la base (en moins d’une seconde). Chaque enregistrement est un événement : `id: <id de ' +
    'l’enregistrement>`, `event: change`, `data: <l’enregistrement en JSON, sur une ligne>`, puis une ligne vide. Des lignes de ' +
    'commentaire (commençant par `:`) gardent la connexion ouverte (toutes les 15 s par défaut). Les filtres sont ceux de ' +
    'GET /{lang}/api/changes ; il n’y a pas de `limit`. Un client trop lent à lire est déconnecté et reprend après le dernier id reçu. ' +
    'Le flux se termine quand son jeton est révoqué ou expire. Un jeton et une adresse cliente ne peuvent tenir chacun qu’un nombre ' +
    'limité de flux (429 TOO_MANY_STREAMS), et les flux n’utilisent au plus que la moitié des connexions de l’instance (503). ' +
    'Les erreurs avant le début du flux sont répondues comme partout ; HEAD n’est pas servi ici (405).',
  streamed: 'Le flux d’événements ; il reste ouvert.',
  streamBody: 'Server-Sent Events : des lignes de commentaire, et un événement `change` par enregistrement, dont `data` est un ChangeRecord en JSON.',
  cacheControl: 'Le flux n’est jamais mis en cache : `no-store`.',
  history: (resource: string) => `L’historique d’une entrée de ${resource}`,
  historyDescription:
    'Les enregistrements de modification de cette entrée, les plus récents d’abord, avec `total` et une pagination `limit`/`offset`. ' +
    'Répond encore une fois l’entrée supprimée définitivement ; 404 NOT_FOUND pour un id sans enregistrement ni entrée (une entrée sans ' +
    'enregistrement, comme une entrée intégrée, a un historique vide).',
  historyListed: 'Une page des enregistrements de l’entrée, les plus récents d’abord.',
  since: 'Seulement les enregistrements d’id supérieur à celui-ci (le `next` de la page précédente, ou le dernier id vu). 0 : depuis le plus ancien conservé.',
  lastEventId: 'Envoyé par un EventSource qui se reconnecte : l’id du dernier événement reçu. Reprend après lui, et l’emporte sur `since`.',
  resource: 'Seulement les enregistrements de cette ressource ; `tokens` : les créations et révocations des jetons d’API gérés.',
  entryId: 'Seulement les enregistrements de l’entrée de cet id (avec `resource`, une seule entrée).',
  actor: 'Seulement les enregistrements des modifications faites par cet auteur (le nom d’un jeton, ou `anonymous`).',
  action: 'Seulement les enregistrements de cette action.',
  limit: 'Enregistrements par page.',
  offset: 'Enregistrements à sauter.',
  record: 'Une modification validée d’une entrée.',
  id: 'L’id de l’enregistrement : les id croissent dans l’ordre de validation, et aucun n’est réutilisé.',
  at: 'Quand la modification a été validée (ISO 8601, UTC).',
  actionField: 'create, update, delete (logique ou définitive) ou restore.',
  resourceField: 'La ressource de l’entrée (son nom au moment de la modification) ; `tokens` pour un jeton d’API géré.',
  entryIdField: 'L’id de l’entrée modifiée.',
  actorField: 'L’auteur de la modification : le nom du jeton, ou `anonymous`.',
  requestId: 'L’id de la requête qui a fait la modification, tel que le montrent l’en-tête de réponse `X-Request-Id` et ses lignes de journal.',
  before: 'L’entrée telle que GET la montrait avant la modification (sans les champs en écriture seule) ; null pour une création.',
  after:
    'L’entrée telle que GET la montre après la modification (sans les champs en écriture seule) ; null pour une suppression définitive. ' +
    'Une suppression logique montre `is_deleted` à 1.',
  snapshot: 'L’entrée telle que le GET de sa ressource la montre (sans les champs en écriture seule) ; un jeton tel que GET /{lang}/api/tokens/{id} le montre.',
  secretsChanged: 'Les champs en écriture seule que la modification a définis (leurs valeurs n’apparaissent nulle part).',
  next: 'Le `since` de la page suivante : l’id du dernier enregistrement de cette page, ou le `since` demandé quand la page est vide.',
  total: 'Enregistrements de cette entrée, sur toutes les pages.',
};

const TEXTS: Readonly<Record<MessageLanguage, ChangeTexts>> = { en, fr };

export function changeTexts(language: MessageLanguage): ChangeTexts {
  return TEXTS[language];
}
