// Apply (contract section 18): makes the stored configuration equal to a document, in one
// transaction behind the heavy-work gate, through the very write path of single and bulk
// requests (writePlan/deletePlan, then write/createAll/remove), so that validation, links,
// counts and change records stay one path. Per resource in dependency order (a tag and a
// client before the servers that use them): the stored entries are read, the document's
// references (natural keys) become ids (apply-stored-entries.ts), each entry is compared with
// the stored one (one that holds the stored values as sent is unchanged at once, see
// sameAsStored), the creates go in one createAll, the differing entries are written; then
// the prunes, in the reverse order (servers moved off a client before the client goes). The
// first problem stops every later write, the walk goes on only to report every problem at
// once, and the transaction is rolled back. Decisions: docs/config-as-code.md.
import { createHash } from 'node:crypto';
import { ApiError, apiError, type FieldProblem } from '../errors/api-error.js';
import { message } from '../messages/messages.js';
import type { CompiledResource } from '../registry/compiled-resource.js';
import type { Registry } from '../registry/registry.js';
import type { Author } from '../store/change-log.js';
import type { Entry } from '../store/entry-rows.js';
import type { StoreTransaction } from '../store/store-transaction.js';
import { sameValue } from '../store/entry-rows.js';
import { StoredByKey, type StoredEntries } from './apply-stored-entries.js';
import { readDocument, type DocumentEntry, type DocumentSection } from './apply-document.js';
import { ifMatchHolds } from '../store/entity-tag.js';
import { changing, createAll, remove, write, type ExecutionContext } from './execute.js';
import { deletePlan, writePlan, type WritePlan } from './plan.js';

export interface ApplyRequest {
  readonly document: unknown;
  /** The resources whose stored entries missing from the document are deleted. */
  readonly prune: ReadonlySet<string>;
  readonly dryRun: boolean;
  readonly ifMatch: string | undefined;
  readonly author: Author;
}

export interface PlannedChange {
  readonly action: 'create' | 'update' | 'delete';
  readonly resource: string;
  /** The entry's natural key as one text. */
  readonly key: string;
  /** Null for an entry a dry run would create. */
  readonly id: number | null;
  /** An update's changed fields, each `[stored, document]`, references by natural key. */
  readonly fields?: Record<string, [unknown, unknown]>;
}

export interface ApplyPlan {
  change_id: number;
  counts: { create: number; update: number; delete: number; unchanged: number };
  changes: PlannedChange[];
}

/** A write-only value is never shown: a changed one is shown as this, on both sides. */
export const SECRET_SHOWN = '(secret)';
/** A refusal names at most this many places. */
const PROBLEMS_SHOWN = 1000;

export async function applyDocument(context: ExecutionContext, request: ApplyRequest): Promise<{ plan: ApplyPlan; etag: string }> {
  const { sections, problems } = await readDocument(context.registry, request.document);
  if (problems.length > 0) throw refused(problems);
  const order = context.registry.dependencyOrder();
  const run = () => changing(context, request, { tables: order }, (tx) => new Applying(tx, context.registry, order, sections, request).run());
  const { changes, unchanged, etag } = await (context.heavyWork === undefined ? run() : context.heavyWork.run(run));
  const counts = { create: 0, update: 0, delete: 0, unchanged };
  for (const change of changes) counts[change.action] += 1;
  const shown = request.dryRun ? changes.map((change) => (change.action === 'create' ? { ...change, id: null } : change)) : changes;
  return { plan: { change_id: await context.store.changeLog.lastId(), counts, changes: shown }, etag };
}

function refused(problems: readonly FieldProblem[]): ApiError {
  return new ApiError('VALIDATION_FAILED', message('apply.refused', { count: problems.length }), problems.slice(0, PROBLEMS_SHOWN));
}

/** A refusal of the write path, each of its problems placed in the document (`at`). */
function placed(error: unknown, placeOf: (index: number | undefined) => string): unknown {
  if (!(error instanceof ApiError)) return error;
  const problems = error.fieldProblems.length > 0 ? error.fieldProblems : [{ field: '', message: error.detail }];
  const at = problems.map(({ index, ...problem }) => ({ ...problem, at: problem.field === '' ? placeOf(index) : `${placeOf(index)}.${problem.field}` }));
  const { item: _item, ...extensions } = error.extensions;
  return new ApiError(error.code, error.detail, at, error.headers, extensions);
}

class Applying {
  private readonly problems: FieldProblem[] = [];
  private readonly changes: PlannedChange[] = [];
  private unchanged = 0;
  private readonly stored: StoredByKey;

  constructor(
    private readonly tx: StoreTransaction,
    private readonly registry: Registry,
    private readonly order: readonly CompiledResource[],
    private readonly sections: ReadonlyMap<string, DocumentSection>,
    private readonly request: ApplyRequest,
  ) {
    this.stored = new StoredByKey(tx, registry, sections);
  }

  async run(): Promise<{ changes: PlannedChange[]; unchanged: number; etag: string }> {
    // Read before any entry: a change committed in between then moves the tag, never hides.
    const versions: Record<string, string> = {};
    for (const resource of this.order) versions[resource.name] = await this.tx.tableVersion(resource);
    for (const resource of this.order) {
      const section = this.sections.get(resource.name);
      if (section !== undefined) await this.createAndUpdate(section);
    }
    for (const resource of [...this.order].reverse()) if (this.request.prune.has(resource.name)) await this.prune(resource);
    if (this.problems.length > 0) throw refused(this.problems);
    const etag = planTag(versions, this.request.prune, this.changes);
    // Checked once the plan is known (it is part of the tag); the rollback undoes the writes.
    if (this.request.ifMatch !== undefined && !ifMatchHolds(this.request.ifMatch, etag)) throw apiError('PRECONDITION_FAILED', 'precondition.planChanged');
    return { changes: this.changes, unchanged: this.unchanged, etag };
  }

  private async createAndUpdate(section: DocumentSection): Promise<void> {
    const { resource } = section;
    const stored = await this.stored.load(resource);
    const rest = { lang: '', ifMatch: undefined, author: this.request.author, dryRun: this.request.dryRun };
    const creates: { entry: DocumentEntry; plan: WritePlan }[] = [];
    const updates: { entry: DocumentEntry; plan: WritePlan; existing: Entry; fields: Record<string, [unknown, unknown]> }[] = [];
    const targetsOf = await this.stored.targetsOf(resource);
    for (const entry of section.entries) {
      const existing = stored.byKey.get(entry.key);
      if (existing !== undefined && this.sameAsStored(resource, entry.body, existing, targetsOf)) {
        this.unchanged += 1;
        continue;
      }
      const body = await this.withIds(resource, entry);
      if (body === undefined) continue;
      try {
        if (existing === undefined) {
          creates.push({ entry, plan: writePlan(this.registry, resource, 'create', body, undefined, rest) });
          continue;
        }
        const plan = writePlan(this.registry, resource, 'patch', body, existing.id, rest);
        const fields = await this.differences(resource, plan, existing);
        if (fields === undefined) this.unchanged += 1;
        else updates.push({ entry, plan, existing, fields });
      } catch (error) {
        if (!(error instanceof ApiError) || error.code !== 'VALIDATION_FAILED') throw error;
        this.problems.push(...this.secretsNamed(resource, existing === undefined, error.fieldProblems).map((problem) => ({ ...problem, at: `${entry.at}.${problem.field}` })));
      }
    }
    // Once the document is known to be refused nothing more is written: the rest is only read.
    if (this.problems.length > 0) return;
    if (creates.length > 0) {
      let created: Entry[];
      try {
        created = await createAll(this.tx, creates.map((create) => create.plan));
      } catch (error) {
        throw placed(error, (index) => creates[index ?? 0]!.entry.at);
      }
      created.forEach((entry, index) => {
        const { key } = creates[index]!.entry;
        stored.byKey.set(key, entry);
        stored.keyOf.set(entry.id, key);
        this.changes.push({ action: 'create', resource: resource.name, key, id: entry.id });
      });
    }
    for (const update of updates) {
      try {
        await write(this.tx, update.plan);
      } catch (error) {
        throw placed(error, () => update.entry.at);
      }
      this.changes.push({ action: 'update', resource: resource.name, key: update.entry.key, id: update.existing.id, fields: update.fields });
    }
  }

  /** Whether every field the entry sets holds, as sent, the stored value as an export writes
   * it (a reference as the natural key of the entry it points at): the entry is unchanged,
   * and is neither validated nor planned again. This is what makes the plan of an unchanged
   * document cheap: its values were checked when they were stored. Anything else (another
   * value, another form of the same value, a write-only field) takes the full way below,
   * which validates it and tells the difference. */
  private sameAsStored(resource: CompiledResource, body: Readonly<Record<string, unknown>>, existing: Entry, targets: ReadonlyMap<string, StoredEntries>): boolean {
    for (const name in body) {
      const field = resource.fields[name];
      if (field === undefined || field.writeOnly === true || field.readOnly === true) return false;
      const value = body[name];
      const held = existing[name];
      const target = targets.get(name);
      if (target === undefined || value === null || held === null) {
        if (!sameValue(held, value)) return false;
        continue;
      }
      // The reference names the entry it holds: the text is that entry's key, and that key is
      // not shared by an entry of lower id (which the text would name instead).
      const names = (id: unknown, text: unknown): boolean => {
        const key = target.keyOf.get(id as number);
        return key !== undefined && key === text && target.byKey.get(key)?.id === id;
      };
      if (Array.isArray(held)) {
        if (!Array.isArray(value) || value.length !== held.length) return false;
        const texts = new Set(value);
        if (texts.size !== value.length) return false;
        for (const id of held) {
          const key = target.keyOf.get(id as number);
          if (!texts.has(key) || !names(id, key)) return false;
        }
      } else if (!names(held, value)) return false;
    }
    return true;
  }

  /** A write-only field an entry to create lacks is required as on POST; said so that an
   * exported SSH key (which never carries its private key) is understood. */
  private secretsNamed(resource: CompiledResource, creating: boolean, problems: readonly FieldProblem[]): FieldProblem[] {
    return problems.map((problem) =>
      creating && resource.fields[problem.field]?.writeOnly === true && problem.message.key === 'field.required' ? { ...problem, message: message('apply.secretRequired') } : problem,
    );
  }

  /** The entry's body with its references turned from natural keys into ids; undefined, with
   * the problems noted, when one names no entry. */
  private async withIds(resource: CompiledResource, entry: DocumentEntry): Promise<Record<string, unknown> | undefined> {
    const body: Record<string, unknown> = { ...entry.body };
    let found = true;
    for (const [name, field] of Object.entries(resource.fields)) {
      const reference = field.type.references;
      const value = body[name];
      if (reference === undefined || value === undefined || value === null) continue;
      const target = this.registry.target(reference);
      const at = `${entry.at}.${name}`;
      const texts = reference.many ? value : [value];
      if (!Array.isArray(texts) || !texts.every((text) => typeof text === 'string') || new Set(texts).size !== texts.length) {
        this.problems.push({ field: name, message: message(reference.many ? 'apply.referenceList' : 'apply.referenceForm', { resource: target.name }), at });
        found = false;
        continue;
      }
      const ids: number[] = [];
      for (const text of texts as string[]) {
        const id = await this.stored.idOf(target, text.trim());
        if (id === undefined) this.problems.push({ field: name, message: message('apply.referenceUnknown', { resource: target.name }), at });
        else ids.push(id);
      }
      if (ids.length < texts.length) found = false;
      body[name] = reference.many ? ids : ids[0];
    }
    return found ? body : undefined;
  }

  /** The fields the document changes, `[stored, document]` as the document writes them;
   * undefined when it changes none. */
  private async differences(resource: CompiledResource, plan: WritePlan, existing: Entry): Promise<Record<string, [unknown, unknown]> | undefined> {
    const fields: Record<string, [unknown, unknown]> = {};
    for (const [name, value] of Object.entries(plan.values)) {
      const field = resource.fields[name]!;
      if (field.readOnly === true) continue;
      if (field.writeOnly === true) {
        if ((await this.tx.storedSecret(resource, existing.id, name)) !== value) fields[name] = [SECRET_SHOWN, SECRET_SHOWN];
      } else if (!sameValue(existing[name], value)) {
        fields[name] = [await this.stored.shown(field, existing[name]), await this.stored.shown(field, value)];
      }
    }
    return Object.keys(fields).length === 0 ? undefined : fields;
  }

  private async prune(resource: CompiledResource): Promise<void> {
    const stored = await this.stored.load(resource);
    const kept = this.sections.get(resource.name)?.keys ?? new Set<string>();
    for (const entry of stored.entries) {
      const key = stored.keyOf.get(entry.id)!;
      if (kept.has(key) && stored.byKey.get(key)?.id === entry.id) continue;
      const plan = deletePlan(this.registry, resource, entry.id, undefined, this.request.author, this.request.dryRun);
      if (plan.guarded) {
        this.problems.push({ field: '', message: message('apply.pruneBuiltIn', { resource: resource.name, key }), at: resource.name });
        continue;
      }
      if (this.problems.length > 0) continue;
      try {
        await remove(this.tx, plan);
      } catch (error) {
        throw placed(error, () => resource.name);
      }
      this.changes.push({ action: 'delete', resource: resource.name, key, id: entry.id });
    }
  }
}

/** The plan's entity tag: the version of every table it was made against, the prunes asked,
 * and the changes planned (ids of entries to create left out: a dry run's are not kept).
 * Anything committed since, or another document, gives another tag. */
function planTag(versions: Readonly<Record<string, string>>, prune: ReadonlySet<string>, changes: readonly PlannedChange[]): string {
  const planned = changes.map((change) => [change.action, change.resource, change.key, change.action === 'create' ? null : change.id, change.fields ?? null]);
  const hash = createHash('sha256').update(JSON.stringify([versions, [...prune].sort(), planned])).digest('base64url');
  return `"apply-${hash.slice(0, 32)}"`;
}
