/**
 * The JSON Schema of a variable table, checked with ajv (integer coercion, every error at once),
 * and ajv's errors as one sentence per problem, each naming its variable and never its value.
 */
import { Ajv, type ErrorObject } from 'ajv';
import { isHostPort } from './connection-variables.js';
import { ENV_PREFIX, type VariableSpec, type VariableTable } from './variable-spec.js';

/** A validator of the variables of `table`, keyed by their full names (`TOOLGATE_…`). */
export function validatorFor(table: VariableTable) {
  const ajv = new Ajv({ allErrors: true, coerceTypes: true, strict: true });
  ajv.addKeyword({
    keyword: 'minBytes',
    type: 'string',
    schemaType: 'number',
    validate: (min: number, data: string) => Buffer.byteLength(data, 'utf8') >= min,
    error: { message: (cxt) => `must be at least ${String(cxt.schemaValue)} bytes` },
  });
  ajv.addKeyword({
    keyword: 'hostPort',
    type: 'string',
    schemaType: 'boolean',
    validate: (_: boolean, data: string) => isHostPort(data),
    error: { message: 'must be host:port, with a port from 1 to 65535' },
  });
  const properties = Object.fromEntries(
    Object.entries(table).map(([name, spec]) => [ENV_PREFIX + name, schemaOf(spec)]),
  );
  const required = Object.entries(table)
    .filter(([, spec]) => spec.required === true)
    .map(([name]) => ENV_PREFIX + name);
  return ajv.compile({ type: 'object', properties, required });
}

function schemaOf(spec: VariableSpec): Record<string, unknown> {
  const own = spec.schema ?? {};
  switch (spec.kind) {
    case 'list': {
      // A list whose default is empty may be left empty; any other must name something.
      const empty = Array.isArray(spec.default) && spec.default.length === 0;
      return { type: 'array', minItems: empty ? 0 : 1, items: { type: 'string', ...own } };
    }
    case 'integer':
      return { type: 'integer', ...own };
    case 'string':
      return { type: 'string', ...own };
  }
}

/** One sentence per problem, naming the variable; ajv's messages never quote the value. */
export function problemsOf(errors: readonly ErrorObject[]): string[] {
  return errors.map((error) => {
    if (error.keyword === 'required') {
      return `${String(error.params['missingProperty'])} is required`;
    }
    const [name, item] = error.instancePath.split('/').slice(1);
    const where = item === undefined ? `${name}` : `${name} item ${Number(item) + 1}`;
    const allowed =
      error.keyword === 'enum'
        ? ` (${(error.params['allowedValues'] as unknown[]).join(', ')})`
        : '';
    return `${where} ${error.message ?? 'is invalid'}${allowed}`;
  });
}
