// The tables as the application sees them. Migrations do not import this file: they are
// frozen in time and describe the schema in their own words.
import type { Generated } from 'kysely';

interface Timestamps {
  /** ISO 8601 UTC with milliseconds, written by the service. */
  created_at: string;
  updated_at: string;
}

/** Booleans are stored as 0/1 integers: the one spelling every backend shares. */
type Flag = number;

export interface TagsTable extends Timestamps {
  id: Generated<number>;
  name: string;
  color: string;
  background: string;
}

export interface ClientsTable extends Timestamps {
  id: Generated<number>;
  libelle: string;
  logo: string;
  is_monitored: Flag;
}

export interface EnvironmentsTable extends Timestamps {
  id: Generated<number>;
  libelle: string;
  key: string;
  class: string;
  letter: string;
}

export interface AliasesTable extends Timestamps {
  id: Generated<number>;
  id_mysql_server: number;
  dns: string;
  port: number;
}

export interface StorageAreasTable extends Timestamps {
  id: Generated<number>;
  ip: string;
  port: number;
  path: string;
  libelle: string;
  ssh_key: number;
  geolocalisation: string | null;
}

export interface ServersTable extends Timestamps {
  id: Generated<number>;
  ip: string;
  port: number;
  hostname: string;
  ssl: Flag;
  ssh: Flag;
  is_proxy: Flag;
  is_vip: Flag;
  is_monitored: Flag;
  is_deleted: Flag;
  /** 1 while the server is not deleted, NULL after: the unique (ip, port, live) index then
   * holds among live servers only, on every backend, without partial indexes. */
  live: number | null;
}

export interface SshKeysTable extends Timestamps {
  id: Generated<number>;
  type: string;
  pub: string;
  fingerprint: string;
  /** The private key, sealed by the secret box (AES-256-GCM). */
  private_key: string;
}

/** Entries per table, kept up to date by every insert and delete (list totals). */
export interface ResourceCountsTable {
  table_name: string;
  total: number;
  /** Not soft-deleted; equal to total for tables without soft delete. */
  live: number;
}

export interface Database {
  tags: TagsTable;
  clients: ClientsTable;
  environments: EnvironmentsTable;
  aliases: AliasesTable;
  storage_areas: StorageAreasTable;
  servers: ServersTable;
  ssh_keys: SshKeysTable;
  resource_counts: ResourceCountsTable;
}

/** Tables that hold the entries of a resource. */
export type TableName = Exclude<keyof Database, 'resource_counts'>;
