import type { JournalStorage, PendingRent } from '../../../src/core/rent/journal';
import { RentJournal } from '../../../src/core/rent/journal';
import { Renter, type RenterOptions } from '../../../src/core/rent/renter';
import { clientFor, DEMO_KEY, MemoryLogger } from '../../support';

/**
 * Extension storage as two windows share it: one list of entries (global state) and a secret store.
 * `clone` gives another window's view of the same storage.
 */
export class MemoryJournalStorage implements JournalStorage {
  entries: PendingRent[] = [];
  readonly keys = new Map<string, string>();

  read(): readonly PendingRent[] {
    return this.entries;
  }
  async write(entries: readonly PendingRent[]): Promise<void> {
    // Stored as global state stores it: a JSON copy.
    this.entries = JSON.parse(JSON.stringify(entries)) as PendingRent[];
  }
  async storeKey(label: string, key: string): Promise<void> {
    this.keys.set(label, key);
  }
  async getKey(label: string): Promise<string | undefined> {
    return this.keys.get(label);
  }
  async deleteKey(label: string): Promise<void> {
    this.keys.delete(label);
  }
}

export interface RenterKit {
  renter: Renter;
  journal: RentJournal;
  storage: MemoryJournalStorage;
  logger: MemoryLogger;
}

/** A renter as the extension builds it, with short waits so tests stay fast. */
export function renterFor(
  options: Partial<RenterOptions> & { storage?: MemoryJournalStorage; owner?: string; timeoutMs?: number } = {},
): RenterKit {
  const storage = options.storage ?? new MemoryJournalStorage();
  const journal = new RentJournal(storage, options.owner ?? 'window-a', options.now);
  const logger = new MemoryLogger();
  const renter = new Renter({
    journal,
    createClient: (baseUrl, getKey) => clientFor(baseUrl, getKey(), { maxAttempts: 2, timeoutMs: options.timeoutMs ?? 5_000 }).client,
    logger,
    windowMs: 1_500,
    lookDelaysMs: [0, 100, 200, 400],
    ...options,
  });
  return { renter, journal, storage, logger };
}

export function accountAt(url: string, key = DEMO_KEY) {
  return { baseUrl: url, profileId: 'default', key };
}

/** Resolves with the next settlement the renter announces. */
export function nextSettlement(renter: Renter) {
  return new Promise<Parameters<Parameters<Renter['onDidSettle']>[0]>[0]>((resolve) => {
    const sub = renter.onDidSettle((s) => {
      sub.dispose();
      resolve(s);
    });
  });
}
