/**
 * Reading back a page of a list: the reply of a page script (page-pending-confirmations.lua,
 * page-decided.lua), `{more, id, score, id, score, ...}`, checked as everything the store wrote is
 * checked, and the records behind it, of which one that cannot be read hides none of the rest.
 */
import { Fault } from '../fault.js';
import { corrupt, STORE_FAULTS } from './store-faults.js';

/** The positions a page script answered, in its order, and whether entries remain past them. */
export interface PageWindow {
  readonly positions: readonly { readonly score: number; readonly id: string }[];
  readonly more: boolean;
}

/**
 * The window in `reply`, read from the sorted set `index`; `what` names the list in the
 * `store_corrupt` fault raised when the reply is not what the script returns.
 */
export function pageWindow(reply: unknown, index: string, what: string): PageWindow {
  const [more, ...flat] = Array.isArray(reply) ? (reply as unknown[]) : [];
  if (more !== 0 && more !== 1) throw corrupt(`${what} window`, index);
  const positions: { score: number; id: string }[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const [id, score] = [flat[i], Number(flat[i + 1])];
    if (typeof id !== 'string' || !Number.isSafeInteger(score)) {
      throw corrupt(`${what} index`, index);
    }
    positions.push({ score, id });
  }
  return { positions, more: more === 1 };
}

/**
 * What `read` reads, or undefined when what it read is not what the gate wrote (a `store_corrupt`
 * fault): so that one record that cannot be read hides none of the rest of a listing.
 */
export function unlessCorrupt<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch (error) {
    if (error instanceof Fault && error.code === STORE_FAULTS.corrupt) return undefined;
    throw error;
  }
}
