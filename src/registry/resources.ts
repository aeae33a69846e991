// The resources of the contract (sections 3 and 4), and nothing else. Adding a resource is
// one entry here plus a migration that creates its table (docs/architecture.md, Adding a resource).
import * as types from './field-types.js';
import type { ResourceDefinition } from './resource-definition.js';
import { sshKeyRule } from './ssh-key-rule.js';

/** Environments 1-6 and client 99 are created by the first migration and belong to the platform. */
const BUILT_IN_ENVIRONMENTS = 6;
const SYSTEM_CLIENT = 99;

const tags: ResourceDefinition = {
  name: 'tags',
  schemaName: 'Tag',
  table: 'tags',
  description: { en: 'Labels attached to servers in the dashboards.', fr: 'Étiquettes attachées aux serveurs dans les tableaux de bord.' },
  fields: {
    name: { type: types.text(1, 50), column: 'name', required: true, description: { en: 'Label shown on the tag.', fr: 'Texte affiché sur l’étiquette.' } },
    color: { type: types.hexColor(), column: 'color', default: '#ffffff', description: { en: 'Text colour, #rrggbb.', fr: 'Couleur du texte, #rrggbb.' } },
    background: { type: types.hexColor(), column: 'background', default: '#337ab7', description: { en: 'Background colour, #rrggbb.', fr: 'Couleur de fond, #rrggbb.' } },
  },
  unique: [{ fields: ['name'] }],
  naturalKey: ['name'],
  deletion: { mode: 'hard' },
  example: { name: 'galera', color: '#ffffff', background: '#337ab7' },
};

const clients: ResourceDefinition = {
  name: 'clients',
  schemaName: 'Client',
  table: 'clients',
  description: { en: 'Customers or teams that own servers. Client 99 ("system") is reserved by the platform.', fr: 'Clients ou équipes à qui appartiennent les serveurs. Le client 99 (« system ») est réservé à la plateforme.' },
  fields: {
    libelle: { type: types.text(1, 100), column: 'libelle', required: true, description: { en: 'Name of the client.', fr: 'Nom du client.' } },
    logo: { type: types.text(0, 250), column: 'logo', default: '', description: { en: 'Logo file name or URL.', fr: 'Nom de fichier ou URL du logo.' } },
    is_monitored: { type: types.boolean(), column: 'is_monitored', default: true, description: { en: 'Whether the client’s servers are monitored.', fr: 'Si les serveurs du client sont supervisés.' } },
  },
  unique: [{ fields: ['libelle'] }],
  naturalKey: ['libelle'],
  deletion: { mode: 'hard', guarded: (id) => id === SYSTEM_CLIENT },
  example: { libelle: 'ACME', logo: 'acme.png', is_monitored: true },
};

const environments: ResourceDefinition = {
  name: 'environments',
  schemaName: 'Environment',
  table: 'environments',
  description: { en: 'Stages of the fleet (production, test …). Environments 1-6 are built in.', fr: 'Étapes du parc (production, test …). Les environnements 1 à 6 font partie de la plateforme.' },
  fields: {
    libelle: { type: types.text(1, 20), column: 'libelle', required: true, description: { en: 'Name of the environment.', fr: 'Nom de l’environnement.' } },
    key: { type: types.slug(1, 13), column: 'key', required: true, description: { en: 'Short key used in scripts.', fr: 'Clé courte utilisée dans les scripts.' } },
    class: {
      type: types.oneOf(['danger', 'warning', 'default', 'info', 'success', 'primary']),
      column: 'class',
      required: true,
      description: { en: 'Bootstrap colour class of the badge.', fr: 'Classe de couleur Bootstrap du badge.' },
    },
    letter: { type: types.character(), column: 'letter', required: true, description: { en: 'One-letter badge.', fr: 'Badge d’une lettre.' } },
  },
  unique: [{ fields: ['libelle'] }, { fields: ['key'] }],
  naturalKey: ['key'],
  deletion: { mode: 'hard', guarded: (id) => id <= BUILT_IN_ENVIRONMENTS },
  example: { libelle: 'Staging', key: 'staging', class: 'warning', letter: 'S' },
};

const aliases: ResourceDefinition = {
  name: 'aliases',
  schemaName: 'Alias',
  table: 'aliases',
  description: { en: 'DNS names under which a monitored server is also reached.', fr: 'Noms DNS sous lesquels un serveur supervisé est aussi joignable.' },
  fields: {
    id_mysql_server: {
      type: types.reference('servers', { mustBeLive: true }),
      column: 'id_mysql_server',
      required: true,
      description: { en: 'Id of the server (not deleted) the alias points to.', fr: 'Id du serveur (non supprimé) que l’alias désigne.' },
    },
    dns: { type: types.dnsName(200), column: 'dns', required: true, description: { en: 'DNS name (stored in lower case).', fr: 'Nom DNS (enregistré en minuscules).' } },
    port: { type: types.port(), column: 'port', required: true, description: { en: 'TCP port.', fr: 'Port TCP.' } },
  },
  unique: [{ fields: ['dns', 'port'] }],
  naturalKey: ['dns', 'port'],
  deletion: { mode: 'hard' },
  example: { id_mysql_server: 1, dns: 'db-primary.example.com', port: 3306 },
};

const storageAreas: ResourceDefinition = {
  name: 'storage-areas',
  schemaName: 'StorageArea',
  table: 'storage_areas',
  description: { en: 'Places, reached over SSH, where backups are stored.', fr: 'Emplacements, joints par SSH, où les sauvegardes sont stockées.' },
  fields: {
    ip: { type: types.ipAddress(), column: 'ip', required: true, description: { en: 'IPv4 or IPv6 address of the storage host.', fr: 'Adresse IPv4 ou IPv6 de l’hôte de stockage.' } },
    port: { type: types.port(), column: 'port', default: 22, description: { en: 'SSH port.', fr: 'Port SSH.' } },
    path: { type: types.absolutePath(1024), column: 'path', required: true, description: { en: 'Absolute directory for the backups.', fr: 'Répertoire absolu des sauvegardes.' } },
    libelle: { type: types.text(1, 64), column: 'libelle', required: true, description: { en: 'Name of the storage area.', fr: 'Nom de l’espace de stockage.' } },
    ssh_key: {
      type: types.reference('ssh-keys'),
      column: 'ssh_key',
      required: true,
      description: { en: 'Id of the SSH key used to log in.', fr: 'Id de la clé SSH utilisée pour se connecter.' },
    },
    'géolocalisation': {
      type: types.textOrNull(0, 250),
      column: 'geolocalisation',
      default: null,
      description: { en: 'Where the storage is, e.g. "Paris, FR".', fr: 'Où se trouve le stockage, par exemple « Paris, FR ».' },
    },
  },
  unique: [],
  naturalKey: ['ip', 'port', 'path'],
  deletion: { mode: 'hard' },
  example: { ip: '192.0.2.10', port: 22, path: '/srv/backups', libelle: 'Backups Paris', ssh_key: 1, 'géolocalisation': 'Paris, FR' },
};

const servers: ResourceDefinition = {
  name: 'servers',
  schemaName: 'Server',
  table: 'servers',
  searchIndex: 'servers_search',
  description: { en: 'Monitored MySQL/MariaDB servers. DELETE marks a server deleted (is_deleted = 1) and keeps it.', fr: 'Serveurs MySQL/MariaDB supervisés. DELETE marque un serveur comme supprimé (is_deleted = 1) et le conserve.' },
  fields: {
    ip: { type: types.host(255), column: 'ip', required: true, description: { en: 'IPv4 or IPv6 address, or DNS name.', fr: 'Adresse IPv4 ou IPv6, ou nom DNS.' } },
    port: { type: types.port(), column: 'port', default: 3306, description: { en: 'MySQL port.', fr: 'Port MySQL.' } },
    hostname: { type: types.text(0, 200), column: 'hostname', default: '', description: { en: 'Host name as reported by the server.', fr: 'Nom d’hôte tel que le serveur le donne.' } },
    ssl: { type: types.boolean(), column: 'ssl', default: false, description: { en: 'Connect with TLS.', fr: 'Se connecter en TLS.' } },
    ssh: { type: types.boolean(), column: 'ssh', default: false, description: { en: 'Reachable over SSH.', fr: 'Joignable par SSH.' } },
    is_proxy: { type: types.boolean(), column: 'is_proxy', default: false, description: { en: 'Is a proxy (ProxySQL, MaxScale …).', fr: 'Est un proxy (ProxySQL, MaxScale …).' } },
    is_vip: { type: types.boolean(), column: 'is_vip', default: false, description: { en: 'Is a virtual IP.', fr: 'Est une IP virtuelle.' } },
    is_monitored: { type: types.boolean(), column: 'is_monitored', default: true, description: { en: 'Whether the server is monitored.', fr: 'Si le serveur est supervisé.' } },
    is_deleted: { type: types.zeroOrOne(), column: 'is_deleted', readOnly: true, default: 0, description: { en: '1 once the server is deleted.', fr: '1 une fois le serveur supprimé.' } },
    id_client: {
      type: types.reference('clients', { nullable: true }),
      column: 'id_client',
      default: null,
      description: { en: 'Id of the client that owns the server, or null.', fr: 'Id du client à qui appartient le serveur, ou null.' },
    },
    id_environment: {
      type: types.reference('environments', { nullable: true }),
      column: 'id_environment',
      default: null,
      description: { en: 'Id of the environment of the server, or null.', fr: 'Id de l’environnement du serveur, ou null.' },
    },
    tags: {
      type: types.referenceSet('tags', 100),
      column: 'tags',
      link: { table: 'server_tags', ownerColumn: 'id_server', targetColumn: 'id_tag', filter: 'tag', addField: 'add_tags', removeField: 'remove_tags', ownerDeletedColumn: 'owner_deleted' },
      default: [],
      description: {
        en: 'Ids of the tags the server carries, ascending. PUT and PATCH with tags replace the set; PATCH may send add_tags and remove_tags instead.',
        fr: 'Ids des étiquettes du serveur, par ordre croissant. PUT et PATCH avec tags remplacent l’ensemble ; PATCH peut envoyer add_tags et remove_tags à la place.',
      },
    },
  },
  unique: [{ fields: ['ip', 'port'], amongLive: true }],
  naturalKey: ['ip', 'port'],
  deletion: { mode: 'soft', flagField: 'is_deleted', liveColumn: 'live' },
  example: { ip: '192.0.2.20', port: 3306, hostname: 'db-01', ssl: false, ssh: true, is_proxy: false, is_vip: false, is_monitored: true, id_client: 99, id_environment: 1, tags: [] },
};

const sshKeys: ResourceDefinition = {
  name: 'ssh-keys',
  schemaName: 'SshKey',
  table: 'ssh_keys',
  description: { en: 'SSH key pairs used to reach storage areas. The private key is write-only and stored encrypted.', fr: 'Paires de clés SSH utilisées pour joindre les espaces de stockage. La clé privée est en écriture seule et stockée chiffrée.' },
  fields: {
    type: { type: types.oneOf(['ED25519', 'RSA']), column: 'type', required: true, description: { en: 'Key algorithm; must match pub.', fr: 'Algorithme de la clé ; doit correspondre à pub.' } },
    pub: { type: types.sshPublicKey(16384), column: 'pub', required: true, description: { en: 'One OpenSSH public key line.', fr: 'Une ligne de clé publique OpenSSH.' } },
    fingerprint: {
      type: types.sshFingerprint(),
      column: 'fingerprint',
      description: { en: 'SHA256 fingerprint of pub, as `ssh-keygen -l` prints it; derived, and checked if sent.', fr: 'Empreinte SHA256 de pub, telle que `ssh-keygen -l` l’affiche ; dérivée, et vérifiée si elle est envoyée.' },
    },
    'privée': {
      type: types.privateKeyMaterial(32768),
      column: 'private_key',
      required: true,
      writeOnly: true,
      description: { en: 'Unencrypted private key (OpenSSH or PEM) matching pub. Write-only; a PUT may omit it to keep the stored one.', fr: 'Clé privée non chiffrée (OpenSSH ou PEM) correspondant à pub. En écriture seule ; un PUT peut l’omettre pour garder celle qui est enregistrée.' },
    },
  },
  unique: [],
  naturalKey: ['fingerprint'],
  deletion: { mode: 'hard' },
  rule: sshKeyRule,
  example: {
    type: 'ED25519',
    pub: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPlaceholderPublicKeyOnlyForTheDocumentation0 backup@example',
    fingerprint: 'SHA256:d/ok7TzcWuHfgp+thwMPkYD6G2c4xtsGsgr2iBdHCmQ',
  },
};

/** In the order of the document and of `GET /` listings. */
export const RESOURCES: readonly ResourceDefinition[] = [tags, clients, environments, aliases, storageAreas, servers, sshKeys];
