// Storage of the managed API tokens. A token is an entry of API_TOKENS, written, read, listed
// and removed by the registry-driven store like any entry (unique name, counted list totals,
// a change record in the change log, resource `tokens`, in the transaction of the change);
// what is the tokens' own lives here: the keyed digest written with the entry, the generation
// every creation and revocation moves in the same transaction (other instances poll it to
// learn of a revocation), the token key's check value, and last-use times saved in batches.
import type { Kysely } from 'kysely';
import type { ManagedToken } from '../auth/token-index.js';
import type { TokenScope } from '../auth/caller.js';
import type { DatabaseHandle } from '../db/connect.js';
import type { Database } from '../db/database-schema.js';
import { API_TOKENS } from './api-token-definition.js';
import type { Author } from './change-log.js';
import type { Entry } from './entry-rows.js';
import { refuseUnlessIfMatchHolds } from './entity-tag.js';
import type { ResourceStore } from './resource-store.js';

const STATE_ROW = 1;
// Ids bound in one read: far under every backend's limit of bound values.
const IDS_PER_READ = 500;

function managedToken(row: { id: number | string; name: string; scope: string; digest: string; expires_at: string | null; allowed_ips: unknown }): ManagedToken {
  return {
    id: Number(row.id),
    name: row.name,
    scope: row.scope as TokenScope,
    digest: row.digest,
    expiresAt: row.expires_at,
    allowedIps: API_TOKENS.fields.allowed_ips!.type.fromColumn(row.allowed_ips) as string[] | null,
  };
}

export class TokenStore {
  constructor(
    private readonly handle: DatabaseHandle,
    /** The store every entry goes through; token entries too. */
    readonly entries: ResourceStore,
  ) {}

  /** Moves at every creation and revocation, on every instance's database alike. */
  async generation(): Promise<number> {
    const row = await this.handle.db.selectFrom('api_token_state').select('generation').where('id', '=', STATE_ROW).executeTakeFirstOrThrow();
    return Number(row.generation);
  }

  /** The id and keyed digest of every managed token: a sync compares them with what its index
   * holds, and reads in full only the tokens it lacks (a token is never changed in place: a
   * new one has a new id and digest). */
  async digests(): Promise<{ id: number; digest: string }[]> {
    const rows = await this.handle.db.selectFrom('api_tokens').select(['id', 'digest']).execute();
    return rows.map((row) => ({ id: Number(row.id), digest: row.digest }));
  }

  /** The managed tokens of these ids that still exist, as the in-memory index needs them;
   * every token when `ids` is undefined (a first load). */
  async tokens(ids: readonly number[] | undefined): Promise<ManagedToken[]> {
    const select = () => this.handle.db.selectFrom('api_tokens').select(['id', 'name', 'scope', 'digest', 'expires_at', 'allowed_ips']);
    if (ids === undefined) return (await select().orderBy('id').execute()).map(managedToken);
    const tokens: ManagedToken[] = [];
    for (let start = 0; start < ids.length; start += IDS_PER_READ) {
      const rows = await select()
        .where('id', 'in', ids.slice(start, start + IDS_PER_READ))
        .execute();
      tokens.push(...rows.map(managedToken));
    }
    return tokens;
  }

  /** Whether the stored digests, if any, were made with the key of this check value: a
   * service started with another key would refuse every managed token. */
  async keyMatches(keyCheck: string): Promise<boolean> {
    const state = await this.handle.db.selectFrom('api_token_state').select('key_check').where('id', '=', STATE_ROW).executeTakeFirstOrThrow();
    if (state.key_check === null || state.key_check === keyCheck) return true;
    return (await this.handle.db.selectFrom('api_tokens').select('id').limit(1).executeTakeFirst()) === undefined;
  }

  /** Stores a new token (its field values, checked, and its keyed digest) and its change
   * record; throws UniqueConflict when the name is taken. */
  async issue(values: Record<string, unknown>, digest: string, keyCheck: string, now: string, author: Author): Promise<Entry> {
    return this.entries.transaction(async (tx) => {
      const entry = await tx.insert(API_TOKENS, values, now, { digest });
      await moveGeneration(tx.tx, keyCheck);
      // The entry as GET shows it: the digest is a column beside the fields, never in it.
      tx.recordChange({ action: 'create', resource: API_TOKENS, entryId: entry.id, before: null, after: entry, secretsChanged: [] });
      return entry;
    }, author);
  }

  /** Removes a token for good, with its change record; false if there is none with this id.
   * `shown`: the entry as answers show it (with this instance's latest use), which the
   * request's If-Match names (contract section 8). */
  async revoke(id: number, author: Author, ifMatch?: string, shown: (entry: Entry) => Entry = (entry) => entry): Promise<boolean> {
    return this.entries.transaction(async (tx) => {
      const entry = await tx.lockForWrite(API_TOKENS, id);
      if (entry === undefined) return false;
      refuseUnlessIfMatchHolds(ifMatch, shown(entry));
      await tx.remove(API_TOKENS, id);
      await moveGeneration(tx.tx, undefined);
      tx.recordChange({ action: 'delete', resource: API_TOKENS, entryId: id, before: entry, after: null, secretsChanged: [] });
      return true;
    }, author);
  }

  /** Saves when tokens were last used, never moving a time back (another instance may have
   * saved a later one). In id order, so that two instances saving at once never deadlock. */
  async saveUsage(uses: readonly { id: number; at: number }[]): Promise<void> {
    if (uses.length === 0) return;
    const sorted = [...uses].sort((a, b) => a.id - b.id);
    await this.handle.transaction(async (tx) => {
      for (const { id, at } of sorted) {
        const time = new Date(at).toISOString();
        await tx
          .updateTable('api_tokens')
          .set({ last_used_at: time })
          .where('id', '=', id)
          .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', time)]))
          .execute();
      }
    });
  }
}

async function moveGeneration(tx: Kysely<Database>, keyCheck: string | undefined): Promise<void> {
  await tx
    .updateTable('api_token_state')
    .set((eb) => ({ generation: eb('generation', '+', 1), ...(keyCheck === undefined ? {} : { key_check: keyCheck }) }))
    .where('id', '=', STATE_ROW)
    .execute();
}
