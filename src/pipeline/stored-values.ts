// What a write stores: every field of the entry as it will be, but a kept secret is not
// rewritten and server-managed fields are set only when the entry is created; and, for an
// update, whether anything changes at all (a write that changes nothing writes nothing).
import type { Entry } from '../store/entry-rows.js';
import type { StoreTransaction } from '../store/store-transaction.js';
import type { WritePlan } from './plan.js';

/** Whether a stored value and a sent one are the same (a set of ids: the same ids in order). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, index) => item === b[index]);
  return a === b;
}

/** The values to store; undefined for an update that would change no field. */
export async function changedValues(
  /** Undefined for a create run without a transaction (it compares nothing). */
  tx: StoreTransaction | undefined,
  plan: WritePlan,
  candidate: Record<string, unknown>,
  existing: Entry | undefined,
): Promise<Record<string, unknown> | undefined> {
  const values: Record<string, unknown> = {};
  let changes = existing === undefined;
  for (const [name, field] of Object.entries(plan.resource.fields)) {
    if (field.writeOnly && !(name in plan.values)) continue;
    if (field.readOnly && plan.action !== 'create') continue;
    if (!(name in candidate)) continue;
    values[name] = candidate[name];
    if (changes || existing === undefined) continue;
    // A secret sent again is compared with the one stored, which only the store can open.
    const stored = field.writeOnly ? await tx!.storedSecret(plan.resource, existing.id, name) : existing[name];
    if (!sameValue(stored, candidate[name])) changes = true;
  }
  return changes ? values : undefined;
}
