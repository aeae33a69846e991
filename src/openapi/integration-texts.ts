// The sentences of the OpenAPI document about the monitoring integrations (contract section
// 17), in the two languages that have messages.
import type { MessageLanguage } from '../messages/languages.js';

const en = {
  tag:
    'What the rest of a monitoring stack reads: Prometheus HTTP service discovery and the Ansible dynamic inventory, both made of the ' +
    'live servers whose `is_monitored` is true, narrowed by the server list’s filters `id_client`, `id_environment`, `tag` and `q`. ' +
    'Both are streamed as the servers are read, and read with a `read` token once tokens exist. No secret is ever a label or a host ' +
    'variable. docs/integrations.md shows a Prometheus scrape configuration and the Ansible usage.',
  prometheus: 'Prometheus HTTP service discovery',
  prometheusDescription:
    'The format of Prometheus’s `http_sd_configs`: one target group per server, `{"targets":["<ip>:<port>"],"labels":{…}}` (an IPv6 ' +
    'address in brackets), in id order. Labels are `__meta_pmacontrol_` + `server_id`, `hostname`, `port`, `client` (its `libelle`), ' +
    '`client_id`, `environment` (its `key`), `environment_id`, `tags` (the tag names, with a comma before and after each, as Consul ' +
    'does: `,galera,backup,`), `ssl`, `is_proxy`, `is_vip` (`true` or `false`), and one `__meta_pmacontrol_tag_<name>` = `true` per ' +
    'tag. Every value is a string, empty when there is none. In a label name, every character outside `A-Za-z0-9_` is turned into `_`. ' +
    'Prometheus keeps `__meta_` labels for relabelling only: relabel them into target labels to keep them.',
  prometheusListed: 'The target groups, one per live monitored server.',
  inventory: 'Ansible dynamic inventory',
  inventoryDescription:
    'The JSON of an Ansible inventory script’s `--list`: `all` (every host), the groups `client_<libelle>`, `env_<key>` and ' +
    '`tag_<name>` (every character outside `A-Za-z0-9_` turned into `_`; names that become the same share the group; an empty group ' +
    'is left out), and `_meta.hostvars`. A host is named by its `hostname` when no other live monitored server has it nor goes by it as its `<ip>_<port>`, else `<ip>_<port>`. ' +
    'Its variables: `ansible_host` (the ip), `mysql_port`, `pmacontrol_id`, `pmacontrol_client` (the client’s `libelle`), ' +
    '`pmacontrol_environment` (the environment’s `key`), `pmacontrol_tags` (the tag names); client and environment are null when ' +
    'there is none. contrib/ansible-inventory.mjs is the script Ansible’s `-i` takes.',
  inventoryListed: 'The inventory.',
  idClient: 'Only the servers of this client.',
  idEnvironment: 'Only the servers of this environment.',
  tagFilter: 'Only the servers that carry this tag; repeated, the servers that carry every tag named.',
  q: 'Case-insensitive substring of the ip or the hostname.',
  etag: 'Version of this answer (the same query): it changes whenever a server, client, environment or tag changes, for If-None-Match.',
  ifNoneMatch: 'The ETag of this answer as last read. While nothing it shows may have changed, the answer is 304 with no body.',
  notModified: 'Nothing the answer shows has changed since the ETag sent in If-None-Match; no body.',
  target: 'One server: its address, and its labels.',
  labels: 'The `__meta_pmacontrol_…` labels: every value a string.',
  hostvars: 'A host’s variables.',
  hosts: 'The names of the group’s hosts.',
  meta: 'Every host’s variables, so that Ansible never calls the script with `--host`.',
};

export type IntegrationTexts = typeof en;

const fr: IntegrationTexts = {
  tag:
    'Ce que lit le reste d’une chaîne de supervision : la découverte de services HTTP de Prometheus et l’inventaire dynamique ' +
    'd’Ansible, faits des serveurs vivants dont `is_monitored` est vrai, restreints par les filtres de la liste des serveurs ' +
    '`id_client`, `id_environment`, `tag` et `q`. Les deux sont écrits au fil de la lecture des serveurs, et lus avec un jeton `read` ' +
    'dès qu’il existe des jetons. Aucun secret n’est jamais une étiquette ni une variable d’hôte. docs/integrations.md montre une ' +
    'configuration de collecte Prometheus et l’usage avec Ansible.',
  prometheus: 'Découverte de services HTTP de Prometheus',
  prometheusDescription:
    'Le format des `http_sd_configs` de Prometheus : un groupe de cibles par serveur, `{"targets":["<ip>:<port>"],"labels":{…}}` ' +
    '(une adresse IPv6 entre crochets), par ordre d’id. Les étiquettes sont `__meta_pmacontrol_` + `server_id`, `hostname`, `port`, ' +
    '`client` (son `libelle`), `client_id`, `environment` (sa `key`), `environment_id`, `tags` (les noms des étiquettes, avec une ' +
    'virgule avant et après chacun, comme Consul : `,galera,backup,`), `ssl`, `is_proxy`, `is_vip` (`true` ou `false`), et une ' +
    '`__meta_pmacontrol_tag_<nom>` = `true` par étiquette. Chaque valeur est une chaîne, vide quand il n’y en a pas. Dans un nom ' +
    'd’étiquette, tout caractère hors de `A-Za-z0-9_` devient `_`. Prometheus ne garde les étiquettes `__meta_` que pour le ' +
    'réétiquetage : réétiquetez-les en étiquettes de cible pour les garder.',
  prometheusListed: 'Les groupes de cibles, un par serveur vivant supervisé.',
  inventory: 'Inventaire dynamique Ansible',
  inventoryDescription:
    'Le JSON du `--list` d’un script d’inventaire Ansible : `all` (chaque hôte), les groupes `client_<libelle>`, `env_<key>` et ' +
    '`tag_<name>` (tout caractère hors de `A-Za-z0-9_` devenu `_` ; des noms qui deviennent identiques partagent le groupe ; un groupe ' +
    'vide est omis), et `_meta.hostvars`. Un hôte est nommé par son `hostname` quand aucun autre serveur vivant supervisé ne l’a ' +
    'ni ne s’appelle ainsi par son `<ip>_<port>`, sinon `<ip>_<port>`. Ses variables : `ansible_host` (l’ip), `mysql_port`, `pmacontrol_id`, `pmacontrol_client` (le `libelle` du ' +
    'client), `pmacontrol_environment` (la `key` de l’environnement), `pmacontrol_tags` (les noms des étiquettes) ; client et ' +
    'environnement sont null quand il n’y en a pas. contrib/ansible-inventory.mjs est le script que prend le `-i` d’Ansible.',
  inventoryListed: 'L’inventaire.',
  idClient: 'Seulement les serveurs de ce client.',
  idEnvironment: 'Seulement les serveurs de cet environnement.',
  tagFilter: 'Seulement les serveurs qui portent cette étiquette ; répété, les serveurs qui portent toutes les étiquettes nommées.',
  q: 'Sous-chaîne, sans tenir compte de la casse, de l’ip ou du hostname.',
  etag: 'Version de cette réponse (la même requête) : elle change dès qu’un serveur, un client, un environnement ou une étiquette change, pour If-None-Match.',
  ifNoneMatch: 'L’ETag de cette réponse lors de la dernière lecture. Tant que rien de ce qu’elle montre n’a pu changer, la réponse est 304, sans corps.',
  notModified: 'Rien de ce que montre la réponse n’a changé depuis l’ETag envoyé dans If-None-Match ; pas de corps.',
  target: 'Un serveur : son adresse et ses étiquettes.',
  labels: 'Les étiquettes `__meta_pmacontrol_…` : chaque valeur est une chaîne.',
  hostvars: 'Les variables d’un hôte.',
  hosts: 'Les noms des hôtes du groupe.',
  meta: 'Les variables de chaque hôte, pour qu’Ansible n’appelle jamais le script avec `--host`.',
};

const TEXTS: Readonly<Record<MessageLanguage, IntegrationTexts>> = { en, fr };

export function integrationTexts(language: MessageLanguage): IntegrationTexts {
  return TEXTS[language];
}
