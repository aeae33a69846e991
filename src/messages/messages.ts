// Every sentence the API can say, in French and English. Errors carry a key and its
// parameters, and are put into words only when the response is written, in the language
// of the request path. Messages never quote a submitted value: a value may be key material.
import type { MessageLanguage } from './languages.js';

const catalog = {
  // request level
  'path.unknown': { en: 'No resource lives at this path.', fr: 'Aucune ressource à cette adresse.' },
  'console.notBuilt': {
    en: 'The operator console is not built: run npm run build, then start the service again.',
    fr: 'La console d’exploitation n’est pas construite : lancez npm run build, puis redémarrez le service.',
  },
  'resource.unknown': { en: 'Unknown resource "{resource}".', fr: 'Ressource « {resource} » inconnue.' },
  'entry.notFound': { en: 'No entry {id} in {resource}.', fr: 'Aucune entrée {id} dans {resource}.' },
  'method.notAllowed': {
    en: 'Method {method} is not allowed here; allowed: {allow}.',
    fr: 'La méthode {method} n’est pas permise ici ; permises : {allow}.',
  },
  'body.malformed': { en: 'The request body is not valid JSON.', fr: 'Le corps de la requête n’est pas du JSON valide.' },
  'body.empty': { en: 'The request body is empty; a JSON object is expected.', fr: 'Le corps de la requête est vide ; un objet JSON est attendu.' },
  'body.forbiddenKey': {
    en: 'The request body uses a forbidden key (__proto__ or constructor).',
    fr: 'Le corps de la requête utilise une clé interdite (__proto__ ou constructor).',
  },
  'body.tooLarge': { en: 'The request body exceeds {limit} bytes.', fr: 'Le corps de la requête dépasse {limit} octets.' },
  'body.mediaType': {
    en: 'Send the body as JSON with the header Content-Type: application/json.',
    fr: 'Envoyez le corps en JSON avec l’en-tête Content-Type: application/json.',
  },
  'body.invalid': {
    en: 'The request body is invalid ({count} error(s)); see errors.',
    fr: 'Le corps de la requête est invalide ({count} erreur(s)) ; voir errors.',
  },
  'query.integerRange': {
    en: 'Query parameter "{parameter}" must be an integer from {min} to {max}.',
    fr: 'Le paramètre de requête « {parameter} » doit être un entier de {min} à {max}.',
  },
  'query.boolean': {
    en: 'Query parameter "{parameter}" must be true or false.',
    fr: 'Le paramètre de requête « {parameter} » doit valoir true ou false.',
  },
  'query.unknown': {
    en: 'Query parameter "{parameter}" is not supported here.',
    fr: 'Le paramètre de requête « {parameter} » n’est pas pris en charge ici.',
  },
  'query.oneOf': {
    en: 'Query parameter "{parameter}" must be one of: {values}.',
    fr: 'Le paramètre de requête « {parameter} » doit valoir l’une de ces valeurs : {values}.',
  },
  'query.repeated': {
    en: 'Query parameter "{parameter}" is given more than once.',
    fr: 'Le paramètre de requête « {parameter} » est donné plusieurs fois.',
  },
  'query.controlCharacter': {
    en: 'Query parameter "{parameter}" must not contain control characters.',
    fr: 'Le paramètre de requête « {parameter} » ne doit pas contenir de caractères de contrôle.',
  },
  'query.sort': {
    en: 'Query parameter "{parameter}" must be a comma-separated list of at most {max} distinct fields of this resource, each optionally preceded by "-".',
    fr: 'Le paramètre de requête « {parameter} » doit être une liste, séparée par des virgules, d’au plus {max} champs distincts de cette ressource, chacun éventuellement précédé de « - ».',
  },
  'query.cursor': {
    en: 'Query parameter "{parameter}" must be the "next" of a list answer with the same sort.',
    fr: 'Le paramètre de requête « {parameter} » doit être le « next » d’une réponse de liste triée de la même façon.',
  },
  'query.search': {
    en: 'Query parameter "{parameter}" must be 1 to {max} characters.',
    fr: 'Le paramètre de requête « {parameter} » doit compter de 1 à {max} caractères.',
  },
  'query.filterValue': {
    en: 'Query parameter "{parameter}" is not a valid value of that field.',
    fr: 'Le paramètre de requête « {parameter} » n’est pas une valeur valide de ce champ.',
  },
  'query.bulkIds': {
    en: 'Query parameter "{parameter}" must list 1 to {max} distinct entry ids, separated by commas.',
    fr: 'Le paramètre de requête « {parameter} » doit lister de 1 à {max} ids d’entrées distincts, séparés par des virgules.',
  },
  'precondition.failed': {
    en: 'The entry has changed since the version named by If-Match; read it again.',
    fr: 'L’entrée a changé depuis la version désignée par If-Match ; relisez-la.',
  },
  'precondition.planChanged': {
    en: 'The plan differs from the one named by If-Match (something was committed since, or the document now plans other changes); make a dry run again and review it.',
    fr: 'Le plan diffère de celui désigné par If-Match (un changement a été validé depuis, ou le document prévoit d’autres changements) ; refaites un essai à blanc et relisez-le.',
  },
  'conflict.unique': { en: 'Another entry already uses this value.', fr: 'Une autre entrée utilise déjà cette valeur.' },
  'conflict.summary': { en: 'The entry conflicts with an existing one; see errors.', fr: 'L’entrée entre en conflit avec une entrée existante ; voir errors.' },
  'delete.guarded': {
    en: '{resource} {id} is built into the platform and cannot be deleted.',
    fr: '{resource} {id} fait partie de la plateforme et ne peut pas être supprimé.',
  },
  'delete.referenced': {
    en: '{resource} {id} is still used by: {users}.',
    fr: '{resource} {id} est encore utilisé par : {users}.',
  },
  'delete.referencedAndOthers': {
    en: '{resource} {id} is still used by: {users}; and others (the first {named} of each are named).',
    fr: '{resource} {id} est encore utilisé par : {users} ; et d’autres (les {named} premiers de chacun sont nommés).',
  },
  'auth.missing': {
    en: 'This API needs a bearer token: send Authorization: Bearer <token>.',
    fr: 'Cette API demande un jeton : envoyez Authorization: Bearer <jeton>.',
  },
  'auth.invalid': { en: 'The bearer token is not valid.', fr: 'Le jeton n’est pas valide.' },
  'auth.readOnly': {
    en: 'This token may only read; {method} needs a write token.',
    fr: 'Ce jeton ne permet que la lecture ; {method} demande un jeton d’écriture.',
  },
  'auth.expired': { en: 'The bearer token has expired; ask for a new one.', fr: 'Le jeton a expiré ; demandez-en un nouveau.' },
  'auth.address': {
    en: 'This token may not be used from this address.',
    fr: 'Ce jeton ne peut pas être utilisé depuis cette adresse.',
  },
  'auth.loopbackOnly': {
    en: 'No API token exists yet: only clients on this machine (loopback) are served without one.',
    fr: 'Aucun jeton d’API n’existe encore : seuls les clients de cette machine (loopback) sont servis sans jeton.',
  },
  'auth.host': {
    en: 'Without any API token, only requests addressed to localhost, 127.0.0.1 or [::1] (the Host header) are served.',
    fr: 'Sans jeton d’API, seules les requêtes adressées à localhost, 127.0.0.1 ou [::1] (l’en-tête Host) sont servies.',
  },
  'auth.adminOnly': { en: 'Only an admin token may manage tokens and webhooks.', fr: 'Seul un jeton admin peut gérer les jetons et les webhooks.' },
  'rate.limited': {
    en: 'Too many requests; try again in {seconds} s.',
    fr: 'Trop de requêtes ; réessayez dans {seconds} s.',
  },
  // Load and disk safeguards (heavy-work-gate.ts, storage-health.ts).
  'heavy.busy': {
    en: 'The service is busy with large queries; try again in {seconds} s, or ask for a smaller page.',
    fr: 'Le service est occupé par de grosses requêtes ; réessayez dans {seconds} s, ou demandez une page plus petite.',
  },
  'disk.floodStage': {
    en: 'The database’s disk is almost full ({free} free, below the flood stage of {threshold}); nothing was written. Try again once space is freed.',
    fr: 'Le disque de la base de données est presque plein ({free} libres, sous le seuil d’arrêt de {threshold}) ; rien n’a été écrit. Réessayez une fois de la place libérée.',
  },
  'readiness.diskFlood': {
    en: 'Not ready: the database’s disk is almost full ({free} free, below the flood stage of {threshold}), and writes are refused until space is freed.',
    fr: 'Pas prêt : le disque de la base de données est presque plein ({free} libres, sous le seuil d’arrêt de {threshold}), et les écritures sont refusées jusqu’à ce que de la place soit libérée.',
  },
  'body.encoding': { en: 'The request body is not valid UTF-8.', fr: 'Le corps de la requête n’est pas de l’UTF-8 valide.' },
  'body.loneSurrogate': {
    en: 'The request body holds a string with a lone surrogate escape (\\uD800 to \\uDFFF), which names no character.',
    fr: 'Le corps de la requête contient une chaîne avec un échappement de demi-code isolé (\\uD800 à \\uDFFF), qui ne désigne aucun caractère.',
  },
  'body.duplicateKey': {
    en: 'The request body names the same key twice in one object.',
    fr: 'Le corps de la requête nomme deux fois la même clé dans un objet.',
  },
  'body.tooDeep': {
    en: 'The request body nests deeper than {depth} levels.',
    fr: 'Le corps de la requête est imbriqué sur plus de {depth} niveaux.',
  },
  'database.unavailable': { en: 'The database cannot be reached; try again shortly.', fr: 'La base de données est injoignable ; réessayez sous peu.' },
  'database.full': {
    en: 'The database has no room left on its disk; nothing was written. Try again once space is freed.',
    fr: 'Le disque de la base de données est plein ; rien n’a été écrit. Réessayez une fois de la place libérée.',
  },
  'database.readOnly': {
    en: 'The database refuses writes at the moment (it is read-only); nothing was written. Reads still work.',
    fr: 'La base de données refuse les écritures pour le moment (elle est en lecture seule) ; rien n’a été écrit. Les lectures fonctionnent.',
  },
  'database.readOnlyMode': {
    en: 'This instance serves reads only (READ_ONLY=true); send writes to an instance that accepts them.',
    fr: 'Cette instance ne sert que des lectures (READ_ONLY=true) ; envoyez les écritures à une instance qui les accepte.',
  },
  'readiness.full': {
    en: 'Not ready: the database’s disk is full, and writes are refused until space is freed.',
    fr: 'Pas prêt : le disque de la base de données est plein, et les écritures sont refusées jusqu’à ce que de la place soit libérée.',
  },
  'readiness.readOnly': {
    en: 'Not ready: the database refuses writes (it is read-only).',
    fr: 'Pas prêt : la base de données refuse les écritures (elle est en lecture seule).',
  },
  'connections.full': {
    en: 'The service has too many open connections; try again in {seconds} s.',
    fr: 'Le service a trop de connexions ouvertes ; réessayez dans {seconds} s.',
  },
  'request.malformed': { en: 'The HTTP request cannot be read.', fr: 'La requête HTTP ne peut pas être lue.' },
  'request.timeout': { en: 'The request did not arrive in time.', fr: 'La requête n’est pas arrivée à temps.' },
  'request.headersTooLarge': {
    en: 'The request line and headers are too large.',
    fr: 'La ligne de requête et les en-têtes sont trop longs.',
  },
  'method.unknown': { en: 'This method is not served on any path.', fr: 'Cette méthode n’est servie sur aucun chemin.' },
  'streams.perToken': {
    en: 'This token already has {limit} change streams open here; close one, or try again in {seconds} s.',
    fr: 'Ce jeton a déjà {limit} flux de changements ouverts ici ; fermez-en un, ou réessayez dans {seconds} s.',
  },
  'streams.perAddress': {
    en: 'This address already has {limit} change streams open here; close one, or try again in {seconds} s.',
    fr: 'Cette adresse a déjà {limit} flux de changements ouverts ici ; fermez-en un, ou réessayez dans {seconds} s.',
  },
  'streams.full': {
    en: 'The service has as many change streams open as it allows; try again in {seconds} s.',
    fr: 'Le service a autant de flux de changements ouverts qu’il en permet ; réessayez dans {seconds} s.',
  },
  'server.internal': { en: 'An internal error occurred.', fr: 'Une erreur interne s’est produite.' },
  'metrics.unavailable': {
    en: 'The workers’ metrics could not be gathered; try again shortly.',
    fr: 'Les métriques des processus n’ont pas pu être rassemblées ; réessayez sous peu.',
  },

  // field level
  'field.body': { en: 'the body must be a JSON object.', fr: 'le corps doit être un objet JSON.' },
  'field.bulkBody': {
    en: 'the body must be a JSON array of 1 to {max} entries.',
    fr: 'le corps doit être un tableau JSON de 1 à {max} entrées.',
  },
  'field.entryId': { en: 'must be the id of an entry (an integer from 1).', fr: 'doit être l’id d’une entrée (un entier à partir de 1).' },
  'field.noBody': { en: 'this request takes no body.', fr: 'cette requête ne prend pas de corps.' },
  'field.duplicateInBatch': {
    en: 'the same value as entry {other} of this request.',
    fr: 'la même valeur que l’entrée {other} de cette requête.',
  },
  'field.idRepeated': { en: 'names the same entry as entry {other} of this request.', fr: 'désigne la même entrée que l’entrée {other} de cette requête.' },
  'field.required': { en: 'this field is required.', fr: 'ce champ est obligatoire.' },
  'field.unknown': { en: 'this resource has no such field.', fr: 'cette ressource n’a pas ce champ.' },
  'field.idMismatch': { en: 'must equal the id in the path ({id}).', fr: 'doit être égal à l’id du chemin ({id}).' },
  'field.text': {
    en: 'must be a string of {min} to {max} characters, without control characters.',
    fr: 'doit être une chaîne de {min} à {max} caractères, sans caractère de contrôle.',
  },
  'field.textOrNull': {
    en: 'must be null or a string of {min} to {max} characters, without control characters.',
    fr: 'doit être null ou une chaîne de {min} à {max} caractères, sans caractère de contrôle.',
  },
  'field.hexColor': { en: 'must be "#" followed by six hexadecimal digits.', fr: 'doit être « # » suivi de six chiffres hexadécimaux.' },
  'field.slug': {
    en: 'must be {min} to {max} characters among a-z, 0-9, "_" and "-".',
    fr: 'doit compter {min} à {max} caractères parmi a-z, 0-9, « _ » et « - ».',
  },
  'field.oneOf': { en: 'must be one of: {values}.', fr: 'doit être l’une des valeurs : {values}.' },
  'field.character': { en: 'must be exactly one visible character.', fr: 'doit être exactement un caractère visible.' },
  'field.integer': { en: 'must be an integer from {min} to {max}.', fr: 'doit être un entier de {min} à {max}.' },
  'field.timestamp': {
    en: 'must be an ISO 8601 date-time with its offset, such as 2026-01-31T12:00:00Z.',
    fr: 'doit être une date et heure ISO 8601 avec son décalage, par exemple 2026-01-31T12:00:00Z.',
  },
  'field.tokenName': {
    en: 'must be 1 to 64 characters among A-Z, a-z, 0-9, ".", "_", "@" and "-", starting with a letter or a digit.',
    fr: 'doit compter 1 à 64 caractères parmi A-Z, a-z, 0-9, « . », « _ », « @ » et « - », et commencer par une lettre ou un chiffre.',
  },
  'field.expiry': {
    en: 'must be null or a date and time with its time zone (ISO 8601, e.g. 2027-01-31T00:00:00Z).',
    fr: 'doit être null ou une date et heure avec son fuseau (ISO 8601, par exemple 2027-01-31T00:00:00Z).',
  },
  'field.expiryPast': { en: 'must be in the future.', fr: 'doit être dans le futur.' },
  'field.addressRanges': {
    en: 'must be null or a list of 1 to {max} IPv4 or IPv6 networks (address/prefix, no bit set past the prefix) or addresses.',
    fr: 'doit être null ou une liste de 1 à {max} réseaux IPv4 ou IPv6 (adresse/préfixe, aucun bit après le préfixe) ou adresses.',
  },
  'field.boolean': { en: 'must be true or false (or 1 or 0).', fr: 'doit être true ou false (ou 1 ou 0).' },
  'field.reference': { en: 'must be the id of an entry of {resource}.', fr: 'doit être l’id d’une entrée de {resource}.' },
  'field.referenceOrNull': { en: 'must be null or the id of an entry of {resource}.', fr: 'doit être null ou l’id d’une entrée de {resource}.' },
  'field.referenceSet': {
    en: 'must be an array of at most {max} distinct ids of entries of {resource}.',
    fr: 'doit être un tableau d’au plus {max} ids distincts d’entrées de {resource}.',
  },
  'field.linkChangeAlone': {
    en: 'cannot be sent together with {field}, which replaces the whole set.',
    fr: 'ne peut pas être envoyé avec {field}, qui remplace tout l’ensemble.',
  },
  'field.linkChangePatchOnly': { en: 'is accepted by PATCH only.', fr: 'n’est accepté que par PATCH.' },
  'field.referenceMissing': { en: '{resource} {id} does not exist.', fr: '{resource} {id} n’existe pas.' },
  'field.referenceDeleted': { en: '{resource} {id} is deleted.', fr: '{resource} {id} est supprimé.' },
  'field.ipAddress': { en: 'must be an IPv4 or IPv6 address.', fr: 'doit être une adresse IPv4 ou IPv6.' },
  'field.host': {
    en: 'must be an IPv4 address, an IPv6 address or a DNS name, of at most {max} characters.',
    fr: 'doit être une adresse IPv4, une adresse IPv6 ou un nom DNS, de {max} caractères au plus.',
  },
  'field.dnsName': { en: 'must be a DNS name of 1 to {max} characters.', fr: 'doit être un nom DNS de 1 à {max} caractères.' },
  'field.absolutePath': {
    en: 'must be an absolute path (starting with "/") of at most {max} characters.',
    fr: 'doit être un chemin absolu (commençant par « / ») de {max} caractères au plus.',
  },
  'field.sshPublicKey': {
    en: 'must be one OpenSSH public key line (ssh-ed25519 or ssh-rsa).',
    fr: 'doit être une ligne de clé publique OpenSSH (ssh-ed25519 ou ssh-rsa).',
  },
  'field.sshPrivateKey': {
    en: 'must be an unencrypted private key in OpenSSH or PEM format.',
    fr: 'doit être une clé privée non chiffrée au format OpenSSH ou PEM.',
  },
  'field.fingerprint': { en: 'must be a fingerprint of the form SHA256:….', fr: 'doit être une empreinte de la forme SHA256:….' },
  'field.fingerprintMismatch': {
    en: 'does not match the public key (its fingerprint is {expected}).',
    fr: 'ne correspond pas à la clé publique (son empreinte est {expected}).',
  },
  'field.keyTypeMismatch': { en: 'does not match the public key, which is {actual}.', fr: 'ne correspond pas à la clé publique, qui est {actual}.' },
  'field.privateKeyMismatch': { en: 'is not the private half of pub.', fr: 'n’est pas la moitié privée de pub.' },
  'field.privateKeyEncrypted': {
    en: 'is protected by a passphrase; send the unencrypted key (it is encrypted at rest by the service).',
    fr: 'est protégée par une phrase de passe ; envoyez la clé non chiffrée (le service la chiffre au repos).',
  },
  'field.webhookUrl': {
    en: 'must be an http or https URL of at most 2048 characters, without user name or password.',
    fr: 'doit être une URL http ou https d’au plus 2048 caractères, sans nom d’utilisateur ni mot de passe.',
  },
  'field.webhookResources': { en: 'must be a list of resource names: {values}.', fr: 'doit être une liste de noms de ressources : {values}.' },
  'field.webhookActions': { en: 'must be a list of actions: {values}.', fr: 'doit être une liste d’actions : {values}.' },
  'field.webhookHeaders': {
    en: 'must be an object of at most {max} headers: each name an HTTP token that is neither webhook-* nor content-type (nor host, content-length, transfer-encoding, connection), each value text without control characters of at most 1000 characters.',
    fr: 'doit être un objet d’au plus {max} en-têtes : chaque nom un jeton HTTP qui n’est ni webhook-* ni content-type (ni host, content-length, transfer-encoding, connection), chaque valeur un texte sans caractère de contrôle d’au plus 1000 caractères.',
  },
  'webhook.urlRefused': {
    en: 'The URL’s host resolves to {address}, an address webhooks may not reach (loopback, private, link-local, unique-local, multicast or unspecified) outside WEBHOOK_ALLOWED_NETWORKS.',
    fr: 'L’hôte de l’URL se résout en {address}, une adresse que les webhooks ne peuvent atteindre (bouclage, privée, lien local, unique locale, multidiffusion ou non spécifiée) hors de WEBHOOK_ALLOWED_NETWORKS.',
  },
  'webhook.urlUnresolved': { en: 'The URL’s host cannot be resolved.', fr: 'L’hôte de l’URL ne peut être résolu.' },
  'webhook.deliveryNotFound': { en: 'No delivery {id} of webhook {webhook}.', fr: 'Aucune livraison {id} du webhook {webhook}.' },
  // configuration as code: apply (contract section 18)
  'apply.document': {
    en: 'must be an object: "version", then one list of entries per resource.',
    fr: 'doit être un objet : « version », puis une liste d’entrées par ressource.',
  },
  'apply.version': { en: 'must be 1, the only version of the document.', fr: 'doit valoir 1, la seule version du document.' },
  'apply.unknownResource': { en: 'no such resource in a configuration document.', fr: 'aucune ressource de ce nom dans un document de configuration.' },
  'apply.notList': { en: 'must be a list of entries.', fr: 'doit être une liste d’entrées.' },
  'apply.notEntry': { en: 'must be an object (one entry).', fr: 'doit être un objet (une entrée).' },
  'apply.duplicateKey': { en: 'has the same natural key as {other}.', fr: 'a la même clé naturelle que {other}.' },
  'apply.referenceForm': {
    en: 'must be the natural key of an entry of {resource}, as text (or null where the field allows it).',
    fr: 'doit être la clé naturelle d’une entrée de {resource}, en texte (ou null si le champ le permet).',
  },
  'apply.referenceList': {
    en: 'must be a list of natural keys of entries of {resource}, as text, no key twice.',
    fr: 'doit être une liste de clés naturelles d’entrées de {resource}, en texte, sans clé en double.',
  },
  'apply.referenceUnknown': {
    en: 'names an entry of {resource} that is neither stored nor in the document.',
    fr: 'désigne une entrée de {resource} qui n’est ni enregistrée ni dans le document.',
  },
  'apply.secretRequired': {
    en: 'required to create this entry (an export never carries it): add it, or create the entry first.',
    fr: 'obligatoire pour créer cette entrée (un export ne le contient jamais) : ajoutez-le, ou créez l’entrée d’abord.',
  },
  'apply.pruneBuiltIn': {
    en: '{resource} "{key}" is built in and cannot be pruned: keep it in the document.',
    fr: '{resource} « {key} » fait partie de la plateforme et ne peut être supprimé : gardez-le dans le document.',
  },
  'apply.refused': { en: 'The document cannot be applied ({count} error(s)); nothing was changed; see errors.', fr: 'Le document ne peut être appliqué ({count} erreur(s)) ; rien n’a été changé ; voir errors.' },
  'query.pruneResource': {
    en: 'Query parameter "prune" must be a comma list of resources of the document.',
    fr: 'Le paramètre de requête « prune » doit être une liste de ressources du document, séparées par des virgules.',
  },
  'body.yamlMalformed': { en: 'The request body is not valid YAML.', fr: 'Le corps de la requête n’est pas du YAML valide.' },
  'body.yamlEmpty': { en: 'The request body is empty; a YAML document is expected.', fr: 'Le corps de la requête est vide ; un document YAML est attendu.' },
  'body.mediaTypeDocument': {
    en: 'Send the document as JSON (Content-Type: application/json) or YAML (Content-Type: application/yaml).',
    fr: 'Envoyez le document en JSON (Content-Type: application/json) ou en YAML (Content-Type: application/yaml).',
  },
} as const satisfies Record<string, Record<MessageLanguage, string>>;

export type MessageKey = keyof typeof catalog;
export type MessageParams = Record<string, string | number>;

export interface Message {
  key: MessageKey;
  params?: MessageParams;
}

export function message(key: MessageKey, params?: MessageParams): Message {
  return params === undefined ? { key } : { key, params };
}

export function render(msg: Message, language: MessageLanguage): string {
  const template: string = catalog[msg.key][language];
  const params = msg.params;
  if (params === undefined) return template;
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}
