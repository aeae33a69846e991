// The sentences of the OpenAPI document about webhooks (contract section 16), in the two
// languages that have messages.
import type { MessageLanguage } from '../messages/languages.js';

const en = {
  tag: 'Receiver URLs told of every committed change they subscribe to, by POST requests signed by the Standard Webhooks rules, retried for a day. For admin tokens only.',
  list: 'List the webhooks',
  listDescription: 'The webhooks, never their secret nor their headers’ values, newest first unless `sort` says otherwise. Admin tokens only.',
  create: 'Create a webhook',
  createDescription:
    'The answer holds the signing secret (`secret`, `whsec_…`) this once. The URL’s host must not resolve to a loopback, private, link-local, unique-local, ' +
    'multicast or unspecified address outside WEBHOOK_ALLOWED_NETWORKS (400 URL_REFUSED). Each committed change it subscribes to gives one delivery. Admin tokens only.',
  created: 'Created; the answer carries the signing secret, once.',
  read: 'Read one webhook',
  readDescription: 'The webhook, never its secret nor its headers’ values. `failing_since` and `disabled_reason` are null while it is healthy. With `If-None-Match` holding the current ETag, the answer is 304 with no body. Admin tokens only.',
  update: 'Change a webhook',
  updateDescription: 'Changes the fields sent. Enabling a webhook again (`enabled: true`) clears `failing_since` and `disabled_reason`: its deliveries resume. A PATCH that changes nothing writes nothing and records no change. With `If-Match`, refused with 412 if the webhook changed since (the service disabling it is a change). Admin tokens only.',
  updated: 'Changed.',
  remove: 'Delete a webhook',
  removeDescription: 'Deletes the webhook and its deliveries for good. With `If-Match`, refused with 412 if the webhook changed since. Admin tokens only.',
  removed: 'Deleted.',
  rotate: 'Rotate a webhook’s signing secret',
  rotateDescription: 'A new signing secret, shown this once. For 24 hours deliveries carry two signatures, with the new and the old secret, space separated. Admin tokens only.',
  rotated: 'The new secret, once.',
  ping: 'Ping a webhook',
  pingDescription: 'Makes one delivery of type `webhook.ping` at once and answers its result (not retried). Admin tokens only.',
  pinged: 'The ping’s delivery, with its attempt.',
  deliveries: 'List a webhook’s deliveries',
  deliveriesDescription: 'Newest first, with their attempts; `next` is the `after` of the next page. Deliveries are kept WEBHOOK_DELIVERY_RETENTION_DAYS. Admin tokens only.',
  deliveriesListed: 'A page of deliveries.',
  statusParameter: 'Only the deliveries of this status.',
  limitParameter: 'Deliveries per page.',
  afterParameter: 'The `next` of the previous page.',
  deliveryId: 'The delivery’s id.',
  redeliver: 'Redeliver',
  redeliverDescription: 'Queues the delivery again for an attempt now: a new attempt of the same delivery, with the same `webhook-id`. Admin tokens only.',
  redelivered: 'Queued again.',
  secret: 'The signing secret: `whsec_` and the base64 of the key. Shown in this answer only: keep it now.',
  response: 'At most 1 KB of the receiver’s answer.',
  type: '`<resource>.<action>`, or `webhook.ping`.',
  next: 'The `after` of the next page; null on the last.',
  dryRunSecret: 'null on a dry run: no secret is made or stored; the real request shows the one it stores.',
};

export type WebhookTexts = typeof en;

const fr: WebhookTexts = {
  tag: 'URL de réception informées de chaque modification validée à laquelle elles sont abonnées, par des requêtes POST signées selon Standard Webhooks, réessayées un jour durant. Pour les jetons admin seulement.',
  list: 'Lister les webhooks',
  listDescription: 'Les webhooks, jamais leur secret ni les valeurs de leurs en-têtes, les plus récents d’abord sauf si `sort` en décide autrement. Jetons admin seulement.',
  create: 'Créer un webhook',
  createDescription:
    'La réponse porte le secret de signature (`secret`, `whsec_…`) cette fois seulement. L’hôte de l’URL ne doit pas se résoudre en une adresse de bouclage, privée, ' +
    'de lien local, unique locale, de multidiffusion ou non spécifiée hors de WEBHOOK_ALLOWED_NETWORKS (400 URL_REFUSED). Chaque modification validée à laquelle il est abonné donne une livraison. Jetons admin seulement.',
  created: 'Créé ; la réponse porte le secret de signature, une fois.',
  read: 'Lire un webhook',
  readDescription: 'Le webhook, jamais son secret ni les valeurs de ses en-têtes. `failing_since` et `disabled_reason` sont null tant qu’il va bien. Avec `If-None-Match` portant l’ETag actuel, la réponse est 304, sans corps. Jetons admin seulement.',
  update: 'Modifier un webhook',
  updateDescription: 'Modifie les champs envoyés. Réactiver un webhook (`enabled: true`) efface `failing_since` et `disabled_reason` : ses livraisons reprennent. Un PATCH qui ne change rien n’écrit rien et n’enregistre aucune modification. Avec `If-Match`, refusé par 412 si le webhook a changé entre-temps (sa désactivation par le service est une modification). Jetons admin seulement.',
  updated: 'Modifié.',
  remove: 'Supprimer un webhook',
  removeDescription: 'Supprime le webhook et ses livraisons pour de bon. Avec `If-Match`, refusé par 412 si le webhook a changé entre-temps. Jetons admin seulement.',
  removed: 'Supprimé.',
  rotate: 'Renouveler le secret de signature d’un webhook',
  rotateDescription: 'Un nouveau secret, montré cette fois seulement. Pendant 24 heures les livraisons portent deux signatures, avec le nouveau et l’ancien secret, séparées par une espace. Jetons admin seulement.',
  rotated: 'Le nouveau secret, une fois.',
  ping: 'Envoyer un ping à un webhook',
  pingDescription: 'Fait tout de suite une livraison de type `webhook.ping` et répond son résultat (sans nouvel essai). Jetons admin seulement.',
  pinged: 'La livraison du ping, avec sa tentative.',
  deliveries: 'Lister les livraisons d’un webhook',
  deliveriesDescription: 'Les plus récentes d’abord, avec leurs tentatives ; `next` est le `after` de la page suivante. Les livraisons sont gardées WEBHOOK_DELIVERY_RETENTION_DAYS. Jetons admin seulement.',
  deliveriesListed: 'Une page de livraisons.',
  statusParameter: 'Seulement les livraisons de cet état.',
  limitParameter: 'Livraisons par page.',
  afterParameter: 'Le `next` de la page précédente.',
  deliveryId: 'L’id de la livraison.',
  redeliver: 'Livrer à nouveau',
  redeliverDescription: 'Remet la livraison en file pour une tentative tout de suite : une nouvelle tentative de la même livraison, avec le même `webhook-id`. Jetons admin seulement.',
  redelivered: 'Remise en file.',
  secret: 'Le secret de signature : `whsec_` et la base64 de la clé. Montré dans cette réponse seulement : gardez-le maintenant.',
  response: 'Au plus 1 Ko de la réponse du récepteur.',
  type: '`<ressource>.<action>`, ou `webhook.ping`.',
  next: 'Le `after` de la page suivante ; null sur la dernière.',
  dryRunSecret: 'null sur un essai à blanc : aucun secret n’est créé ni stocké ; la vraie requête montre celui qu’elle stocke.',
};

const TEXTS: Readonly<Record<MessageLanguage, WebhookTexts>> = { en, fr };

export function webhookTexts(language: MessageLanguage): WebhookTexts {
  return TEXTS[language];
}
