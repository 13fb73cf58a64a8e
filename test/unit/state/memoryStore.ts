import type { KeyValueStore } from '../../../src/core/state/storedState';

/**
 * Global state as VS Code keeps it, in a Map: an update is visible to the next read at once, and
 * `undefined` removes the key. Two StoredStates over one MemoryStore are two windows.
 */
export class MemoryStore implements KeyValueStore {
  readonly values = new Map<string, unknown>();
  /** Every write, in order, for tests that check what reached storage. */
  readonly writes: Array<[string, unknown]> = [];

  constructor(initial: Record<string, unknown> = {}) {
    for (const [key, value] of Object.entries(initial)) this.values.set(key, value);
  }

  get(key: string): unknown {
    // A copy, as a Memento's stored JSON is: a reader cannot change what is stored by mutating it.
    return structuredClone(this.values.get(key));
  }

  update(key: string, value: unknown): Promise<void> {
    this.writes.push([key, value]);
    if (value === undefined) this.values.delete(key);
    else this.values.set(key, structuredClone(value));
    return Promise.resolve();
  }

  keys(): readonly string[] {
    return [...this.values.keys()];
  }
}
