// Execute step: runs a plan through the store. A write runs in one transaction: the entry is
// read under a lock, the preconditions and every check of the plan run, then the write; any
// refusal throws and the transaction changes nothing. A dry run does all of it and rolls back.
import { aboutEntry, ApiError, apiError } from '../errors/api-error.js';
import type { CompiledResource } from '../registry/compiled-resource.js';
import type { Author } from '../store/change-log.js';
import { rolledBackIf } from '../store/dry-run.js';
import { createEntries } from '../store/bulk-create.js';
import { deleteEntry, restoreEntry } from '../store/entry-removal.js';
import type { Entry } from '../store/entry-rows.js';
import type { ResourceStore } from '../store/resource-store.js';
import { secretsChangedBy, type StoreTransaction } from '../store/store-transaction.js';
import { newEntryValues } from '../store/write-step.js';
import { ifNoneMatchHolds, listTag, type ReadAnswer } from '../store/entity-tag.js';
import { isWebhookAction } from './parse-webhook-request.js';
import type { HeavyWorkGate } from './heavy-work-gate.js';
import { executeChangeLogPlan, type ChangeLogResult } from './execute-change-log.js';
import { executeTokenPlan, type TokenContext, type TokenResult } from './execute-tokens.js';
import { executeWebhookPlan, type WebhookContext, type WebhookResult } from './execute-webhooks.js';
import { executeMonitoringPlan, type MonitoringResult } from './execute-monitoring.js';
import { executeExportPlan, type ExportResult } from './execute-export.js';
import { executeApplyPlan, type ApplyResult } from './execute-apply.js';
import { executeChangeStreamPlan, type ChangeStreamResult, type ChangeStreams } from './execute-change-stream.js';
import type { Registry } from '../registry/registry.js';
import type { MonitoringResources } from './monitoring-query.js';
import type { BulkPlan, DeletePlan, ListPlan, Plan, ReadPlan, RestorePlan, WritePlan } from './plan.js';
import type { ReadThroughStore } from './read-through-store.js';

export interface ExecutionContext {
  /** The resources served (the export and the apply read every one). */
  readonly registry: Registry;
  readonly store: ResourceStore;
  /** The store behind the caches: what the requests read and write (read-through-store.ts). */
  readonly cached: ReadThroughStore;
  /** READ_ONLY=true: every write is refused before it reaches the database. */
  readonly readOnly: boolean;
  /** Heavy lists and bulk writes take a turn here; undefined: no bound (unit tests). */
  readonly heavyWork?: HeavyWorkGate;
  /** The token endpoints' index and key. */
  readonly tokens: TokenContext;
  /** The webhooks' store, deliveries, dispatcher and address guard. */
  readonly webhooks: WebhookContext;
  /** The resources the monitoring integrations read (checked at start-up). */
  readonly monitoring: MonitoringResources;
  /** The service that holds the open change streams. */
  readonly changeStreams: ChangeStreams;
}

/** What a plan's execution gave, with the plan: all the respond step needs. */
export type Result =
  /** `body`: the answer's JSON text, made once for every request that finds it in the cache. */
  | { readonly action: 'list'; readonly plan: ListPlan; readonly etag: string; readonly body: string }
  /** If-None-Match holds the list's current tag: the list query was not run. */
  | { readonly action: 'list unchanged'; readonly plan: ListPlan; readonly etag: string }
  | { readonly action: 'read'; readonly plan: ReadPlan; readonly answer: ReadAnswer }
  | { readonly action: 'create' | 'update'; readonly plan: WritePlan; readonly entry: Entry }
  | { readonly action: 'delete'; readonly plan: DeletePlan }
  | { readonly action: 'restore'; readonly plan: RestorePlan; readonly entry: Entry }
  | { readonly action: 'bulk'; readonly plan: BulkPlan; readonly entries: (Entry | undefined)[] }
  | TokenResult
  | ChangeLogResult
  | WebhookResult
  | MonitoringResult
  | ExportResult
  | ApplyResult
  | ChangeStreamResult;

function now(): string {
  return new Date().toISOString();
}

/** A plan's result. The reads the caches answer (an entry, an unchanged list, a kept list) are
 * returned as they are, not in a promise: the requests dashboards poll most then cost no turn of
 * the microtask queue on their way to the connection (the route sends them in the same call). */
export function execute(context: ExecutionContext, plan: Plan): Result | Promise<Result> {
  switch (plan.action) {
    case 'list':
      return executeList(context, plan);
    case 'read': {
      const answer = context.cached.entry(plan.resource, plan.id);
      return answer instanceof Promise ? answer.then((read) => ({ action: 'read', plan, answer: read })) : { action: 'read', plan, answer };
    }
    default:
      return executeOther(context, plan);
  }
}

function executeList(context: ExecutionContext, plan: ListPlan): Result | Promise<Result> {
  // The version is read before the page, so a tag never claims a newer state than its body.
  const version = context.cached.listVersion(plan.resource);
  return typeof version === 'string' ? listResult(context, plan, version) : version.then((read) => listResult(context, plan, read));
}

function listResult(context: ExecutionContext, plan: ListPlan, version: string): Result | Promise<Result> {
  const { cached } = context;
  const etag = listTag(plan.resource, version, plan.list);
  if (plan.ifNoneMatch !== undefined && !ifNoneMatchHolds(plan.ifNoneMatch, etag)) return { action: 'list unchanged', plan, etag };
  const kept = cached.keptList(etag);
  if (kept !== undefined) return { action: 'list', plan, etag, body: kept };
  const page = () => cached.list(plan, etag);
  return (context.heavyWork !== undefined && plan.heavy ? context.heavyWork.run(page) : page()).then((body) => ({ action: 'list', plan, etag, body }));
}

async function executeOther(context: ExecutionContext, plan: Exclude<Plan, ListPlan | ReadPlan>): Promise<Result> {
  if (isWebhookAction(plan)) return executeWebhookPlan(context.webhooks, plan);
  switch (plan.action) {
    case 'create':
    case 'update': {
      const alone = plan.action === 'create' ? await createAlone(context, plan) : undefined;
      return { action: plan.action, plan, entry: alone ?? (await changing(context, plan, [plan], (tx) => write(tx, plan))) };
    }
    case 'delete':
      await changing(context, plan, [plan], (tx) => remove(tx, plan));
      return { action: 'delete', plan };
    case 'restore':
      return { action: 'restore', plan, entry: await changing(context, plan, [plan], (tx) => restore(tx, plan)) };
    case 'bulk': {
      const run = () => changing(context, plan, plan.entries, (tx) => bulk(tx, plan));
      return { action: 'bulk', plan, entries: await (context.heavyWork === undefined ? run() : context.heavyWork.run(run)) };
    }
    case 'list-tokens':
    case 'read-token':
    case 'issue-token':
    case 'revoke-token':
      return executeTokenPlan(context.tokens, plan);
    case 'changes':
    case 'history':
      return executeChangeLogPlan(context.store, plan);
    case 'monitoring-targets':
      return executeMonitoringPlan(context, plan);
    case 'export':
      return executeExportPlan(context, plan);
    case 'apply':
      return executeApplyPlan(context, plan);
    case 'change-stream':
      return executeChangeStreamPlan(context.changeStreams, plan);
  }
}

/** Runs a write's transaction, rolled back for a dry run, through the caches' layer (which
 * keeps the cached copies of what it changes out of the way). */
export async function changing<T>(
  context: ExecutionContext,
  plan: { readonly dryRun: boolean; readonly author: Author },
  /** The plans it runs, or, for work that may change any entry of these tables (an apply), the tables. */
  changes: readonly (WritePlan | DeletePlan | RestorePlan)[] | { readonly tables: readonly CompiledResource[] },
  work: (tx: StoreTransaction) => Promise<T>,
): Promise<T> {
  if (context.readOnly) throw apiError('READ_ONLY', 'database.readOnlyMode');
  const run = (inTransaction: typeof work) => context.cached.transaction(changes, inTransaction, plan.author);
  return plan.dryRun ? rolledBackIf(true, run, work) : run(work);
}

/** A create or an update: the store checks and writes it in one step, from the plan (its
 * If-Match included). */
export function write(tx: StoreTransaction, plan: WritePlan): Promise<Entry> {
  return tx.writeEntry(plan);
}

/** A create as one statement, where the store can (ReadThroughStore.createAlone): checked by
 * the same rule and storing the same values as write(), its references checked by the
 * statement where the store can, and recording the same change. Undefined when it was not
 * done so (nothing written): run write(), which names what was refused. */
async function createAlone(context: ExecutionContext, plan: WritePlan): Promise<Entry | undefined> {
  if (context.readOnly || plan.dryRun || plan.id !== undefined || plan.linkChanges.length > 0 || !context.store.createsAlone) return undefined;
  if (plan.references.length > 0 && !context.store.createsAlonePointing) return undefined;
  const values = await newEntryValues(plan);
  return context.cached.createAlone(plan, values, now(), secretsChangedBy(plan.resource, values));
}

/** A delete: the store checks and does it in one step, from the plan (entry-removal.ts). */
export function remove(tx: StoreTransaction, plan: DeletePlan): Promise<void> {
  return deleteEntry(tx, plan);
}

function restore(tx: StoreTransaction, plan: RestorePlan): Promise<Entry> {
  return restoreEntry(tx, plan);
}

/** Every entry in turn, in one transaction: the first refusal refuses the request, naming
 * its entry by `index` (a clash between two entries of the request included, since the
 * earlier one is already written when the later one is checked). */
async function bulk(tx: StoreTransaction, plan: BulkPlan): Promise<(Entry | undefined)[]> {
  if (plan.operation === 'create') return createAll(tx, plan.entries as readonly WritePlan[]);
  const entries: (Entry | undefined)[] = [];
  for (const [index, entry] of plan.entries.entries()) {
    try {
      entries.push(entry.action === 'delete' ? await remove(tx, entry).then(() => undefined) : await write(tx, entry));
    } catch (error) {
      throw error instanceof ApiError ? aboutEntry(error, index) : error;
    }
  }
  return entries;
}

/** A bulk create: the store checks every entry in turn, then stores them all (bulk-create.ts). */
export function createAll(tx: StoreTransaction, plans: readonly WritePlan[]): Promise<Entry[]> {
  return createEntries(tx, plans);
}
