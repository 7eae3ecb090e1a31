/**
 * How a table of `TOOLGATE_*` variables is declared, and the configuration type it yields. Apart
 * from `config.ts`, so that Kafka's own variables (`kafka/kafka-security.ts`) are declared the
 * same way without importing the configuration that includes them.
 */

/** Every configuration variable starts with this. */
export const ENV_PREFIX = 'TOOLGATE_';

/** How a variable's text becomes a value: as is, as an integer, or as a comma-separated list. */
export type VariableKind = 'string' | 'integer' | 'list';

type ValueOfKind<K extends VariableKind> = K extends 'integer'
  ? number
  : K extends 'list'
    ? readonly string[]
    : string;

/** One environment variable (its name without the `TOOLGATE_` prefix is the table key). */
export interface VariableSpec {
  /** The property of the loaded configuration. */
  readonly key: string;
  readonly kind: VariableKind;
  /** Used when the variable is unset or empty; a function is called once per load. */
  readonly default?: string | number | readonly string[] | (() => string);
  /** The default as the documentation shows it, when it is computed. */
  readonly defaultText?: string;
  /** Unset (and no default) is a problem. */
  readonly required?: true;
  /** Never echoed in problems, logs or `describeConfig`. */
  readonly secret?: true;
  /** Further JSON Schema keywords for the value (for a list: for each item). */
  readonly schema?: Readonly<Record<string, unknown>>;
  /** One or two sentences: what it sets, its unit. */
  readonly description: string;
}

/** Variables by name without the prefix. */
export type VariableTable = Readonly<Record<string, VariableSpec>>;

type Always<S> = S extends { readonly required: true } | { readonly default: unknown } ? S : never;

/** The configuration type a table yields: variables with a default or required are present. */
export type ConfigOf<T extends VariableTable> = {
  readonly [N in keyof T as T[N] extends Always<T[N]> ? T[N]['key'] : never]: ValueOfKind<
    T[N]['kind']
  >;
} & {
  readonly [N in keyof T as T[N] extends Always<T[N]> ? never : T[N]['key']]?: ValueOfKind<
    T[N]['kind']
  >;
};
