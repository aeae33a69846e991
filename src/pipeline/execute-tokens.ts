// Execute step of the token endpoints (contract section 14). The token entries go through
// the registry-driven store like any entry; what is the tokens' own is the process's token
// index, kept in step here at once (a revocation holds from its commit on, token-sync.ts),
// and the last use this process knows, newer than the stored one.
import { entryNotFound } from '../errors/api-error.js';
import type { TokenDigester } from '../secrets/token-secrets.js';
import { API_TOKENS } from '../store/api-token-definition.js';
import type { Entry } from '../store/entry-rows.js';
import type { ListPage } from '../store/resource-store.js';
import type { TokenSync } from '../store/token-sync.js';
import { storeToken, type IssuedToken } from './issue-token.js';
import type { IssueTokenPlan, TokenPlan } from './plan.js';

/** What the token endpoints need beyond the store. */
export interface TokenContext {
  readonly sync: TokenSync;
  readonly digester: TokenDigester;
  /** The names of the tokens given by the environment: no managed token may take one. */
  readonly environmentNames: ReadonlySet<string>;
}

export type TokenResult =
  | { readonly action: 'list-tokens'; readonly plan: Extract<TokenPlan, { action: 'list-tokens' }>; readonly page: ListPage }
  | { readonly action: 'read-token'; readonly plan: Extract<TokenPlan, { action: 'read-token' }>; readonly entry: Entry }
  | { readonly action: 'issue-token'; readonly plan: IssueTokenPlan; readonly issued: IssuedToken }
  | { readonly action: 'revoke-token'; readonly plan: Extract<TokenPlan, { action: 'revoke-token' }> };

const notFound = (id: number) => entryNotFound(API_TOKENS.name, id);

export async function executeTokenPlan(tokens: TokenContext, plan: TokenPlan): Promise<TokenResult> {
  const { sync } = tokens;
  const { store } = sync;
  switch (plan.action) {
    case 'list-tokens': {
      const page = await store.entries.list(API_TOKENS, plan.list);
      return { action: 'list-tokens', plan, page: { ...page, items: page.items.map((entry) => sync.withLastUse(entry)) } };
    }
    case 'read-token': {
      const entry = await store.entries.read(API_TOKENS, plan.id);
      if (entry === undefined) throw notFound(plan.id);
      return { action: 'read-token', plan, entry: sync.withLastUse(entry) };
    }
    case 'issue-token': {
      const issued = await storeToken(store, tokens.digester, plan.values, tokens.environmentNames, plan.author);
      sync.issued(issued.entry, issued.digest);
      return { action: 'issue-token', plan, issued };
    }
    case 'revoke-token':
      if (!(await store.revoke(plan.id, plan.author, plan.ifMatch, (entry) => sync.withLastUse(entry)))) throw notFound(plan.id);
      sync.revoked(plan.id);
      return { action: 'revoke-token', plan };
  }
}
