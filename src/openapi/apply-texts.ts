// The sentences of the OpenAPI document about configuration as code (contract section 18), in
// the two languages that have messages.
import type { MessageLanguage } from '../messages/languages.js';

const en = {
  summary: 'Apply a configuration document',
  description:
    'Makes the stored configuration equal to the document (JSON, or YAML with `Content-Type: application/yaml`; any subset of the ' +
    'resources): entries missing from the store are created, entries that differ are updated (fields the document leaves out keep ' +
    'their values), and, only for the resources named in `prune`, stored entries missing from the document are deleted (servers ' +
    'soft-deleted; built-in rows refused). Writes run in dependency order, prunes in the reverse order, all in one transaction: a ' +
    'refusal changes nothing, and names its place in the document in `errors[].at` (`servers[12].ip`). Every change is in the change ' +
    'log under the request’s id. An entry to create that has a write-only field (an SSH key’s `privée`) must carry it. The answer is ' +
    'the plan; applying the same document again changes and records nothing.',
  dryRun: 'true: check everything and answer the plan, change nothing (the answer carries Dry-Run: true).',
  prune: 'Comma list of resources whose stored entries missing from the document are deleted.',
  ifMatch: 'The ETag of a reviewed plan: the apply is refused with 412 if anything changed since that plan was made, or if this document plans other changes.',
  applied: 'The plan: what was changed (or, in a dry run, would be).',
  etag: 'Tag of the plan and of the state it was made against; send it in If-Match to apply exactly this plan.',
  document: 'A configuration document: `version` 1, then one list of entries per resource. An export is one (its `change_id` is ignored).',
  changeId: 'Written by an export; ignored by an apply.',
  entry: (resource: string, key: string) => `An entry of ${resource}, identified by its natural key (${key}); its fields as a request sets them, references as natural keys.`,
  referenceByKey: (resource: string) => `In a document: the natural key of an entry of ${resource}.`,
  plan: 'The changes of an apply, in the order they are made, and their counts.',
  planChangeId: 'The id of the last change-log record once the apply is done (a dry run: of the state it was made against).',
  key: 'The entry’s natural key as one text (a server `10.0.0.5:3306`).',
  id: 'The entry’s id; null for an entry a dry run would create.',
  fields: 'An update’s changed fields, each `[stored, document]`; references as natural keys; a write-only field as `(secret)`.',
};

export type ApplyTexts = typeof en;

const fr: ApplyTexts = {
  summary: 'Appliquer un document de configuration',
  description:
    'Rend la configuration enregistrée égale au document (JSON, ou YAML avec `Content-Type: application/yaml` ; toute partie des ' +
    'ressources) : les entrées absentes sont créées, celles qui diffèrent sont modifiées (les champs que le document omet gardent leur ' +
    'valeur) et, pour les seules ressources nommées dans `prune`, les entrées enregistrées absentes du document sont supprimées ' +
    '(serveurs marqués supprimés ; lignes de la plateforme refusées). Les écritures suivent l’ordre des dépendances, les suppressions ' +
    'l’ordre inverse, le tout en une transaction : un refus ne change rien et nomme sa place dans le document dans `errors[].at` ' +
    '(`servers[12].ip`). Chaque changement est dans le journal sous l’id de la requête. Une entrée à créer qui a un champ en écriture ' +
    'seule (la `privée` d’une clé SSH) doit le porter. La réponse est le plan ; appliquer à nouveau le même document ne change ni ' +
    'n’enregistre rien.',
  dryRun: 'true : tout vérifier et répondre le plan, sans rien changer (la réponse porte Dry-Run: true).',
  prune: 'Liste, séparée par des virgules, des ressources dont les entrées absentes du document sont supprimées.',
  ifMatch: 'L’ETag d’un plan relu : l’application est refusée en 412 si quoi que ce soit a changé depuis ce plan, ou si ce document prévoit d’autres changements.',
  applied: 'Le plan : ce qui a été changé (ou, à blanc, le serait).',
  etag: 'Étiquette du plan et de l’état d’après lequel il a été fait ; l’envoyer dans If-Match pour appliquer exactement ce plan.',
  document: 'Un document de configuration : `version` 1, puis une liste d’entrées par ressource. Un export en est un (son `change_id` est ignoré).',
  changeId: 'Écrit par un export ; ignoré par une application.',
  entry: (resource: string, key: string) => `Une entrée de ${resource}, reconnue par sa clé naturelle (${key}) ; ses champs comme une requête les écrit, les références par clé naturelle.`,
  referenceByKey: (resource: string) => `Dans un document : la clé naturelle d’une entrée de ${resource}.`,
  plan: 'Les changements d’une application, dans l’ordre où ils sont faits, et leurs nombres.',
  planChangeId: 'L’id du dernier enregistrement du journal une fois l’application faite (à blanc : de l’état d’après lequel le plan est fait).',
  key: 'La clé naturelle de l’entrée en un texte (un serveur `10.0.0.5:3306`).',
  id: 'L’id de l’entrée ; null pour une entrée qu’un essai à blanc créerait.',
  fields: 'Les champs changés d’une modification, chacun `[enregistré, document]` ; références par clé naturelle ; un champ en écriture seule vaut `(secret)`.',
};

export function applyTexts(language: MessageLanguage): ApplyTexts {
  return language === 'fr' ? fr : en;
}
