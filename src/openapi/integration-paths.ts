// The monitoring integrations' part of the document (contract section 17): Prometheus HTTP
// service discovery and the Ansible inventory, their query, schemas and answers. The schemas
// are as strict as the answers are (every label name made valid, every group name of one of
// the three kinds), so that the suite's check of every answer against the document
// (test/support/openapi-response-checker.ts) also checks the names.
import { SEARCH_MAX } from '../pipeline/parse-list-query.js';
import { LABEL_PREFIX, TARGET_LABELS } from '../pipeline/prometheus-targets.js';
import { MAX_ID } from '../registry/field-types.js';
import { json, parameterRef, ref, type DocumentContext, type JsonObject } from './document-parts.js';
import { ACCESS, ALWAYS, errors } from './error-responses.js';
import { integrationTexts } from './integration-texts.js';

export const INTEGRATIONS_TAG = 'integrations';
const idSchema = { type: 'integer', minimum: 1, maximum: MAX_ID };
const ETAG_PATTERN = '^(W/)?"[^"]*"$';

export function integrationsTag(context: DocumentContext): JsonObject {
  return { name: INTEGRATIONS_TAG, description: integrationTexts(context.language).tag };
}

const targetExample = {
  targets: ['192.0.2.20:3306'],
  labels: {
    ...Object.fromEntries(TARGET_LABELS.map((label) => [`${LABEL_PREFIX}${label}`, ''])),
    [`${LABEL_PREFIX}server_id`]: '7',
    [`${LABEL_PREFIX}hostname`]: 'db-01',
    [`${LABEL_PREFIX}port`]: '3306',
    [`${LABEL_PREFIX}client`]: 'ACME',
    [`${LABEL_PREFIX}client_id`]: '99',
    [`${LABEL_PREFIX}environment`]: 'prod',
    [`${LABEL_PREFIX}environment_id`]: '1',
    [`${LABEL_PREFIX}tags`]: ',galera,',
    [`${LABEL_PREFIX}ssl`]: 'false',
    [`${LABEL_PREFIX}is_proxy`]: 'false',
    [`${LABEL_PREFIX}is_vip`]: 'false',
    [`${LABEL_PREFIX}tag_galera`]: 'true',
  },
};

const hostVarsExample = { ansible_host: '192.0.2.20', mysql_port: 3306, pmacontrol_id: 7, pmacontrol_client: 'ACME', pmacontrol_environment: 'prod', pmacontrol_tags: ['galera'] };

/** What a fixed label can hold: an id or a port in digits, a flag, or any text. */
function labelSchema(label: (typeof TARGET_LABELS)[number]): JsonObject {
  switch (label) {
    case 'server_id':
    case 'port':
      return { type: 'string', pattern: '^[1-9][0-9]*$' };
    case 'client_id':
    case 'environment_id':
      return { type: 'string', pattern: '^([1-9][0-9]*)?$' };
    case 'ssl':
    case 'is_proxy':
    case 'is_vip':
      return { type: 'string', enum: ['true', 'false'] };
    case 'tags':
      return { type: 'string', pattern: '^(,.+,)?$' };
    default:
      return { type: 'string' };
  }
}

export function integrationSchemas(context: DocumentContext): [string, JsonObject][] {
  const c = integrationTexts(context.language);
  const hosts = { type: 'object', required: ['hosts'], additionalProperties: false, properties: { hosts: { type: 'array', items: { type: 'string', minLength: 1 }, description: c.hosts } } };
  return [
    [
      'PrometheusTarget',
      {
        type: 'object',
        description: c.target,
        required: ['targets', 'labels'],
        additionalProperties: false,
        properties: {
          targets: { type: 'array', minItems: 1, maxItems: 1, items: { type: 'string', pattern: '^([^:\\[\\]]+|\\[[0-9A-Fa-f:.]+\\]):[0-9]{1,5}$' } },
          labels: {
            type: 'object',
            description: c.labels,
            required: TARGET_LABELS.map((label) => `${LABEL_PREFIX}${label}`),
            properties: Object.fromEntries(TARGET_LABELS.map((label) => [`${LABEL_PREFIX}${label}`, labelSchema(label)])),
            propertyNames: { pattern: `^${LABEL_PREFIX}[A-Za-z0-9_]+$` },
            additionalProperties: { type: 'string' },
          },
        },
        examples: [targetExample],
      },
    ],
    ['PrometheusTargets', { type: 'array', items: ref('PrometheusTarget') }],
    [
      'AnsibleHostVars',
      {
        type: 'object',
        description: c.hostvars,
        required: Object.keys(hostVarsExample),
        additionalProperties: false,
        properties: {
          ansible_host: { type: 'string', minLength: 1 },
          mysql_port: { type: 'integer', minimum: 1, maximum: 65535 },
          pmacontrol_id: idSchema,
          pmacontrol_client: { type: ['string', 'null'] },
          pmacontrol_environment: { type: ['string', 'null'] },
          pmacontrol_tags: { type: 'array', items: { type: 'string' } },
        },
        examples: [hostVarsExample],
      },
    ],
    [
      'AnsibleInventory',
      {
        type: 'object',
        required: ['all', '_meta'],
        properties: {
          all: hosts,
          _meta: {
            type: 'object',
            description: c.meta,
            required: ['hostvars'],
            additionalProperties: false,
            properties: { hostvars: { type: 'object', additionalProperties: ref('AnsibleHostVars') } },
          },
        },
        patternProperties: { '^(client|env|tag)_[A-Za-z0-9_]*$': hosts },
        additionalProperties: false,
        examples: [{ all: { hosts: ['db-01'] }, client_ACME: { hosts: ['db-01'] }, env_prod: { hosts: ['db-01'] }, tag_galera: { hosts: ['db-01'] }, _meta: { hostvars: { 'db-01': hostVarsExample } } }],
      },
    ],
  ];
}

function operation(context: DocumentContext, operationId: string, summary: string, description: string, listed: string, schema: string): JsonObject {
  const c = integrationTexts(context.language);
  const etag = { description: c.etag, required: true, schema: { type: 'string', pattern: ETAG_PATTERN } };
  return {
    parameters: [parameterRef('Lang')],
    get: {
      operationId,
      tags: [INTEGRATIONS_TAG],
      summary,
      description,
      parameters: [
        { name: 'id_client', in: 'query', description: c.idClient, schema: idSchema },
        { name: 'id_environment', in: 'query', description: c.idEnvironment, schema: idSchema },
        { name: 'tag', in: 'query', description: c.tagFilter, style: 'form', explode: true, schema: { type: 'array', items: idSchema } },
        { name: 'q', in: 'query', description: c.q, schema: { type: 'string', minLength: 1, maxLength: SEARCH_MAX } },
        { name: 'If-None-Match', in: 'header', description: c.ifNoneMatch, schema: { type: 'string' } },
      ],
      responses: {
        '200': { description: listed, headers: { ETag: etag }, content: json(ref(schema)) },
        '304': { description: c.notModified, headers: { ETag: etag } },
        ...errors(...ALWAYS, ...ACCESS, 'BadQuery'),
      },
    },
  };
}

export function integrationPaths(context: DocumentContext): [string, JsonObject][] {
  const c = integrationTexts(context.language);
  return [
    ['/{lang}/api/sd/prometheus', operation(context, 'prometheusTargets', c.prometheus, c.prometheusDescription, c.prometheusListed, 'PrometheusTargets')],
    ['/{lang}/api/inventory/ansible', operation(context, 'ansibleInventory', c.inventory, c.inventoryDescription, c.inventoryListed, 'AnsibleInventory')],
  ];
}
