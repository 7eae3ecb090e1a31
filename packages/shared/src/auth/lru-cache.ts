/**
 * A bounded least-recently-used map. Insertion order of a `Map` is its recency order: a hit moves
 * the entry to the end, and the first entry is the one to evict.
 */
export class LruCache<K, V> {
  readonly #entries = new Map<K, V>();
  readonly #capacity: number;

  /** `capacity` is the most entries kept; 0 keeps none. */
  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /** How many entries are held. */
  get size(): number {
    return this.#entries.size;
  }

  /** The entry for `key`, marked most recently used; undefined when absent. */
  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  /** Stores `value` as the most recently used entry, evicting the least recently used beyond capacity. */
  set(key: K, value: V): void {
    if (this.#capacity === 0) return;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    while (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) return;
      this.#entries.delete(oldest.value);
    }
  }

  /** Forgets `key`. */
  delete(key: K): void {
    this.#entries.delete(key);
  }
}
