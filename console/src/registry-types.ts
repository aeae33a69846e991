// What the console knows of each resource: made from the server's registry when the console
// is built (scripts/support/console-registry.ts) and imported as `console:registry`.

/** How the console shows and edits a field. */
export type ConsoleFieldKind = 'text' | 'multiline' | 'integer' | 'boolean' | 'enum' | 'reference' | 'references' | 'timestamp' | 'flag';

export interface ConsoleField {
  readonly name: string;
  readonly kind: ConsoleFieldKind;
  readonly required: boolean;
  readonly nullable: boolean;
  readonly readOnly: boolean;
  readonly writeOnly: boolean;
  readonly default?: unknown;
  readonly values?: readonly (string | number)[];
  readonly min?: number;
  readonly max?: number;
  /** The resource a reference names. */
  readonly references?: string;
  readonly description: { readonly en: string; readonly fr: string };
}

export interface ConsoleResource {
  readonly name: string;
  readonly description: { readonly en: string; readonly fr: string };
  readonly softDelete: boolean;
  /** Every field a body may carry or a response shows, in response order. */
  readonly fields: readonly ConsoleField[];
}
