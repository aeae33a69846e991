// Creating a managed API token, the one way for the API (POST /{lang}/api/tokens) and for
// `npm run token:create` alike: the body is checked as any entry's is (422), the expiry must
// lie ahead (422), the name must be free, of the environment tokens' names and `anonymous`
// too (409); then a secret is made, and only its keyed digest is stored. The secret is handed
// back to be shown once, and kept nowhere.
import { RESERVED_NAMES } from '../auth/caller.js';
import { fieldProblem, validationFailed } from '../errors/api-error.js';
import { newTokenSecret, type TokenDigester } from '../secrets/token-secrets.js';
import { API_TOKENS } from '../store/api-token-definition.js';
import type { Author } from '../store/change-log.js';
import type { Entry } from '../store/entry-rows.js';
import { UniqueConflict } from '../store/unique-rules.js';
import type { TokenStore } from '../store/token-store.js';
import { validateBody } from './validate-body.js';

export interface IssuedToken {
  readonly entry: Entry;
  /** The secret: to show once, in the answer that creates it. */
  readonly token: string;
  /** Its keyed digest, as stored. */
  readonly digest: string;
}

/** The plan's part: the body's values in canonical form, the expiry ahead. */
export function tokenValues(body: unknown): Readonly<Record<string, unknown>> {
  const { values } = validateBody(API_TOKENS, body, 'create');
  const expiresAt = values.expires_at as string | null;
  if (expiresAt !== null && Date.parse(expiresAt) <= Date.now()) throw validationFailed([fieldProblem('expires_at', 'field.expiryPast')]);
  return values;
}

/** The execution's part: the name free, a secret made, its digest stored. */
export async function storeToken(
  store: TokenStore,
  digester: TokenDigester,
  values: Readonly<Record<string, unknown>>,
  environmentNames: ReadonlySet<string>,
  author: Author,
): Promise<IssuedToken> {
  const name = values.name as string;
  // The same 409 as a name another managed token holds (the one unique rule, on name).
  if (environmentNames.has(name) || RESERVED_NAMES.includes(name)) throw new UniqueConflict(API_TOKENS.unique).problem();
  const token = newTokenSecret();
  const digest = digester.digest(token);
  try {
    const entry = await store.issue({ ...values }, digest, digester.keyCheck, new Date().toISOString(), author);
    return { entry, token, digest };
  } catch (error) {
    throw error instanceof UniqueConflict ? error.problem() : error;
  }
}

export async function issueToken(store: TokenStore, digester: TokenDigester, body: unknown, environmentNames: ReadonlySet<string>, author: Author): Promise<IssuedToken> {
  return storeToken(store, digester, tokenValues(body), environmentNames, author);
}
