// The configuration export's part of the document (contract section 18): its path, its two
// media types, and the document's schema, derived from the registry as the export itself is
// (configuration-snapshot.ts): each resource's document fields, a reference as a text.
import type { MessageLanguage } from '../messages/languages.js';
import type { CompiledResource } from '../registry/compiled-resource.js';
import type { FieldDefinition } from '../registry/resource-definition.js';
import { parameterRef, plain, ref, type DocumentContext, type JsonObject } from './document-parts.js';
import { ACCESS, ALWAYS, errors } from './error-responses.js';

export const CONFIGURATION_TAG = 'configuration';

const TEXTS = {
  en: {
    tag: 'The whole configuration as one document, to keep in git or a CMDB (docs/config-as-code.md).',
    summary: 'Export the configuration',
    description:
      'Every resource that has a natural key, in dependency order, from one consistent snapshot: `change_id` is the last change the ' +
      'document includes (the change feed continues after it). Entries carry neither ids nor timestamps nor write-only fields ' +
      '(an SSH key’s `privée`); a reference is written as its target’s natural key (a tag by `name`, a client by `libelle`, an ' +
      'environment by `key`, a server by `"ip:port"`, an SSH key by `fingerprint`), null staying null; soft-deleted servers are left ' +
      'out. Entries are sorted by natural key, text by code point, so that two stores with the same configuration export the same ' +
      'document. `Accept: application/yaml` or `?format=yaml` gives YAML. The answer is streamed as it is read: a failure once it ' +
      'has begun cuts the connection, and the client sees a truncated document.',
    format: 'The document’s format; without it, Accept decides (JSON unless it prefers application/yaml).',
    listed: 'The configuration document.',
    changeId: 'The document’s `change_id`.',
    reference: (target: string, key: string) => `The ${target} entry’s natural key (${key}).`,
  },
  fr: {
    tag: 'Toute la configuration en un document, à garder dans git ou une CMDB (docs/config-as-code.md).',
    summary: 'Exporter la configuration',
    description:
      'Chaque ressource qui a une clé naturelle, dans l’ordre des dépendances, d’un seul instantané cohérent : `change_id` est le ' +
      'dernier changement que le document contient. Les entrées n’ont ni id, ni horodatage, ni champ en écriture seule (la `privée` ' +
      'd’une clé SSH) ; une référence est écrite par la clé naturelle de sa cible, null restant null ; les serveurs supprimés sont ' +
      'omis. Les entrées sont triées par clé naturelle, le texte par point de code. `Accept: application/yaml` ou `?format=yaml` ' +
      'donne du YAML. La réponse est envoyée au fil de la lecture : une panne une fois commencée coupe la connexion.',
    format: 'Le format du document ; sans lui, Accept décide (JSON sauf s’il préfère application/yaml).',
    listed: 'Le document de configuration.',
    changeId: 'Le `change_id` du document.',
    reference: (target: string, key: string) => `La clé naturelle (${key}) de l’entrée de ${target}.`,
  },
} satisfies Record<MessageLanguage, unknown>;

export function configurationTag(context: DocumentContext): JsonObject {
  return { name: CONFIGURATION_TAG, description: TEXTS[context.language].tag };
}

function fieldSchema(context: DocumentContext, field: FieldDefinition): JsonObject {
  const reference = field.type.references;
  if (reference === undefined) return plain(field.type.output, { description: field.description[context.language] });
  const target = context.registry.target(reference);
  const key = { type: 'string', description: TEXTS[context.language].reference(target.name, target.naturalKey!.join(' ":" ')) };
  if (reference.many) return { type: 'array', items: key, uniqueItems: true };
  return field.type.check(null) ? { ...key, type: ['string', 'null'] } : key;
}

function entrySchema(context: DocumentContext, resource: CompiledResource): JsonObject {
  const fields = resource.documentFields;
  return {
    type: 'object',
    required: fields.map(([name]) => name),
    additionalProperties: false,
    properties: Object.fromEntries(fields.map(([name, field]) => [name, fieldSchema(context, field)])),
  };
}

export function exportSchemas(context: DocumentContext): [string, JsonObject][] {
  const resources = context.registry.dependencyOrder();
  return [
    ...resources.map((resource) => [`${resource.schemaName}Exported`, entrySchema(context, resource)] as [string, JsonObject]),
    [
      'ConfigurationDocument',
      {
        type: 'object',
        required: ['version', 'change_id', ...resources.map((resource) => resource.name)],
        additionalProperties: false,
        properties: {
          version: { type: 'integer', const: 1 },
          change_id: { type: 'integer', minimum: 0 },
          ...Object.fromEntries(resources.map((resource) => [resource.name, { type: 'array', items: ref(`${resource.schemaName}Exported`) }])),
        },
      },
    ],
  ];
}

export function exportPaths(context: DocumentContext): [string, JsonObject][] {
  const c = TEXTS[context.language];
  const schema = ref('ConfigurationDocument');
  return [
    [
      '/{lang}/api/export',
      {
        parameters: [parameterRef('Lang')],
        get: {
          operationId: 'configurationExport',
          tags: [CONFIGURATION_TAG],
          summary: c.summary,
          description: c.description,
          parameters: [{ name: 'format', in: 'query', description: c.format, schema: { type: 'string', enum: ['json', 'yaml'] } }],
          responses: {
            '200': {
              description: c.listed,
              headers: { 'Change-Id': { description: c.changeId, required: true, schema: { type: 'integer', minimum: 0 } } },
              content: { 'application/json': { schema }, 'application/yaml': { schema } },
            },
            ...errors(...ALWAYS, ...ACCESS, 'BadQuery'),
          },
        },
      },
    ],
  ];
}
