/** Checks a message against its topic's schema, with the gate's own validator configuration. */
import type { ErrorObject } from 'ajv';
import { createValidator } from '../tools/index.js';
import { MESSAGE_SCHEMAS, MESSAGE_TOPICS, type MessageTopic } from './schemas.js';

/** Returns every problem of `value` as a message of `topic`; empty when it conforms. */
export type MessageChecker = (topic: MessageTopic, value: unknown) => readonly string[];

/**
 * Compiles {@link MESSAGE_SCHEMAS} once with `createValidator()` (Ajv2020, strict, formats
 * asserted) and returns a checker. Problems name the path and the failed keyword
 * (`/outcome: enum`), never the offending value, so they can be logged. Compiling all the
 * schemas took about 0.6 s on the dev machine (checking a message then takes microseconds): create
 * one checker per process. Throws if a schema is not strict-valid, which a
 * unit test rules out.
 */
export function createMessageChecker(): MessageChecker {
  const ajv = createValidator();
  const validators = new Map(MESSAGE_TOPICS.map((t) => [t, ajv.compile(MESSAGE_SCHEMAS[t])]));
  return (topic, value) => {
    const validate = validators.get(topic);
    if (validate === undefined) return [`no schema for topic ${String(topic)}`];
    return validate(value) ? [] : (validate.errors ?? []).map(describe);
  };
}

function describe(e: ErrorObject): string {
  const where = e.instancePath === '' ? '/' : e.instancePath;
  const which =
    e.keyword === 'required' || e.keyword === 'dependentRequired'
      ? ` ${String((e.params as { missingProperty?: unknown }).missingProperty)}`
      : e.keyword === 'additionalProperties'
        ? ` ${String((e.params as { additionalProperty?: unknown }).additionalProperty)}`
        : '';
  return `${where}: ${e.keyword}${which}`;
}
