/**
 * The cursors of the approval API's pages. Both `GET /pending` and `GET /decided` walk a list
 * ordered by a time in milliseconds and then a confirmation id, so one codec serves both; each
 * names its time field. A cursor only says where to resume within the caller's own tenant's list
 * (the tenant comes from the session), so a forged one can move nothing but the caller's own place.
 */

/** Longest confirmation id a cursor may name. */
const MAX_CURSOR_ID = 256;

/** A place in a list: the time field `K` (whole milliseconds, at least 0) and a confirmation id. */
export type CursorPosition<K extends string> = { readonly [key in K]: number } & {
  readonly confirmationId: string;
};

/** Turns positions into opaque cursors and back. */
export interface PageCursor<K extends string> {
  /** The position as base64url of `[time, confirmationId]`. */
  encode(position: CursorPosition<K>): string;
  /** The position a cursor names, or undefined when it is not one `encode` could have made. */
  decode(cursor: string): CursorPosition<K> | undefined;
}

/** The cursor codec of a list ordered by the time field `timeField`, then confirmation id. */
export function pageCursor<K extends string>(timeField: K): PageCursor<K> {
  const positionOf = (time: number, confirmationId: string) =>
    ({ [timeField]: time, confirmationId }) as CursorPosition<K>;
  const encode = (position: CursorPosition<K>) =>
    Buffer.from(JSON.stringify([position[timeField], position.confirmationId])).toString(
      'base64url',
    );
  const decode = (cursor: string) => {
    const pair = pairOf(cursor);
    if (pair === undefined) return undefined;
    const position = positionOf(...pair);
    return encode(position) === cursor ? position : undefined;
  };
  return { encode, decode };
}

/** The `[time, confirmationId]` a cursor holds, or undefined when it holds anything else. */
function pairOf(cursor: string): [number, string] | undefined {
  if (cursor.length > 2 * MAX_CURSOR_ID || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(value) || value.length !== 2) return undefined;
  const [time, confirmationId] = value as unknown[];
  if (typeof time !== 'number' || !Number.isSafeInteger(time) || time < 0) return undefined;
  if (
    typeof confirmationId !== 'string' ||
    confirmationId === '' ||
    confirmationId.length > MAX_CURSOR_ID
  ) {
    return undefined;
  }
  return [time, confirmationId];
}
