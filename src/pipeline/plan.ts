// Plan step: an API request and the registry become a plan, plain data that says what the
// execute step will do (the values to write, the checks to run in the transaction, whether
// to commit) and what the answer will be made of. No SQL, no database: a plan can be built
// and inspected in a unit test. A dry run is a plan whose transaction is rolled back.
import { aboutEntry, ApiError, fieldProblem, validationFailed, type FieldProblem } from '../errors/api-error.js';
import { message } from '../messages/messages.js';
import type { CompiledResource } from '../registry/compiled-resource.js';
import type { ReferencingField, Registry } from '../registry/registry.js';
import type { LinkTable } from '../registry/resource-definition.js';
import type { Author } from '../store/change-log.js';
import { listTotal, type ListQuery, type ListTotal } from '../store/list-query.js';
import { tokenValues } from './issue-token.js';
import { isWebhookAction } from './parse-webhook-request.js';
import { LIMIT_DEFAULT } from './parse-list-query.js';
import type { ApiRequest, ChangeLogRequest, TokenRequest } from './parse-request.js';
import { parseId } from './request-target.js';
import { planWebhookRequest, type WebhookPlan } from './plan-webhooks.js';
import type { MonitoringRequest } from './parse-monitoring-request.js';
import type { ExportRequest } from './parse-export-request.js';
import type { ApplyDocumentRequest } from './parse-apply-request.js';
import type { ChangeStreamPlan } from './execute-change-stream.js';
import { validateBody } from './validate-body.js';
import type { LinkChange, ReferenceCheck, WriteStep } from '../store/write-step.js';

export interface ListPlan {
  readonly action: 'list';
  readonly resource: CompiledResource;
  /** Columns, filters, sort and the cursor's position, as the store runs them. */
  readonly list: ListQuery;
  /** How the total is found: the kept count, or the matches counted. */
  readonly total: ListTotal;
  /** Runs behind the heavy-work gate (a long page, a search, a deep offset). */
  readonly heavy: boolean;
  readonly ifNoneMatch: string | undefined;
}

/** Skipping more entries than this reads them all first: a deep page. */
const DEEP_OFFSET = 1000;

/** Whether a list is heavy (runs behind the heavy-work gate, heavy-work-gate.ts): more entries
 * than a default page, a text search, or a deep offset. */
export function isHeavyList(list: ListQuery): boolean {
  return list.limit > LIMIT_DEFAULT || list.search !== undefined || list.offset > DEEP_OFFSET;
}

export interface ReadPlan {
  readonly action: 'read';
  readonly resource: CompiledResource;
  readonly id: number;
  readonly ifNoneMatch: string | undefined;
}

/** A create or an update: the store's write step (its action, resource, id, values, sent
 * fields, link changes and references: StoreTransaction.writeEntry checks and stores it),
 * and what the pipeline keeps for itself. */
export interface WritePlan extends WriteStep {
  /** The language segment of the path, for the `Location` of a created entry. */
  readonly lang: string;
  /** Who makes the change (the change log's actor and request id). */
  readonly author: Author;
  /** Check everything, answer as if done, commit nothing. */
  readonly dryRun: boolean;
}

export interface DeletePlan {
  readonly action: 'delete';
  readonly resource: CompiledResource;
  readonly id: number;
  readonly ifMatch: string | undefined;
  readonly mode: 'hard' | 'soft';
  /** A built-in entry (409 DELETE_GUARDED once it is known to exist). */
  readonly guarded: boolean;
  /** The fields of other resources that may still point at the entry (409 REFERENCED). */
  readonly referencedBy: readonly ReferencingField[];
  /** The sets the entry is taken out of when it goes (a deleted tag leaves its servers). */
  readonly unlinks: readonly (ReferencingField & { readonly link: LinkTable })[];
  readonly author: Author;
  readonly dryRun: boolean;
}

export interface RestorePlan {
  readonly action: 'restore';
  readonly resource: CompiledResource;
  readonly id: number;
  readonly ifMatch: string | undefined;
  readonly author: Author;
  readonly dryRun: boolean;
}

/** A bulk write: its entries' plans, run in one transaction, all or nothing. */
export interface BulkPlan {
  readonly action: 'bulk';
  readonly operation: 'create' | 'update' | 'delete';
  readonly resource: CompiledResource;
  readonly entries: readonly (WritePlan | DeletePlan)[];
  readonly author: Author;
  readonly dryRun: boolean;
}

/** A token's creation: the values checked, the secret not yet made (execute makes it). */
export interface IssueTokenPlan {
  readonly action: 'issue-token';
  /** The language segment of the path, for the `Location` of the token. */
  readonly lang: string;
  readonly values: Readonly<Record<string, unknown>>;
  readonly author: Author;
}

/** The token endpoints' plans: the reads and the revocation are plans as parsed. */
export type TokenPlan = Exclude<TokenRequest, { readonly action: 'issue-token' }> | IssueTokenPlan;

/** The change log's reads are plans as parsed: a range of records and its filters. */
export type ChangeLogPlan = ChangeLogRequest;

/** A monitoring integration's answer is planned as parsed: the servers to read (live and
 * monitored, the filters sent), the format (the endpoint), whether only headers are asked. */
export type MonitoringPlan = MonitoringRequest;

/** The export is planned as parsed: the whole configuration, in the format asked. */
export type ExportPlan = ExportRequest;

/** An apply is planned as parsed: which entries it creates, changes and deletes depends on
 * what is stored, read in its transaction (apply.ts plans them there, per resource). */
export type ApplyDocumentPlan = ApplyDocumentRequest;

export type Plan = ListPlan | ReadPlan | WritePlan | DeletePlan | RestorePlan | BulkPlan | TokenPlan | ChangeLogPlan | WebhookPlan | MonitoringPlan | ExportPlan | ApplyDocumentPlan | ChangeStreamPlan;

function referenceChecks(registry: Registry, resource: CompiledResource, values: Readonly<Record<string, unknown>>, linkChanges: readonly LinkChange[]): ReferenceCheck[] {
  const checks: ReferenceCheck[] = [];
  for (const [field, definition] of Object.entries(resource.fields)) {
    const reference = definition.type.references;
    if (reference === undefined) continue;
    const target = registry.target(reference);
    const change = linkChanges.find((candidate) => candidate.field === field);
    const value = values[field];
    const ids = Array.isArray(value) ? value : typeof value === 'number' ? [value] : (change?.add ?? []);
    const named = change === undefined || Array.isArray(value) ? field : definition.link!.addField;
    for (const id of ids as number[]) checks.push({ field: named, resource: target, id, mustBeLive: reference.mustBeLive });
  }
  return checks;
}

export function writePlan(
  registry: Registry,
  resource: CompiledResource,
  mode: 'create' | 'replace' | 'patch',
  body: unknown,
  id: number | undefined,
  rest: { lang: string; ifMatch: string | undefined; author: Author; dryRun: boolean },
): WritePlan {
  const { values, sent, linkChanges } = validateBody(resource, body, mode, id);
  return {
    action: id === undefined ? 'create' : 'update',
    resource,
    id,
    values,
    sent,
    linkChanges,
    references: referenceChecks(registry, resource, values, linkChanges),
    ...rest,
  };
}

export function deletePlan(registry: Registry, resource: CompiledResource, id: number, ifMatch: string | undefined, author: Author, dryRun: boolean): DeletePlan {
  const deletion = resource.deletion;
  const pointing = registry.referencesTo(resource);
  return {
    action: 'delete',
    resource,
    id,
    ifMatch,
    mode: deletion.mode,
    guarded: deletion.mode === 'hard' && deletion.guarded?.(id) === true,
    referencedBy: pointing.filter((referencing) => referencing.link === undefined),
    unlinks: pointing.filter((referencing): referencing is ReferencingField & { link: LinkTable } => referencing.link !== undefined),
    author,
    dryRun,
  };
}

/** Plans every entry of a bulk request; every entry's refusals are reported at once, each
 * naming its entry by `index`. */
function eachEntry<T>(items: readonly unknown[], plan: (item: unknown, index: number) => T): T[] {
  const problems: FieldProblem[] = [];
  const plans: T[] = [];
  items.forEach((item, index) => {
    try {
      plans.push(plan(item, index));
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'VALIDATION_FAILED') throw error;
      problems.push(...aboutEntry(error, index).fieldProblems);
    }
  });
  if (problems.length > 0) throw validationFailed(problems);
  return plans;
}

/** Two new entries of one request that would hold the same values of a unique rule: the
 * second is refused, naming the first, before any database work. */
function refuseClashesWithin(entries: readonly WritePlan[]): void {
  const problems: FieldProblem[] = [];
  for (const rule of entries[0]?.resource.unique ?? []) {
    const first = new Map<string, number>();
    entries.forEach((entry, index) => {
      const key = JSON.stringify(rule.fields.map((name) => entry.values[name]));
      const other = first.get(key);
      if (other === undefined) first.set(key, index);
      else problems.push(...rule.fields.map((name) => ({ ...fieldProblem(name, 'field.duplicateInBatch', { other }), index })));
    });
  }
  if (problems.length > 0) throw new ApiError('CONFLICT', message('conflict.summary'), problems);
}

/** The id a bulk PATCH entry names, which must be there, and only once in the request. */
function bulkEntryId(item: unknown, index: number, seen: Map<number, number>): number {
  const raw = typeof item === 'object' && item !== null && !Array.isArray(item) ? (item as Record<string, unknown>).id : undefined;
  const id = typeof raw === 'number' && Number.isInteger(raw) ? parseId(String(raw)) : undefined;
  if (id === undefined) throw validationFailed([fieldProblem('id', raw === undefined ? 'field.required' : 'field.entryId')]);
  const other = seen.get(id);
  if (other !== undefined) throw validationFailed([fieldProblem('id', 'field.idRepeated', { other })]);
  seen.set(id, index);
  return id;
}

export function planRequest(registry: Registry, request: ApiRequest): Plan {
  if (isWebhookAction(request)) return planWebhookRequest(request);
  switch (request.action) {
    case 'list':
      // Named field by field, not spread: a spread of requests of many shapes takes V8's slow
      // path, on every list request and every poll.
      return { action: 'list', resource: request.resource, list: request.list, ifNoneMatch: request.ifNoneMatch, total: listTotal(request.resource, request.list), heavy: isHeavyList(request.list) };
    case 'read':
    case 'list-tokens':
    case 'read-token':
    case 'revoke-token':
    case 'changes':
    case 'history':
    case 'monitoring-targets':
    case 'export':
    case 'apply':
    case 'change-stream':
      return request;
    case 'issue-token':
      return { action: 'issue-token', lang: request.lang, values: tokenValues(request.body), author: request.author };
    case 'create':
      return writePlan(registry, request.resource, 'create', request.body, undefined, { lang: request.lang, ifMatch: undefined, author: request.author, dryRun: request.dryRun });
    case 'replace':
    case 'patch':
      return writePlan(registry, request.resource, request.action, request.body, request.id, { lang: '', ifMatch: request.ifMatch, author: request.author, dryRun: request.dryRun });
    case 'delete':
      return deletePlan(registry, request.resource, request.id, request.ifMatch, request.author, request.dryRun);
    case 'restore':
      return { action: 'restore', resource: request.resource, id: request.id, ifMatch: request.ifMatch, author: request.author, dryRun: request.dryRun };
    case 'bulk-create': {
      const rest = { lang: '', ifMatch: undefined, author: request.author, dryRun: request.dryRun };
      const entries = eachEntry(request.bodies, (body) => writePlan(registry, request.resource, 'create', body, undefined, rest));
      refuseClashesWithin(entries);
      return { action: 'bulk', operation: 'create', resource: request.resource, entries, author: request.author, dryRun: request.dryRun };
    }
    case 'bulk-patch': {
      const rest = { lang: '', ifMatch: undefined, author: request.author, dryRun: request.dryRun };
      const seen = new Map<number, number>();
      const entries = eachEntry(request.bodies, (body, index) => writePlan(registry, request.resource, 'patch', body, bulkEntryId(body, index, seen), rest));
      return { action: 'bulk', operation: 'update', resource: request.resource, entries, author: request.author, dryRun: request.dryRun };
    }
    case 'bulk-delete': {
      const entries = request.ids.map((id) => deletePlan(registry, request.resource, id, undefined, request.author, request.dryRun));
      return { action: 'bulk', operation: 'delete', resource: request.resource, entries, author: request.author, dryRun: request.dryRun };
    }
  }
}
