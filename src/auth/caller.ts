// Who makes a request (contract section 14): the name and scope of the token it carries, or
// `anonymous` where the service runs without any token. The name is the `actor` of the
// request's log line and of the changes it makes.
export type TokenScope = 'read' | 'write' | 'admin';

/** Each includes the one before: write is read and more, admin is write and the token endpoints. */
export const TOKEN_SCOPES: readonly TokenScope[] = ['read', 'write', 'admin'];

export interface Caller {
  readonly name: string;
  readonly scope: TokenScope;
}

/** Without any token (on a loopback HOST, to a client of this machine only), the client may do everything. */
export const ANONYMOUS: Caller = { name: 'anonymous', scope: 'admin' };

/** A token's name: 1-64 characters of A-Z a-z 0-9 . _ @ -, starting with a letter or digit. */
export const TOKEN_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$';

/** Names no token may take: the name of requests without a token. */
export const RESERVED_NAMES: readonly string[] = [ANONYMOUS.name];
