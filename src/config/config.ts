// Everything the service reads from its environment, parsed once at start-up so that a
// wrong setting stops the process with a clear message instead of failing on first use.
import proxyAddr from '@fastify/proxy-addr';
import { canonicalRange } from '../auth/address-ranges.js';
import { loadApiTokens, type EnvironmentToken } from '../auth/api-tokens.js';
import { ConfigError } from '../errors/config-error.js';
import { dialectOf, type ConnectOptions } from '../db/connect.js';

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  /** Raw SECRET_KEY value (hex or base64 of 32 bytes); when absent a key file is used. */
  secretKey: string | undefined;
  secretKeyFile: string;
  bodyLimit: number;
  /** The body limit of POST /{lang}/api/apply: a whole configuration document. */
  applyBodyLimit: number;
  logLevel: string;
  /** Log bytes a reader that falls behind may leave waiting in memory; past it lines are
   * dropped and counted (src/logging/turn-batched-stdout.ts). */
  logBufferBytes: number;
  /** SQLite `synchronous` pragma: FULL keeps acknowledged writes across power loss too. */
  sqliteSynchronous: 'FULL' | 'NORMAL';
  /** PostgreSQL and MariaDB: connections per instance, and how long to wait for them. */
  databasePoolSize: number;
  databaseConnectTimeoutMs: number;
  databaseQueryTimeoutMs: number;
  /** How long SIGTERM/SIGINT may wait for in-flight requests before the process gives up. */
  shutdownGraceMs: number;
  /** Bearer tokens of API_TOKENS/API_TOKENS_FILE; with no managed token either, access is
   * anonymous, on a loopback HOST only. */
  apiTokens: EnvironmentToken[];
  /** Raw TOKEN_KEY (the key of the managed tokens' digests); when absent a key file is used. */
  tokenKey: string | undefined;
  tokenKeyFile: string;
  /** The proxies whose X-Forwarded-For gives the client address (Fastify's trustProxy). */
  trustProxy: false | string[];
  /** Requests a minute per token (or per address when anonymous); 0 turns the limit off. */
  rateLimitPerMinute: number;
  /** Slow or stuck clients: time to send the headers, the whole request, and idle keep-alive. */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
  /** Processes serving the port (node:cluster); 1 serves from this process alone. */
  workers: number;
  /** Entries GET by id keeps in memory (SQLite only); 0 turns the cache off. */
  entryCacheSize: number;
  /** Characters of list answers kept in memory by entity tag (every backend); 0 turns it off. */
  listCacheSize: number;
  /** Serve reads only, on a database opened read-only: writes are 503 READ_ONLY. */
  readOnly: boolean;
  /** Filtered lists count their matches exactly up to this many, then give a lower bound. */
  listExactTotalMax: number;
  /** Change records older than this many days are pruned; 0 keeps them all. */
  changelogRetentionDays: number;
  /** How often pruning runs (it also runs at start). */
  changelogPruneIntervalMs: number;
  /** A comment on every open change stream this often, so that proxies keep it open. */
  changesKeepAliveMs: number;
  /** How often the change feed looks for changes committed through other instances. */
  changesPollMs: number;
  // Change stream limits (finding "Hardening": streams outliving tokens, taking every
  // connection, buffering without bound).
  /** Change streams one token may hold open on this process; 0: no limit per token. */
  changeStreamsPerToken: number;
  /** Change streams one client address may hold open on this process; 0: no limit per address. */
  changeStreamsPerAddress: number;
  /** Bytes all the change streams of this process may hold unsent together; past it the
   * streams furthest behind are cut (they resume from the log). */
  changeStreamBufferBytes: number;
  // Load and disk safeguards (docs/operations.md: "Health under load", "Disk watermarks").
  /** Heavy lists and bulk writes running at once (pipeline/heavy-work-gate.ts). */
  heavyQueryConcurrency: number;
  /** Heavy requests waiting for a turn at most, and how long each waits, before a 503. */
  heavyQueryQueue: number;
  heavyQueryWaitMs: number;
  /** SQLite: free space on the database's disk below which writes are refused (507) and
   * /readyz is 503; undefined turns the watch off. */
  diskFloodStage: DiskThreshold | undefined;
  /** SQLite: free space below which a warning is logged and /readyz says `low`. */
  diskLowWatermark: DiskThreshold | undefined;
  // Webhooks (contract section 16; docs/webhooks.md).
  /** How long one attempt may take, answer included. */
  webhookTimeoutMs: number;
  /** A webhook whose deliveries all failed this long is disabled. */
  webhookDisableAfterHours: number;
  /** Finished deliveries are kept this many days (fractions allowed). */
  webhookDeliveryRetentionDays: number;
  /** Networks a receiver may resolve into although they are loopback, private, link-local… */
  webhookAllowedNetworks: string[];
  /** Attempts this process makes at once, all webhooks together. */
  webhookConcurrency: number;
  /** How often deliveries are looked for besides the changes committed through this process. */
  webhookPollMs: number;
  /** The waits between attempts; the last repeats until a day has passed. */
  webhookRetryScheduleMs: number[];
}

/** Free space, in bytes or as a percentage of the disk's size. */
export type DiskThreshold = { readonly bytes: number } | { readonly percent: number };

export { ConfigError };

/** Entries GET by id keeps in memory when ENTRY_CACHE_SIZE is not set (also read by `npm run bench`). */
export const DEFAULT_ENTRY_CACHE_SIZE = 10_000;

const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

function integerSetting(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function booleanSetting(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = raw.toLowerCase();
  if (value !== 'true' && value !== 'false') throw new ConfigError(`${name} must be true or false, got "${raw}"`);
  return value === 'true';
}

/** TRUST_PROXY: off by default; else the proxies, as addresses, CIDR ranges and the names
 * loopback, linklocal, uniquelocal (read by proxy-addr, as Fastify's trustProxy). Never every
 * hop (`true`): any client could then choose its own address. */
function trustProxySetting(raw: string | undefined): false | string[] {
  const text = raw?.trim() ?? '';
  if (text === '' || text === 'false') return false;
  const entries = text.split(',').map((entry) => entry.trim());
  try {
    proxyAddr.compile(entries);
  } catch {
    throw new ConfigError('TRUST_PROXY must be a comma list of the proxies: addresses, CIDR ranges, loopback, linklocal or uniquelocal');
  }
  return entries;
}

function networksSetting(env: NodeJS.ProcessEnv, name: string): string[] {
  const text = env[name]?.trim() ?? '';
  if (text === '') return [];
  return text.split(',').map((entry) => {
    const range = canonicalRange(entry.trim());
    if (range === undefined) throw new ConfigError(`${name} must be a comma list of IPv4 or IPv6 networks (CIDR), got "${entry.trim()}"`);
    return range;
  });
}

/** About 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, then hourly (contract section 16). */
const RETRY_SCHEDULE_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000];

function scheduleSetting(env: NodeJS.ProcessEnv, name: string): number[] {
  const text = env[name]?.trim() ?? '';
  if (text === '') return RETRY_SCHEDULE_MS;
  const waits = text.split(',').map((entry) => entry.trim());
  if (!waits.every((wait) => /^\d{1,9}$/.test(wait) && Number(wait) > 0)) throw new ConfigError(`${name} must be a comma list of waits in milliseconds, got "${text}"`);
  return waits.map(Number);
}

/** A positive number of `unit`, fractions allowed (the tests make a day last seconds). */
function durationSetting(env: NodeJS.ProcessEnv, name: string, fallback: number, unit: 'hours' | 'days'): number {
  const raw = env[name]?.trim() ?? '';
  if (raw === '') return fallback;
  if (!/^\d+(\.\d+)?$/.test(raw) || Number(raw) <= 0 || Number(raw) > 100_000) throw new ConfigError(`${name} must be a number of ${unit} above 0, got "${raw}"`);
  return Number(raw);
}

const BYTE_UNITS: Record<string, number> = { '': 1, b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3, tb: 1024 ** 4 };

/** `5%`, `500mb`, `1gb`, `1048576`; `0` turns the threshold off. */
function diskThresholdSetting(env: NodeJS.ProcessEnv, name: string, fallback: string): DiskThreshold | undefined {
  const raw = (env[name] || fallback).trim().toLowerCase();
  const percent = /^(\d+(?:\.\d+)?)%$/.exec(raw);
  if (percent !== null) {
    const value = Number(percent[1]);
    if (value >= 100) throw new ConfigError(`${name} must be a percentage below 100%, got "${env[name]}"`);
    return value === 0 ? undefined : { percent: value };
  }
  const size = /^(\d+)(b|kb|mb|gb|tb)?$/.exec(raw);
  if (size === null) throw new ConfigError(`${name} must be free space in bytes (e.g. 500mb, 1gb) or a percentage of the disk (e.g. 5%), got "${env[name]}"`);
  const bytes = Number(size[1]) * BYTE_UNITS[size[2] ?? '']!;
  return bytes === 0 ? undefined : { bytes };
}

/** SQLite runs its queries on the main thread, one at a time whatever the bound: one. Else a
 * few, fewer than the pool's connections, so that light requests and /readyz always find one. */
function defaultHeavyConcurrency(databaseUrl: string, poolSize: number): number {
  return databaseUrl.toLowerCase().startsWith('sqlite:') ? 1 : Math.max(1, Math.min(4, poolSize - 1));
}

export function connectOptions(config: Config): ConnectOptions {
  return {
    sqliteSynchronous: config.sqliteSynchronous,
    readOnly: config.readOnly,
    poolSize: config.databasePoolSize,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
    queryTimeoutMs: config.databaseQueryTimeoutMs,
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const logLevel = env.LOG_LEVEL ?? 'info';
  if (!LOG_LEVELS.has(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${[...LOG_LEVELS].join(', ')}, got "${logLevel}"`);
  }
  const synchronous = (env.SQLITE_SYNCHRONOUS || 'FULL').toUpperCase();
  if (synchronous !== 'FULL' && synchronous !== 'NORMAL') {
    throw new ConfigError(`SQLITE_SYNCHRONOUS must be FULL or NORMAL, got "${env.SQLITE_SYNCHRONOUS}"`);
  }
  const workers = integerSetting(env, 'WORKERS', 1, 1, 64);
  const databaseUrl = env.DATABASE_URL || 'sqlite:./data/config.db';
  // Each worker would get a database of its own, invisible to the others.
  if (workers > 1 && dialectOf(databaseUrl).privateToProcess(databaseUrl)) {
    throw new ConfigError('WORKERS above 1 needs a database the workers share; sqlite::memory: is private to one process');
  }
  const databasePoolSize = integerSetting(env, 'DATABASE_POOL_SIZE', 10, 1, 1000);
  const headersTimeoutMs = integerSetting(env, 'HEADERS_TIMEOUT_MS', 10_000, 100, 600_000);
  const requestTimeoutMs = integerSetting(env, 'REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000);
  if (headersTimeoutMs > requestTimeoutMs) throw new ConfigError('HEADERS_TIMEOUT_MS must not exceed REQUEST_TIMEOUT_MS');
  return {
    port: integerSetting(env, 'PORT', 8080, 0, 65535),
    host: env.HOST || '127.0.0.1',
    databaseUrl,
    secretKey: env.SECRET_KEY || undefined,
    secretKeyFile: env.SECRET_KEY_FILE || './data/secret.key',
    bodyLimit: integerSetting(env, 'BODY_LIMIT', 1024 * 1024, 1024, 64 * 1024 * 1024),
    applyBodyLimit: integerSetting(env, 'APPLY_BODY_LIMIT', 64 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    logLevel,
    logBufferBytes: integerSetting(env, 'LOG_BUFFER_BYTES', 4 * 1024 * 1024, 0, 1024 * 1024 * 1024),
    sqliteSynchronous: synchronous,
    databasePoolSize,
    databaseConnectTimeoutMs: integerSetting(env, 'DATABASE_CONNECT_TIMEOUT_MS', 3000, 100, 600_000),
    databaseQueryTimeoutMs: integerSetting(env, 'DATABASE_QUERY_TIMEOUT_MS', 10_000, 100, 3_600_000),
    shutdownGraceMs: integerSetting(env, 'SHUTDOWN_GRACE_MS', 10_000, 0, 3_600_000),
    apiTokens: loadApiTokens(env),
    tokenKey: env.TOKEN_KEY || undefined,
    tokenKeyFile: env.TOKEN_KEY_FILE || './data/token.key',
    trustProxy: trustProxySetting(env.TRUST_PROXY),
    rateLimitPerMinute: integerSetting(env, 'RATE_LIMIT_PER_MINUTE', 0, 0, 10_000_000),
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: integerSetting(env, 'KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, 600_000),
    maxConnections: integerSetting(env, 'MAX_CONNECTIONS', 1024, 1, 1_000_000),
    workers,
    entryCacheSize: integerSetting(env, 'ENTRY_CACHE_SIZE', DEFAULT_ENTRY_CACHE_SIZE, 0, 10_000_000),
    listCacheSize: integerSetting(env, 'LIST_CACHE_SIZE', 8_000_000, 0, 1_000_000_000),
    readOnly: booleanSetting(env, 'READ_ONLY', false),
    listExactTotalMax: integerSetting(env, 'LIST_EXACT_TOTAL_MAX', 1_000, 1, 100_000_000),
    changelogRetentionDays: integerSetting(env, 'CHANGELOG_RETENTION_DAYS', 90, 0, 100_000),
    changelogPruneIntervalMs: integerSetting(env, 'CHANGELOG_PRUNE_INTERVAL_MS', 3_600_000, 100, 86_400_000),
    changesKeepAliveMs: integerSetting(env, 'CHANGES_KEEPALIVE_MS', 15_000, 100, 3_600_000),
    changesPollMs: integerSetting(env, 'CHANGES_POLL_MS', 100, 10, 60_000),
    // Change stream limits.
    changeStreamsPerToken: integerSetting(env, 'CHANGE_STREAMS_PER_TOKEN', 16, 0, 1_000_000),
    changeStreamsPerAddress: integerSetting(env, 'CHANGE_STREAMS_PER_ADDRESS', 32, 0, 1_000_000),
    changeStreamBufferBytes: integerSetting(env, 'CHANGE_STREAM_BUFFER_BYTES', 32 * 1024 * 1024, 64 * 1024, 16 * 1024 * 1024 * 1024),
    // Load and disk safeguards.
    heavyQueryConcurrency: integerSetting(env, 'HEAVY_QUERY_CONCURRENCY', defaultHeavyConcurrency(databaseUrl, databasePoolSize), 1, 1000),
    heavyQueryQueue: integerSetting(env, 'HEAVY_QUERY_QUEUE', 64, 0, 100_000),
    heavyQueryWaitMs: integerSetting(env, 'HEAVY_QUERY_WAIT_MS', 1000, 0, 600_000),
    diskFloodStage: diskThresholdSetting(env, 'DISK_FLOOD_STAGE', '64mb'),
    diskLowWatermark: diskThresholdSetting(env, 'DISK_LOW_WATERMARK', '5%'),
    webhookTimeoutMs: integerSetting(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 600_000),
    webhookDisableAfterHours: durationSetting(env, 'WEBHOOK_DISABLE_AFTER_HOURS', 72, 'hours'),
    webhookDeliveryRetentionDays: durationSetting(env, 'WEBHOOK_DELIVERY_RETENTION_DAYS', 30, 'days'),
    webhookAllowedNetworks: networksSetting(env, 'WEBHOOK_ALLOWED_NETWORKS'),
    // 128: one webhook's quarter (32 at once) keeps up with a burst of eight writers on SQLite
    // (commit-to-receiver p99 37 ms; with 32 in all, a webhook's 8 slots, 265 ms: each held
    // until its result's commit). A dead receiver's retries cost the API no more for it.
    webhookConcurrency: integerSetting(env, 'WEBHOOK_CONCURRENCY', 128, 1, 10_000),
    webhookPollMs: integerSetting(env, 'WEBHOOK_POLL_MS', 1000, 10, 60_000),
    webhookRetryScheduleMs: scheduleSetting(env, 'WEBHOOK_RETRY_SCHEDULE_MS'),
  };
}
