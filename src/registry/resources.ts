// The registry: the seven resources of the contract (section 3 and 4), and nothing else.
// Adding a resource is one entry here plus a migration that creates its table.
import { sshKeyRule } from '../ssh-keys/ssh-key-rule.js';
import * as kinds from './field-types.js';
import type { ResourceDefinition } from './resource-definition.js';

/** Environments 1-6 and client 99 are created by the first migration and belong to the platform. */
const BUILT_IN_ENVIRONMENTS = 6;
const SYSTEM_CLIENT = 99;

const tags: ResourceDefinition = {
  name: 'tags',
  schemaName: 'Tag',
  table: 'tags',
  description: 'Labels attached to servers in the dashboards.',
  fields: {
    name: { type: kinds.text(1, 50), column: 'name', required: true, description: 'Label shown on the tag.' },
    color: { type: kinds.hexColor(), column: 'color', default: '#ffffff', description: 'Text colour, #rrggbb.' },
    background: { type: kinds.hexColor(), column: 'background', default: '#337ab7', description: 'Background colour, #rrggbb.' },
  },
  unique: [{ fields: ['name'] }],
  deletion: { mode: 'hard' },
  example: { name: 'galera', color: '#ffffff', background: '#337ab7' },
};

const clients: ResourceDefinition = {
  name: 'clients',
  schemaName: 'Client',
  table: 'clients',
  description: 'Customers or teams that own servers. Client 99 ("system") is reserved by the platform.',
  fields: {
    libelle: { type: kinds.text(1, 100), column: 'libelle', required: true, description: 'Name of the client.' },
    logo: { type: kinds.text(0, 250), column: 'logo', default: '', description: 'Logo file name or URL.' },
    is_monitored: { type: kinds.boolean(), column: 'is_monitored', default: true, description: 'Whether the client’s servers are monitored.' },
  },
  unique: [{ fields: ['libelle'] }],
  deletion: { mode: 'hard', guarded: (id) => id === SYSTEM_CLIENT },
  example: { libelle: 'ACME', logo: 'acme.png', is_monitored: true },
};

const environments: ResourceDefinition = {
  name: 'environments',
  schemaName: 'Environment',
  table: 'environments',
  description: 'Stages of the fleet (production, test …). Environments 1-6 are built in.',
  fields: {
    libelle: { type: kinds.text(1, 20), column: 'libelle', required: true, description: 'Name of the environment.' },
    key: { type: kinds.slug(1, 13), column: 'key', required: true, description: 'Short key used in scripts.' },
    class: {
      type: kinds.oneOf(['danger', 'warning', 'default', 'info', 'success', 'primary']),
      column: 'class',
      required: true,
      description: 'Bootstrap colour class of the badge.',
    },
    letter: { type: kinds.character(), column: 'letter', required: true, description: 'One-letter badge.' },
  },
  unique: [{ fields: ['libelle'] }, { fields: ['key'] }],
  deletion: { mode: 'hard', guarded: (id) => id <= BUILT_IN_ENVIRONMENTS },
  example: { libelle: 'Staging', key: 'staging', class: 'warning', letter: 'S' },
};

const aliases: ResourceDefinition = {
  name: 'aliases',
  schemaName: 'Alias',
  table: 'aliases',
  description: 'DNS names under which a monitored server is also reached.',
  fields: {
    id_mysql_server: {
      type: kinds.reference('servers'),
      column: 'id_mysql_server',
      required: true,
      references: { resource: 'servers', mustBeLive: true },
      description: 'Id of the server (not deleted) the alias points to.',
    },
    dns: { type: kinds.dnsName(200), column: 'dns', required: true, description: 'DNS name (stored in lower case).' },
    port: { type: kinds.port(), column: 'port', required: true, description: 'TCP port.' },
  },
  unique: [{ fields: ['dns', 'port'] }],
  deletion: { mode: 'hard' },
  example: { id_mysql_server: 1, dns: 'db-primary.example.com', port: 3306 },
};

const storageAreas: ResourceDefinition = {
  name: 'storage-areas',
  schemaName: 'StorageArea',
  table: 'storage_areas',
  description: 'Places, reached over SSH, where backups are stored.',
  fields: {
    ip: { type: kinds.ipAddress(), column: 'ip', required: true, description: 'IPv4 or IPv6 address of the storage host.' },
    port: { type: kinds.port(), column: 'port', default: 22, description: 'SSH port.' },
    path: { type: kinds.absolutePath(1024), column: 'path', required: true, description: 'Absolute directory for the backups.' },
    libelle: { type: kinds.text(1, 64), column: 'libelle', required: true, description: 'Name of the storage area.' },
    ssh_key: {
      type: kinds.reference('ssh-keys'),
      column: 'ssh_key',
      required: true,
      references: { resource: 'ssh-keys' },
      description: 'Id of the SSH key used to log in.',
    },
    'géolocalisation': {
      type: kinds.textOrNull(0, 250),
      column: 'geolocalisation',
      default: null,
      description: 'Where the storage is, e.g. "Paris, FR".',
    },
  },
  unique: [],
  deletion: { mode: 'hard' },
  example: { ip: '192.0.2.10', port: 22, path: '/srv/backups', libelle: 'Backups Paris', ssh_key: 1, 'géolocalisation': 'Paris, FR' },
};

const servers: ResourceDefinition = {
  name: 'servers',
  schemaName: 'Server',
  table: 'servers',
  description: 'Monitored MySQL/MariaDB servers. DELETE marks a server deleted (is_deleted = 1) and keeps it.',
  fields: {
    ip: { type: kinds.host(255), column: 'ip', required: true, description: 'IPv4 or IPv6 address, or DNS name.' },
    port: { type: kinds.port(), column: 'port', default: 3306, description: 'MySQL port.' },
    hostname: { type: kinds.text(0, 200), column: 'hostname', default: '', description: 'Host name as reported by the server.' },
    ssl: { type: kinds.boolean(), column: 'ssl', default: false, description: 'Connect with TLS.' },
    ssh: { type: kinds.boolean(), column: 'ssh', default: false, description: 'Reachable over SSH.' },
    is_proxy: { type: kinds.boolean(), column: 'is_proxy', default: false, description: 'Is a proxy (ProxySQL, MaxScale …).' },
    is_vip: { type: kinds.boolean(), column: 'is_vip', default: false, description: 'Is a virtual IP.' },
    is_monitored: { type: kinds.boolean(), column: 'is_monitored', default: true, description: 'Whether the server is monitored.' },
    is_deleted: { type: kinds.zeroOrOne(), column: 'is_deleted', readOnly: true, default: 0, description: '1 once the server is deleted.' },
  },
  unique: [{ fields: ['ip', 'port'], amongLive: true }],
  deletion: { mode: 'soft', flagField: 'is_deleted', liveColumn: 'live' },
  example: { ip: '192.0.2.20', port: 3306, hostname: 'db-01', ssl: false, ssh: true, is_proxy: false, is_vip: false, is_monitored: true },
};

const sshKeys: ResourceDefinition = {
  name: 'ssh-keys',
  schemaName: 'SshKey',
  table: 'ssh_keys',
  description: 'SSH key pairs used to reach storage areas. The private key is write-only and stored encrypted.',
  fields: {
    type: { type: kinds.oneOf(['ED25519', 'RSA']), column: 'type', required: true, description: 'Key algorithm; must match pub.' },
    pub: { type: kinds.sshPublicKey(16384), column: 'pub', required: true, description: 'One OpenSSH public key line.' },
    fingerprint: {
      type: kinds.sshFingerprint(),
      column: 'fingerprint',
      derived: true,
      description: 'SHA256 fingerprint of pub, as `ssh-keygen -l` prints it; derived, and checked if sent.',
    },
    'privée': {
      type: kinds.privateKeyMaterial(32768),
      column: 'private_key',
      required: true,
      writeOnly: true,
      description: 'Unencrypted private key (OpenSSH or PEM) matching pub. Write-only; a PUT may omit it to keep the stored one.',
    },
  },
  unique: [],
  deletion: { mode: 'hard' },
  rule: sshKeyRule,
  example: { type: 'ED25519', pub: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPlaceholderPublicKeyOnlyForTheDocumentation0 backup@example' },
};

export const RESOURCES: readonly ResourceDefinition[] = [tags, clients, environments, aliases, storageAreas, servers, sshKeys];

const byName = new Map(RESOURCES.map((resource) => [resource.name, resource]));

export function findResource(name: string): ResourceDefinition | undefined {
  return byName.get(name);
}

/** Entries that point at `target`, as (resource, field) pairs, for delete rules. */
export function referencesTo(target: ResourceDefinition): { resource: ResourceDefinition; field: string }[] {
  return RESOURCES.flatMap((resource) =>
    Object.entries(resource.fields)
      .filter(([, field]) => field.references?.resource === target.name)
      .map(([field]) => ({ resource, field })),
  );
}
