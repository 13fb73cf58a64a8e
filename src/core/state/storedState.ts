/**
 * Stored state: typed access to global state over a catalog of keys it is handed. It knows no area
 * of src/core: each area owns the readers of the values it keeps, and src/core/stored.ts, above
 * them all, names every key (STORED). A module below that catalog names the keys it uses and what
 * they hold (StoredAccess), and is handed the one StoredState.
 */
import type { Logger } from '../log';
import { ReadError, type Reader } from './readers';

/** What VS Code's Memento offers; globalState fits it, and tests pass a Map-backed one. */
export interface KeyValueStore {
  get(key: string): unknown;
  update(key: string, value: unknown): PromiseLike<void>;
  keys?(): readonly string[];
}

/** One stored key: where it lives, what it holds, what a missing value reads as, and how an older shape becomes today's. */
export interface StoredSpec<T> {
  /** The key in global state. It never changes: existing installs keep their state under it. */
  readonly key: string;
  /** Reads the stored value, or throws a ReadError (src/core/state/readers.ts). */
  readonly read: Reader<T>;
  readonly default: T;
  /** Turns a value stored by an older version into one `read` accepts; only tried when `read` rejects the value. */
  readonly migrate?: (old: unknown) => unknown;
}

/** A stored key's spec; `migrate` only where an older shape exists. */
export function storedSpec<T>(key: string, read: Reader<T>, fallback: T, migrate?: (old: unknown) => unknown): StoredSpec<T> {
  return migrate ? { key, read, default: fallback, migrate } : { key, read, default: fallback };
}

/** A catalog of stored keys by name, such as STORED (src/core/stored.ts). */
export type StoredSpecs = Readonly<Record<string, StoredSpec<unknown>>>;

/** What each key of a catalog holds, as read and as written. */
export type StoredValues<C extends StoredSpecs> = { [K in keyof C]: C[K]['default'] };

/**
 * Some stored keys, by what each holds: what a module below the catalog asks for, such as
 * `StoredAccess<{ signedOut: string[] }>`. StoredState fits it when its catalog has those keys with
 * those values, so the module never imports the catalog.
 */
export interface StoredAccess<V> {
  get<K extends keyof V & string>(key: K): V[K];
  update<K extends keyof V & string>(key: K, value: V[K] | undefined): Promise<void>;
  change<K extends keyof V & string>(key: K, edit: (current: V[K]) => V[K] | undefined): Promise<V[K] | undefined>;
}

/** A stored value read against its spec: the value; whether it was migrated; why it was not readable, if it was not. */
export interface StoredRead<T> {
  value: T;
  migrated?: true;
  problem?: string;
}

/**
 * Reads one raw stored value: missing → the default; readable → read; rejected but migratable →
 * the migrated value; anything else → the default, with the reason.
 */
export function readStored<T>(spec: StoredSpec<T>, raw: unknown): StoredRead<T> {
  if (raw === undefined) return { value: structuredClone(spec.default) };
  const first = attempt(spec.read, raw);
  if (first.ok) return { value: first.value };
  if (spec.migrate) {
    const migrated = attempt(spec.read, spec.migrate(raw));
    if (migrated.ok) return { value: migrated.value, migrated: true };
  }
  return { value: structuredClone(spec.default), problem: first.problem };
}

/** Runs a reader; a ReadError becomes its reason (where and why, without the value itself: it may be anything a user had stored). */
function attempt<T>(read: Reader<T>, raw: unknown): { ok: true; value: T } | { ok: false; problem: string } {
  try {
    return { ok: true, value: read(raw) };
  } catch (error) {
    if (error instanceof ReadError) return { ok: false, problem: error.message };
    throw error;
  }
}

/** How often a write that a concurrent write undid is made again before it is given up (with a warning). */
const WRITE_ATTEMPTS = 3;

/** Whether two stored values are the same once stored (global state keeps JSON). */
const sameStored = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Typed access to global state over the catalog `specs`. Every read is parsed against the key's
 * reader, so a value damaged or written by another version never reaches the code as the wrong
 * type: an older shape is migrated, anything else reads as the default (logged once per key).
 *
 * Writes go to global state one at a time, and each is read back once it has landed. VS Code's
 * global state (1.139) writes in a timer after `update`, and replaces its whole in-memory copy
 * with every change the workbench reports back, its own earlier writes included. A write made
 * while an earlier one was still on its way could be replaced by that earlier copy and lost, with
 * `update` resolving all the same: a profile just added, or a rent's journal entry. One write at a
 * time leaves no earlier copy on its way; a write that another window's change undid anyway is
 * made again. A write waiting for its turn is what reads of its key give meanwhile.
 */
export class StoredState<C extends StoredSpecs> implements StoredAccess<StoredValues<C>> {
  private readonly warned = new Set<keyof C>();
  /** Resolves when the writes begun so far have landed; undefined while none is on its way. */
  private tail: Promise<void> | undefined;
  /** Per global-state key, the latest value waiting for its turn to be written. */
  private readonly waiting = new Map<string, { value: unknown }>();

  constructor(
    private readonly specs: C,
    private readonly store: KeyValueStore,
    private readonly logger?: Logger,
  ) {}

  get<K extends keyof C & string>(key: K): StoredValues<C>[K] {
    const spec = this.specs[key] as StoredSpec<StoredValues<C>[K]>;
    const waiting = this.waiting.get(spec.key);
    const read = readStored(spec, waiting ? structuredClone(waiting.value) : this.store.get(spec.key));
    if (read.problem !== undefined && !this.warned.has(key)) {
      this.warned.add(key);
      this.logger?.warn(`Stored ${spec.key} could not be read (${read.problem}); using the default until it is written again.`);
    }
    return read.value;
  }

  /**
   * Stores a value; `undefined` removes the key, and reads give the default again. Reads give the
   * new value at once; the promise resolves once global state holds it.
   */
  update<K extends keyof C & string>(key: K, value: StoredValues<C>[K] | undefined): Promise<void> {
    const storeKey = this.specs[key]!.key;
    let written: Promise<void>;
    if (this.tail === undefined) {
      written = this.write(storeKey, value);
    } else {
      let entry: { value: unknown };
      try {
        entry = { value: structuredClone(value) };
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
      this.waiting.set(storeKey, entry);
      written = this.tail
        .then(() => this.write(storeKey, entry.value))
        .finally(() => {
          if (this.waiting.get(storeKey) === entry) this.waiting.delete(storeKey);
        });
    }
    const tail = written.then(
      () => undefined,
      () => undefined,
    );
    this.tail = tail;
    void tail.then(() => {
      if (this.tail === tail) this.tail = undefined;
    });
    return written;
  }

  /**
   * Reads, edits and writes one key; resolves with what was written. The read and the write are
   * one synchronous step as far as this window goes (a write waiting for its turn is what the read
   * gives), so two changes of this window never lose each other's edit. Windows are not locked
   * against each other: global state has no compare-and-set.
   */
  async change<K extends keyof C & string>(
    key: K,
    edit: (current: StoredValues<C>[K]) => StoredValues<C>[K] | undefined,
  ): Promise<StoredValues<C>[K] | undefined> {
    const next = edit(this.get(key));
    await this.update(key, next);
    return next;
  }

  /** Writes one value and reads it back; writes it again when a concurrent write undid it. */
  private async write(storeKey: string, value: unknown): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      await this.store.update(storeKey, value);
      if (sameStored(this.store.get(storeKey), value)) return;
      if (attempt === WRITE_ATTEMPTS) {
        this.logger?.warn(`Stored ${storeKey} was changed back by another write ${attempt} times; leaving that value.`);
        return;
      }
      this.logger?.debug(`Stored ${storeKey} was undone by a concurrent write; writing it again.`);
    }
  }
}
