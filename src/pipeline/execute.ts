// Execute step: runs a plan through the store. A write runs in one transaction: the entry is
// read under a lock, the preconditions and every check of the plan run, then the write; any
// refusal throws and the transaction changes nothing. A dry run does all of it and rolls back.
import { aboutEntry, ApiError, apiError, entryNotFound, fieldProblem, validationFailed, type FieldProblem } from '../errors/api-error.js';
import { message } from '../messages/messages.js';
import type { CompiledResource } from '../registry/compiled-resource.js';
import type { Author } from '../store/change-log.js';
import { rolledBackIf } from '../store/dry-run.js';
import type { Entry } from '../store/entry-rows.js';
import type { ResourceStore } from '../store/resource-store.js';
import type { StoreTransaction } from '../store/store-transaction.js';
import { UniqueConflict } from '../store/unique-rules.js';
import { entityTag, ifMatchHolds, ifNoneMatchHolds, listTag, type ReadAnswer } from './entity-tag.js';
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
import { changedValues } from './stored-values.js';

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

/** How many referencing entries a 409 REFERENCED names at most. */
const REFERENCES_NAMED = 20;

function refuseIfChanged(ifMatch: string | undefined, current: Entry): void {
  if (ifMatch !== undefined && !ifMatchHolds(ifMatch, entityTag(current))) throw apiError('PRECONDITION_FAILED', 'precondition.failed');
}

function now(): string {
  return new Date().toISOString();
}

export async function execute(context: ExecutionContext, plan: Plan): Promise<Result> {
  const { cached } = context;
  if (isWebhookAction(plan)) return executeWebhookPlan(context.webhooks, plan);
  switch (plan.action) {
    case 'list': {
      // The version is read before the page, so a tag never claims a newer state than its body.
      const version = cached.listVersion(plan.resource);
      const etag = listTag(plan.resource, typeof version === 'string' ? version : await version, plan.list);
      if (plan.ifNoneMatch !== undefined && !ifNoneMatchHolds(plan.ifNoneMatch, etag)) return { action: 'list unchanged', plan, etag };
      const kept = cached.keptList(etag);
      if (kept !== undefined) return { action: 'list', plan, etag, body: kept };
      const page = () => cached.list(plan, etag);
      const body = context.heavyWork !== undefined && plan.heavy ? await context.heavyWork.run(page) : await page();
      return { action: 'list', plan, etag, body };
    }
    case 'read': {
      const answer = cached.entry(plan.resource, plan.id);
      return { action: 'read', plan, answer: answer instanceof Promise ? await answer : answer };
    }
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
  return rolledBackIf(plan.dryRun, (run) => context.cached.transaction(changes, run, plan.author), work);
}

async function lockExisting(tx: StoreTransaction, plan: { readonly resource: WritePlan['resource']; readonly id: number; readonly ifMatch: string | undefined }): Promise<Entry> {
  const existing = await tx.lockForWrite(plan.resource, plan.id);
  if (existing === undefined) throw entryNotFound(plan.resource.name, plan.id);
  refuseIfChanged(plan.ifMatch, existing);
  return existing;
}

export async function write(tx: StoreTransaction, plan: WritePlan): Promise<Entry> {
  const { resource } = plan;
  const existing = plan.id === undefined ? undefined : await lockExisting(tx, { resource, id: plan.id, ifMatch: plan.ifMatch });
  const values = await checkedValues(tx, plan, existing);
  // A write that changes nothing writes nothing: updated_at and the entity tag stay.
  if (existing !== undefined && values === undefined) return existing;
  let entry: Entry;
  try {
    entry = existing === undefined ? await tx.insert(resource, values!, now()) : await tx.update(resource, existing, values!, now());
  } catch (error) {
    throw error instanceof UniqueConflict ? error.problem() : error;
  }
  recordWrite(tx, plan, existing, entry, values!);
  return entry;
}

/** A create as one statement, where the store can (ReadThroughStore.createAlone): checked by
 * the same rule and storing the same values as write(), its references checked by the
 * statement where the store can, and recording the same change. Undefined when it was not
 * done so (nothing written): run write(), which names what was refused. */
async function createAlone(context: ExecutionContext, plan: WritePlan): Promise<Entry | undefined> {
  if (context.readOnly || plan.dryRun || plan.id !== undefined || plan.linkChanges.length > 0 || !context.store.createsAlone) return undefined;
  if (plan.references.length > 0 && !context.store.createsAlonePointing) return undefined;
  const candidate: Record<string, unknown> = { ...plan.values };
  const problems = await checkRule(undefined, plan, candidate);
  if (problems.length > 0) throw validationFailed(problems);
  const values = (await changedValues(undefined, plan, candidate, undefined))!;
  return context.cached.createAlone(plan, values, now(), secretsChangedBy(plan, values));
}

function secretsChangedBy(plan: WritePlan, values: Record<string, unknown>): string[] {
  return Object.keys(values).filter((name) => plan.resource.fields[name]?.writeOnly === true);
}

/** The values a write stores, once the resource's rule and the references allow them;
 * undefined for an update that changes no field. */
async function checkedValues(tx: StoreTransaction, plan: WritePlan, existing: Entry | undefined): Promise<Record<string, unknown> | undefined> {
  const candidate: Record<string, unknown> = { ...existing, ...plan.values };
  for (const change of plan.linkChanges) {
    const held = (candidate[change.field] as number[] | undefined) ?? [];
    candidate[change.field] = [...new Set([...held, ...change.add])].filter((id) => !change.remove.includes(id)).sort((a, b) => a - b);
  }
  const problems = await checkRule(tx, plan, candidate);
  problems.push(...(await checkReferences(tx, plan)));
  if (problems.length > 0) throw validationFailed(problems);
  return changedValues(tx, plan, candidate, existing);
}

function recordWrite(tx: StoreTransaction, plan: WritePlan, existing: Entry | undefined, entry: Entry, values: Record<string, unknown>): void {
  const { resource } = plan;
  tx.recordChange({ action: plan.action, resource, entryId: entry.id, before: existing ?? null, after: entry, secretsChanged: secretsChangedBy(plan, values) });
}

/** The resource's own rule, on the entry as it would be stored (it may set fields in it). */
async function checkRule(tx: StoreTransaction | undefined, plan: WritePlan, candidate: Record<string, unknown>): Promise<FieldProblem[]> {
  const { resource, id } = plan;
  if (resource.rule === undefined) return [];
  return resource.rule(candidate, {
    sent: new Set(plan.sent),
    // A create (the only write without a transaction here) has no stored secret.
    storedSecret: (field) => (id === undefined || tx === undefined ? Promise.resolve(undefined) : tx.storedSecret(resource, id, field)),
  });
}

async function checkReferences(tx: StoreTransaction, plan: WritePlan): Promise<FieldProblem[]> {
  const problems: FieldProblem[] = [];
  if (plan.references.length === 0) return problems;
  const states = await tx.referenceStates(plan.references);
  plan.references.forEach((check, index) => {
    const state = states[index];
    const params = { resource: check.resource.name, id: check.id };
    if (state === 'missing') problems.push(fieldProblem(check.field, 'field.referenceMissing', params));
    else if (state === 'deleted' && check.mustBeLive) problems.push(fieldProblem(check.field, 'field.referenceDeleted', params));
  });
  return problems;
}

export async function remove(tx: StoreTransaction, plan: DeletePlan): Promise<void> {
  const { resource, id } = plan;
  const existing = await lockExisting(tx, plan);
  if (plan.guarded) throw apiError('DELETE_GUARDED', 'delete.guarded', { resource: resource.name, id });
  const deletion = resource.deletion;
  if (deletion.mode === 'soft' && existing[deletion.flagField] === 1) return; // already deleted: nothing to do
  await refuseIfReferenced(tx, plan);
  const at = now();
  for (const unlink of plan.unlinks) {
    // The entries that held it change too: each is recorded as the update it is.
    const holders = await tx.entriesLinkedTo(unlink, id);
    await tx.unlinkTarget(unlink, id, holders.map((holder) => holder.id), at);
    for (const before of holders) {
      const after = { ...before, [unlink.field]: (before[unlink.field] as number[]).filter((held) => held !== id), updated_at: at };
      tx.recordChange({ action: 'update', resource: unlink.resource, entryId: before.id, before, after, secretsChanged: [] });
    }
  }
  if (deletion.mode === 'soft') {
    await tx.softDelete(resource, id, at);
    tx.recordChange({ action: 'delete', resource, entryId: id, before: existing, after: { ...existing, [deletion.flagField]: 1, updated_at: at }, secretsChanged: [] });
  } else {
    await tx.remove(resource, id);
    tx.recordChange({ action: 'delete', resource, entryId: id, before: existing, after: null, secretsChanged: [] });
  }
}

async function refuseIfReferenced(tx: StoreTransaction, plan: DeletePlan): Promise<void> {
  const users: { resource: string; ids: number[] }[] = [];
  for (const reference of plan.referencedBy) {
    const ids = await tx.idsReferencing(reference.resource, reference.field, plan.id, REFERENCES_NAMED);
    if (ids.length > 0) users.push({ resource: reference.resource.name, ids });
  }
  if (users.length === 0) return;
  const named = users.map((user) => `${user.resource} ${user.ids.join(', ')}`).join('; ');
  throw new ApiError('REFERENCED', message('delete.referenced', { resource: plan.resource.name, id: plan.id, users: named }), [], {}, {
    referenced_by: users,
  });
}

async function restore(tx: StoreTransaction, plan: RestorePlan): Promise<Entry> {
  const existing = await lockExisting(tx, plan);
  const deletion = plan.resource.deletion;
  // Not deleted: nothing to bring back, and nothing changes.
  if (deletion.mode !== 'soft' || existing[deletion.flagField] !== 1) return existing;
  let restored: Entry;
  try {
    restored = await tx.restore(plan.resource, existing, now());
  } catch (error) {
    throw error instanceof UniqueConflict ? error.problem() : error;
  }
  tx.recordChange({ action: 'restore', resource: plan.resource, entryId: existing.id, before: existing, after: restored, secretsChanged: [] });
  return restored;
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

/** A bulk create: every entry checked in turn, then all stored by a few statements (the
 * store's insertMany); the first refusal names its entry by `index`. Two entries of the
 * request that clash were refused by the plan already. */
export async function createAll(tx: StoreTransaction, plans: readonly WritePlan[]): Promise<Entry[]> {
  const valuesList: Record<string, unknown>[] = [];
  for (const [index, plan] of plans.entries()) {
    try {
      valuesList.push((await checkedValues(tx, plan, undefined))!);
    } catch (error) {
      throw error instanceof ApiError ? aboutEntry(error, index) : error;
    }
  }
  let entries: Entry[];
  try {
    entries = await tx.insertMany(plans[0]!.resource, valuesList, now());
  } catch (error) {
    if (!(error instanceof UniqueConflict)) throw error;
    throw error.index === undefined ? error.problem() : aboutEntry(error.problem(), error.index);
  }
  entries.forEach((entry, index) => recordWrite(tx, plans[index]!, undefined, entry, valuesList[index]!));
  return entries;
}
