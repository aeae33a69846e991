// The console's one way to the service: the public API under /{lang}/api, with the token of
// the tab's session storage (if any) as a bearer token. A 401 anywhere signs the tab out and
// says why (the problem's detail: expired, revoked, unknown).

export interface FieldProblem {
  readonly field?: string;
  readonly index?: number;
  readonly message: string;
}

/** A problem+json answer (contract section 6), or a network failure (status 0). */
export class Problem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly errors: readonly FieldProblem[] = [],
    readonly body: Record<string, unknown> = {},
  ) {
    super(detail);
  }
}

export interface Answer<T> {
  readonly status: number;
  readonly body: T;
  readonly headers: Headers;
}

const TOKEN_KEY = 'pmacontrol-console-token';

export const session = {
  token(): string | null {
    return sessionStorage.getItem(TOKEN_KEY);
  },
  keep(token: string): void {
    sessionStorage.setItem(TOKEN_KEY, token);
  },
  forget(): void {
    sessionStorage.removeItem(TOKEN_KEY);
  },
};

let onUnauthorized: (detail: string) => void = () => undefined;

/** What the application does on a 401: back to sign-in, with the reason. */
export function whenUnauthorized(handler: (detail: string) => void): void {
  onUnauthorized = handler;
}

let lang = 'en';
export function useLanguagePath(segment: string): void {
  lang = segment;
}
export function apiPath(path: string): string {
  return `/${lang}/api${path}`;
}

export interface RequestOptions {
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  readonly signal?: AbortSignal;
  /** Tried with this token instead of the session's (sign-in). */
  readonly token?: string | null;
}

export function authorization(token: string | null = session.token()): Record<string, string> {
  return token === null ? {} : { authorization: `Bearer ${token}` };
}

async function problemOf(response: Response): Promise<Problem> {
  let body: Record<string, unknown> = {};
  try {
    body = (await response.json()) as Record<string, unknown>;
  } catch {
    // An answer that is not JSON: the status alone says what happened.
  }
  const errors = Array.isArray(body.errors) ? (body.errors as FieldProblem[]) : [];
  return new Problem(response.status, String(body.code ?? response.status), String(body.detail ?? response.statusText), errors, body);
}

// The writes this tab sent, by the X-Request-Id it gave them (the service keeps a caller's id
// and writes it into the change record): the change stream tells them from changes made
// elsewhere. Made before the request leaves, so a record never arrives before its id is known.
const sentIds: string[] = [];

/** Whether a change record's request was sent by this tab. */
export function sentHere(requestId: string): boolean {
  return sentIds.includes(requestId);
}

function newRequestId(): string {
  // getRandomValues, not randomUUID: the console may be served over plain HTTP (not a secure context).
  const id = `console-${Array.from(crypto.getRandomValues(new Uint8Array(12)), (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
  sentIds.push(id);
  if (sentIds.length > 200) sentIds.shift();
  return id;
}

export async function request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<Answer<T>> {
  const headers: Record<string, string> = { accept: 'application/json', ...authorization(options.token === undefined ? session.token() : options.token), ...options.headers };
  if (method !== 'GET') headers['x-request-id'] = newRequestId();
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(apiPath(path), {
      method,
      headers,
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      cache: 'no-store',
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new Problem(0, 'NETWORK', '');
  }
  if (!response.ok) {
    const problem = await problemOf(response);
    // A sign-in attempt reports its own refusal.
    if (problem.status === 401 && options.token === undefined) onUnauthorized(problem.detail);
    throw problem;
  }
  const text = await response.text();
  return { status: response.status, body: (text === '' ? undefined : JSON.parse(text)) as T, headers: response.headers };
}

/** A query string from the values that are set; arrays repeat their parameter. */
export function query(values: Record<string, string | number | boolean | null | undefined | readonly (string | number)[]>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined || value === null || value === '') continue;
    if (Array.isArray(value)) for (const one of value) search.append(name, String(one));
    else search.set(name, String(value));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

/** The most entries one list answer holds (the API's `limit` maximum). */
export const LIST_LIMIT_MAX = 1000;

export interface ListAnswer<T> {
  items: T[];
  total: number;
  total_exact?: boolean;
  limit: number;
  offset: number;
  next?: string | null;
}

export type Entry = Record<string, unknown> & { id: number };

export interface ChangeRecord {
  id: number;
  at: string;
  action: 'create' | 'update' | 'delete' | 'restore';
  resource: string;
  entry_id: number;
  actor: string;
  request_id: string;
  before: Entry | null;
  after: Entry | null;
  secrets_changed: string[];
}
