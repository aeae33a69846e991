// Webhooks (contract section 16) described in the registry's terms, as the API tokens are:
// a webhook body is checked, stored, listed and documented by the same code as any entry's.
// Not a resource of the registry: the webhook endpoints (src/pipeline/execute-webhooks.ts) serve it,
// for admins. The signing secret is no field; the extra headers' values are write-only:
// the `headers` field stores and shows their names, and the webhook store seals the values
// in a column of their own (webhook-store.ts).
import Type from 'typebox';
import { message } from '../messages/messages.js';
import { compileResource, type CompiledResource } from '../registry/compiled-resource.js';
import { boolean, fieldType, text, textOrNull, timestampOrNull, type FieldType } from '../registry/field-types.js';
import { RESOURCES } from '../registry/resources.js';
import { CHANGE_ACTIONS } from './change-log.js';

export const WEBHOOK_HEADERS_MAX = 10;
/** Columns beside the fields that hold sealed secrets (webhook-store.ts seals them). */
export const WEBHOOK_SEALED_COLUMNS = ['secret', 'previous_secret', 'header_values'] as const;
/** Names the service sets itself: a webhook's own headers may not replace them. */
const RESERVED_HEADER = /^(webhook-.*|content-type|content-length|host|transfer-encoding|connection)$/i;
// RFC 9110 token characters.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[^\u0000-\u001f\u007f]{0,1000}$/;

function webhookUrl(): FieldType {
  return fieldType({
    input: Type.String({ minLength: 1, maxLength: 2048, format: 'uri' }),
    expectation: message('field.webhookUrl'),
    searchable: true,
    accepts: (value) => {
      try {
        const url = new URL(value as string);
        return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' && url.username === '' && url.password === '';
      } catch {
        return false;
      }
    },
  });
}

/** A set of names out of `values`, kept as a JSON array; empty means all. */
function nameSet(values: readonly string[], key: 'field.webhookResources' | 'field.webhookActions'): FieldType {
  const schema = Type.Array(Type.String({ enum: [...values] }), { uniqueItems: true, maxItems: values.length });
  return fieldType({
    input: schema,
    expectation: message(key, { values: values.join(', ') }),
    normalise: (value) => values.filter((name) => (value as string[]).includes(name)),
    toColumn: (value) => JSON.stringify(value),
    fromColumn: (value) => JSON.parse(String(value)) as string[],
  });
}

/** Extra request headers: an object of names and values on the way in, the names alone on
 * the way out (the values are write-only). */
function extraHeaders(): FieldType {
  return fieldType({
    input: Type.Record(Type.String(), Type.String(), { maxProperties: WEBHOOK_HEADERS_MAX }),
    output: Type.Array(Type.String()),
    expectation: message('field.webhookHeaders', { max: WEBHOOK_HEADERS_MAX }),
    accepts: (value) =>
      Object.entries(value as Record<string, string>).every(([name, text]) => HEADER_NAME.test(name) && !RESERVED_HEADER.test(name) && HEADER_VALUE.test(text)),
    toColumn: (value) => JSON.stringify(Object.keys(value as Record<string, string>)),
    fromColumn: (value) => JSON.parse(String(value)) as string[],
  });
}

export const WEBHOOK_RESOURCE_NAMES: readonly string[] = RESOURCES.map((resource) => resource.name);

// Kept outside the registry (no route of the resource API), so compiled here, once.
export const WEBHOOKS: CompiledResource = compileResource({
  name: 'webhooks',
  schemaName: 'Webhook',
  table: 'webhooks',
  description: {
    en: 'Receiver URLs told of every committed change they subscribe to, by signed HTTP POST requests. The signing secret is shown once, when the webhook is created or its secret rotated.',
    fr: 'URL de réception informées de chaque modification validée à laquelle elles sont abonnées, par des requêtes HTTP POST signées. Le secret de signature n’est montré qu’une fois, à la création du webhook ou au renouvellement de son secret.',
  },
  fields: {
    name: { type: text(1, 100), column: 'name', required: true, description: { en: 'Unique name.', fr: 'Nom unique.' } },
    url: { type: webhookUrl(), column: 'url', required: true, description: { en: 'The receiver: an http or https URL (redirects are not followed).', fr: 'Le récepteur : une URL http ou https (les redirections ne sont pas suivies).' } },
    resources: {
      type: nameSet(WEBHOOK_RESOURCE_NAMES, 'field.webhookResources'),
      column: 'resources',
      default: [],
      description: { en: 'The resources whose changes are delivered; empty: all.', fr: 'Les ressources dont les modifications sont livrées ; vide : toutes.' },
    },
    actions: {
      type: nameSet(CHANGE_ACTIONS, 'field.webhookActions'),
      column: 'actions',
      default: [],
      description: { en: 'The actions delivered; empty: all.', fr: 'Les actions livrées ; vide : toutes.' },
    },
    enabled: {
      type: boolean(),
      column: 'enabled',
      default: true,
      description: { en: 'Deliveries are made while true; enabling again resumes them.', fr: 'Les livraisons sont faites tant que vrai ; réactiver les reprend.' },
    },
    headers: {
      type: extraHeaders(),
      column: 'header_names',
      default: {},
      description: {
        en: 'Extra request headers (at most 10). Their values are write-only: answers show the names only.',
        fr: 'En-têtes de requête en plus (10 au plus). Leurs valeurs sont en écriture seule : les réponses n’en montrent que les noms.',
      },
    },
    failing_since: {
      type: timestampOrNull(),
      column: 'failing_since',
      readOnly: true,
      default: null,
      description: { en: 'Since when every attempt failed; null while healthy.', fr: 'Depuis quand chaque tentative échoue ; null tant que tout va bien.' },
    },
    disabled_reason: {
      type: textOrNull(1, 255),
      column: 'disabled_reason',
      readOnly: true,
      default: null,
      description: { en: 'Why the service disabled the webhook; null otherwise.', fr: 'Pourquoi le service a désactivé le webhook ; null sinon.' },
    },
  },
  unique: [{ fields: ['name'] }],
  deletion: { mode: 'hard' },
  example: { name: 'cmdb', url: 'https://cmdb.example.com/hooks/pmacontrol', resources: ['servers'], actions: [], enabled: true, headers: { Authorization: 'Bearer …' } },
});
