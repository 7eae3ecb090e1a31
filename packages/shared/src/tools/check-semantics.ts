/**
 * The semantics rung: are the values meaningful? Runs the tool's own check after the schema passed.
 */
import { accept, rejecterFor, type Decision } from '../decision.js';
import type { CheckedCall } from './check-schema.js';

const reject = rejecterFor('semantics');

/**
 * Runs `spec.semantics` on the checked arguments and refuses with the issue's catalogue code and
 * public message; accepts when the tool declares no check or the check finds nothing. A check
 * that throws is a deployment bug and propagates as a fault, like any other.
 */
export function checkSemantics(call: CheckedCall): Decision<CheckedCall, 'semantics'> {
  const issue = call.tool.spec.semantics?.(call.args);
  if (issue === undefined) return accept(call);
  return reject(
    issue.code,
    issue.message,
    `tool ${call.tool.name}@${call.tool.spec.version}: ${issue.code}`,
  );
}
