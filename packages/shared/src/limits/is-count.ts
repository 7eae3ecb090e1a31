/** A non-negative safe integer: what a counter, an attempt number or a budget must be. */
export function isCount(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 0;
}
