// How a unique rule is enforced is decided here, from the dialect's capabilities, and nowhere
// else: where a refused statement leaves the transaction usable, the unique indexes find a
// conflict in the write itself and only then are the rules looked at one by one (to name the
// fields); where it aborts the transaction (PostgreSQL), the rules are looked at first and the
// indexes catch what races past the look.
import type { EntryDatabase } from '../db/database-schema.js';
import type { DatabaseCapabilities, DatabaseFailure } from '../db/connect.js';
import { ApiError, fieldProblem } from '../errors/api-error.js';
import { message } from '../messages/messages.js';
import type { ResourceDefinition, UniqueRule } from '../registry/resource-definition.js';
import type { Entry } from './entry-rows.js';
import type { QueryTemplates } from './query-templates.js';
import { rowBatches } from './row-batches.js';

/** A write refused by unique rules: the rules whose values another entry holds. */
export class UniqueConflict extends Error {
  constructor(
    readonly rules: readonly UniqueRule[],
    /** Of insertMany: the position of the refused entry in its list. */
    readonly index?: number,
  ) {
    super('unique conflict');
    this.name = 'UniqueConflict';
  }

  /** The answer: 409 CONFLICT naming every field of the rules. */
  problem(): ApiError {
    const named = this.rules.flatMap((rule) => rule.fields.map((name) => fieldProblem(name, 'conflict.unique')));
    return new ApiError('CONFLICT', message('conflict.summary'), named);
  }
}

/** Whether a unique rule binds an entry with these values: a rule among live entries does not
 * bind a deleted one. */
function appliesTo(resource: ResourceDefinition, rule: UniqueRule, values: Record<string, unknown>): boolean {
  return !(rule.amongLive && resource.deletion.mode === 'soft' && values[resource.deletion.flagField] === 1);
}

/** `error`, a UniqueConflict of an entry of a list, naming its position. */
export function rethrowAt(error: unknown, index: number): never {
  throw error instanceof UniqueConflict ? new UniqueConflict(error.rules, index) : error;
}

/** The unique rules of the resources, looked at in the transaction `db` each call is given: one
 * per store (StoreContext), made with its dialect's capabilities. */
export class UniqueRules {
  constructor(
    private readonly capabilities: DatabaseCapabilities,
    private readonly failureOf: (error: unknown) => DatabaseFailure,
    private readonly templates: QueryTemplates,
  ) {}

  async enforce(
    db: EntryDatabase,
    resource: ResourceDefinition,
    candidate: Record<string, unknown>,
    existing: Entry | undefined,
    write: () => Promise<Entry>,
  ): Promise<Entry> {
    if (this.capabilities.failedStatementEndsTransaction) {
      await this.refuse(db, resource, candidate, existing);
      return write();
    }
    try {
      return await write();
    } catch (error) {
      if (this.failureOf(error) === 'unique') await this.refuse(db, resource, candidate, existing);
      throw error;
    }
  }

  /** enforce() for a create. `write(skipConflicts)` inserts, giving undefined when it skipped a
   * row whose unique values are taken (DatabaseCapabilities.insertSkipsConflicts): then the
   * rules are looked at, to name the fields. */
  async enforceCreate(db: EntryDatabase, resource: ResourceDefinition, candidate: Record<string, unknown>, write: (skipConflicts: boolean) => Promise<Entry | undefined>): Promise<Entry> {
    const plainInsert = async (): Promise<Entry> => {
      const entry = await write(false);
      if (entry === undefined) throw new Error(`${resource.name}: an insert that skips nothing gave no row`);
      return entry;
    };
    if (!this.capabilities.insertSkipsConflicts) return this.enforce(db, resource, candidate, undefined, plainInsert);
    const entry = await write(true);
    if (entry !== undefined) return entry;
    await this.refuse(db, resource, candidate, undefined);
    // Skipped for values no rule names, or freed again since: the plain insert says which.
    return plainInsert();
  }

  /** Throws UniqueConflict naming every rule whose values another entry holds. */
  async refuse(db: EntryDatabase, resource: ResourceDefinition, candidate: Record<string, unknown>, existing: Entry | undefined): Promise<void> {
    const taken: UniqueRule[] = [];
    for (const rule of resource.unique) {
      if (!appliesTo(resource, rule, candidate)) continue;
      const unchanged = existing !== undefined && rule.fields.every((name) => existing[name] === candidate[name]);
      if (unchanged) continue;
      if (await this.isTaken(db, resource, rule, [candidate], existing?.id)) taken.push(rule);
    }
    if (taken.length > 0) throw new UniqueConflict(taken);
  }

  /** refuse() for new entries, a batch at a time: one look per rule and batch (a bulk
   * create of 1,000 made 1,000 round trips per rule), and entry by entry only in a batch where
   * some values are taken, to name the first such entry by its position. */
  async refuseMany(db: EntryDatabase, resource: ResourceDefinition, valuesList: readonly Record<string, unknown>[]): Promise<void> {
    for (const batch of rowBatches([...valuesList.keys()])) {
      let taken = false;
      for (const rule of resource.unique) {
        const candidates = batch.map((index) => valuesList[index]!).filter((values) => appliesTo(resource, rule, values));
        if (candidates.length > 0 && (await this.isTaken(db, resource, rule, candidates, undefined))) taken = true;
      }
      if (!taken) continue;
      for (const index of batch) await this.refuse(db, resource, valuesList[index]!, undefined).catch((error) => rethrowAt(error, index));
    }
  }

  /** Whether another entry already holds the values of a unique rule of any of `candidates`. */
  async isTaken(db: EntryDatabase, resource: ResourceDefinition, rule: UniqueRule, candidates: readonly Record<string, unknown>[], exceptId: number | undefined): Promise<boolean> {
    const fields = rule.fields.map((name) => resource.fields[name]!);
    const amongLive = rule.amongLive && resource.deletion.mode === 'soft' ? resource.deletion.liveColumn : undefined;
    const key = `taken ${resource.table} ${rule.fields.join(',')} ${amongLive ?? '-'} ${exceptId !== undefined} x${candidates.length}`;
    const query = this.templates.get(key, (slot) => {
      let select = db
        .selectFrom(resource.table)
        .select('id')
        .where((eb) => eb.or(candidates.map((_, row) => eb.and(fields.map((field, index) => eb(field.column, '=', slot(row * fields.length + index)))))));
      if (amongLive !== undefined) select = select.where(amongLive, '=', 1);
      if (exceptId !== undefined) select = select.where('id', '<>', slot(candidates.length * fields.length));
      return select.limit(1);
    });
    const slots = candidates.flatMap((values) => rule.fields.map((name, index) => fields[index]!.type.toColumn(values[name])));
    if (exceptId !== undefined) slots.push(exceptId);
    return (await query.execute(db, slots)).rows.length > 0;
  }
}
