// A create or an update as the plan makes it (a WriteStep): plain data, which the store's write
// step (StoreTransaction.writeEntry) checks and stores in one transaction; and a create's
// values where it runs without one (ResourceStore.createAlone).
import { validationFailed } from '../errors/api-error.js';
import type { CompiledResource } from '../registry/compiled-resource.js';
import { changedValues } from './entry-rows.js';

/** A reference a write sets, to be checked in its transaction. */
export interface ReferenceCheck {
  readonly field: string;
  /** The resource pointed at. */
  readonly resource: CompiledResource;
  readonly id: number;
  readonly mustBeLive: boolean;
}

/** Ids a write adds to or takes out of a set (PATCH's add_tags, remove_tags). */
export interface LinkChange {
  readonly field: string;
  readonly add: readonly number[];
  readonly remove: readonly number[];
}

/** A create or an update as planned (the write plan is one): plain data, which writeEntry
 * checks and stores. */
export interface WriteStep {
  readonly action: 'create' | 'update';
  readonly resource: CompiledResource;
  /** The entry to update; undefined for a create. */
  readonly id: number | undefined;
  /** The values the body sets, in canonical form. */
  readonly values: Readonly<Record<string, unknown>>;
  /** The fields the body sent (the resource's rule reads them). */
  readonly sent: readonly string[];
  readonly linkChanges: readonly LinkChange[];
  readonly references: readonly ReferenceCheck[];
  /** The request's If-Match (contract section 8), checked against the entry as locked
   * (entity-tag.ts); undefined when it sent none. */
  readonly ifMatch: string | undefined;
}

/** A create's values once the resource's rule allows them, for a create run without a
 * transaction (ResourceStore.createAlone): one that sets no reference and no set. */
export async function newEntryValues(step: WriteStep): Promise<Record<string, unknown>> {
  const candidate: Record<string, unknown> = { ...step.values };
  const rule = step.resource.rule;
  const problems = rule === undefined ? [] : await rule(candidate, { sent: new Set(step.sent), storedSecret: () => Promise.resolve(undefined) });
  if (problems.length > 0) throw validationFailed(problems);
  return (await changedValues(step.resource, step.action, step.values, candidate, undefined, () => Promise.resolve(undefined)))!;
}
