/**
 * The ceilings and key rules of the parser, applied to arguments that arrive already structured
 * (Anthropic `input`, MCP `arguments`, the bare action's `arguments`).
 */
import { accept, rejecterFor, type Decision, type Rejected } from '../decision.js';
import { FORBIDDEN_KEYS } from './json-reader.js';
import type { ParseLimits } from './parse-limits.js';
import { quoteKey, tooLarge } from './refusals.js';
import { oversizeBytes } from './utf8-length.js';

const reject = rejecterFor('representation');

/** A surrogate code unit without its partner (the `u` flag makes a proper pair one code point). */
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * Checks a structured value as `parseJsonBounded` checks a text: JSON values only (no undefined,
 * functions, NaN, class instances, holes), at most `maxDepth` nested containers, no forbidden key,
 * at most `maxBytes` of UTF-8 in its compact serialization. Returns a fresh copy of plain objects
 * and arrays, so that nothing the caller holds (getters, prototypes, later mutation) reaches the
 * rungs after this one.
 */
export function checkJsonTree(
  value: unknown,
  limits: ParseLimits,
): Decision<unknown, 'representation'> {
  try {
    const copy = new TreeCopy(limits).value(value, 0);
    const bytes = oversizeBytes(JSON.stringify(copy), limits.maxBytes);
    return bytes === undefined ? accept(copy) : tooLarge(bytes, limits.maxBytes);
  } catch (signal) {
    if (signal instanceof TreeStop) return signal.refusal;
    throw signal;
  }
}

/** The walk's private stop signal; caught in `checkJsonTree`, it never leaves this module. */
class TreeStop extends Error {
  constructor(readonly refusal: Rejected<'representation'>) {
    super(refusal.internalDetail);
  }
}

class TreeCopy {
  /** A lower bound of the serialized size, so that a huge value is abandoned early. */
  private bytes = 0;

  constructor(private readonly limits: ParseLimits) {}

  value(v: unknown, depth: number): unknown {
    if (v === null || typeof v === 'boolean') return this.counted(4, v);
    if (typeof v === 'number') return this.number(v);
    if (typeof v === 'string') return this.string(v);
    if (Array.isArray(v)) return this.array(v, depth + 1);
    if (isPlainObject(v)) return this.object(v, depth + 1);
    return this.stop(
      reject(
        'invalid_json',
        NOT_JSON,
        `a ${describe(v)} at depth ${String(depth)} is not a JSON value`,
      ),
    );
  }

  private number(v: number): number {
    if (Number.isFinite(v)) return this.counted(1, v);
    return this.stop(
      reject('unrepresentable_number', undefined, `${String(v)} is not a JSON number`),
    );
  }

  private string(v: string): string {
    if (LONE_SURROGATE.test(v)) {
      this.stop(reject('invalid_json', NOT_JSON, 'a string with an unpaired surrogate'));
    }
    return this.counted(v.length + 2, v);
  }

  private array(v: readonly unknown[], depth: number): unknown[] {
    this.enter(depth, 2);
    const copy: unknown[] = [];
    for (let i = 0; i < v.length; i++) copy.push(this.value(v[i], depth));
    return copy;
  }

  private object(v: object, depth: number): Record<string, unknown> {
    this.enter(depth, 2);
    const copy: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(v)) {
      if (FORBIDDEN_KEYS.has(key)) {
        this.stop(
          reject('forbidden_key', undefined, `key ${quoteKey(key)} at depth ${String(depth)}`),
        );
      }
      this.counted(key.length + 3, undefined);
      // Safe: `__proto__` was refused just above, so assignment only creates an own property.
      copy[key] = this.value(member, depth);
    }
    return copy;
  }

  private enter(depth: number, bytes: number): void {
    if (!(depth <= this.limits.maxDepth)) {
      this.stop(
        reject('too_deep', undefined, `nesting deeper than ${String(this.limits.maxDepth)}`),
      );
    }
    this.counted(bytes, undefined);
  }

  private counted<T>(bytes: number, v: T): T {
    this.bytes += bytes;
    if (!(this.bytes <= this.limits.maxBytes))
      this.stop(tooLarge(this.bytes, this.limits.maxBytes));
    return v;
  }

  private stop(refusal: Rejected<'representation'>): never {
    throw new TreeStop(refusal);
  }
}

const NOT_JSON = 'The tool call arguments contain a value that is not JSON.';

function isPlainObject(v: unknown): v is object {
  if (typeof v !== 'object' || v === null) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function describe(v: unknown): string {
  return typeof v === 'object' ? Object.prototype.toString.call(v) : typeof v;
}
