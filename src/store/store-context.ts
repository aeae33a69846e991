// What every part of the store shares, handed over as one object rather than as a long list
// of constructor arguments: the database handle, the compiled statements, the entry
// selections, the unique rules and the box that seals secret fields.
import type { DatabaseHandle } from '../db/connect.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { EntrySelections } from './entry-rows.js';
import type { QueryTemplates } from './query-templates.js';
import type { UniqueRules } from './unique-rules.js';

export interface StoreContext {
  readonly handle: DatabaseHandle;
  /** Each shape of statement compiled once (query-templates.ts). */
  readonly templates: QueryTemplates;
  /** The columns an entry is read with, per resource (entry-rows.ts). */
  readonly selections: EntrySelections;
  /** How unique rules are looked at, on this dialect (unique-rules.ts). */
  readonly unique: UniqueRules;
  readonly secrets: SecretBox;
}
