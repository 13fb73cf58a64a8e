import type { GpuRentalClient } from '../api/client';
import { ApiError } from '../api/errors';
import { createRefusal, type CreateRefusal } from '../api/createRefusal';
import type { CreateInstanceRequest, Instance } from '../api/instances';
import { Emitter, type Disposable } from '../events';
import type { Logger } from '../log';
import { LEASE_MS, type PendingRent, type RentJournal } from './journal';
import { l10n } from '../l10n';

/** The account a rent goes to, fixed when the rent starts: later key or setting changes do not move it. */
export interface RentAccount {
  /** Normalized base URL. */
  baseUrl: string;
  profileId: string;
  key: string;
  /** The account's e-mail, for messages. */
  account?: string;
}

export interface RentInfo {
  /** "RTX 4090 ×2 in NL". */
  description: string;
  perHour: number;
}

export type RentOutcome =
  /** The service answered: this instance was made. */
  | { kind: 'created'; instanceId: number }
  /** The offer was taken or withdrawn meanwhile: the service's answer names the offer as gone, nothing was made. */
  | { kind: 'unavailable'; error: ApiError }
  /**
   * The service refused the rent (or it never reached the service): nothing was made. `missing`: the
   * answer says the template or volume the rent named does not exist; the offer itself may be free.
   */
  | { kind: 'refused'; error: ApiError; missing?: RentMissing }
  /** No readable answer: the instance may exist. The journal entry is being checked. */
  | { kind: 'uncertain'; entry: PendingRent; error: unknown }
  /** An earlier rent on this account is still unsettled: nothing was sent. */
  | { kind: 'unsettled'; pending: PendingRent[] }
  /** Another rent is on its way in this window: nothing was sent. */
  | { kind: 'busy' };

/** A template or volume a refused rent named that the service says does not exist. */
export type RentMissing = Exclude<CreateRefusal, { kind: 'offer' }>;

export type Settlement =
  /** The instance exists: it was found in the account by its label. */
  | { kind: 'found'; entry: PendingRent; instanceId: number }
  /** The account was read after the service could still have made it, and it was not there. */
  | { kind: 'notCreated'; entry: PendingRent; checkedAt: number }
  /** The key the rent was sent with is gone from the secret store: the account cannot be checked. */
  | { kind: 'unknowable'; entry: PendingRent };

export interface RenterOptions {
  journal: RentJournal;
  /** A client bound to one base URL and one key. */
  createClient: (baseUrl: string, getApiKey: () => string | undefined) => GpuRentalClient;
  logger: Logger;
  /**
   * How long after the request the service could still make the instance: "not made" is said only
   * after the account was read past this. A create can complete long after its answer was lost.
   */
  windowMs?: number;
  /** Waits between looks at the account; the last one repeats. */
  lookDelaysMs?: readonly number[];
  now?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  random?: () => number;
}

export const DEFAULT_WINDOW_MS = 5 * 60_000;
const DEFAULT_LOOK_DELAYS_MS = [0, 1_000, 2_000, 4_000, 8_000, 15_000];

/**
 * Rents one offer at a time and never sends a create twice. The rent is written in the journal
 * before it is sent; any answer other than a readable success or a clear refusal leaves it
 * uncertain, and it is settled by reading the account it was sent to (with the key it was sent
 * with) for the label it carried, also after a reload or in another window.
 */
export class Renter implements Disposable {
  private inFlight = false;
  private readonly settling = new Map<string, AbortController>();
  private readonly settled = new Emitter<Settlement>();
  /** Fires once per pending rent whose outcome became known in this window. */
  readonly onDidSettle = this.settled.event;
  private readonly now: () => number;
  private disposed = false;

  constructor(private readonly options: RenterOptions) {
    this.now = options.now ?? Date.now;
  }

  get busy(): boolean {
    return this.inFlight;
  }

  get journal(): RentJournal {
    return this.options.journal;
  }

  /** A label unique enough to find this rent's instance again; used when the user gives none. */
  uniqueLabel(prefix = 'gpu-rental'): string {
    const random = this.options.random ?? Math.random;
    return `${prefix}-${Math.floor(random() * 0xffffffff)
      .toString(16)
      .padStart(8, '0')}`;
  }

  async rent(
    account: RentAccount,
    offer: { id: number; machine_id?: number | null },
    request: CreateInstanceRequest & { label: string },
    info: RentInfo,
  ): Promise<RentOutcome> {
    if (this.inFlight) return { kind: 'busy' };
    const pending = this.journal.for(account.baseUrl, account.profileId);
    if (pending.length > 0) return { kind: 'unsettled', pending };
    this.inFlight = true;
    try {
      const key = account.key;
      const client = this.options.createClient(account.baseUrl, () => key);
      // The ids that exist now, so that the label can only ever match a new instance. If this
      // read fails, nothing has been sent yet.
      const before = (await client.instances.list()).map((i) => i.id);
      if (this.journal.for(account.baseUrl, account.profileId).length > 0)
        return { kind: 'unsettled', pending: this.journal.for(account.baseUrl, account.profileId) };
      const entry = await this.journal.begin(
        {
          label: request.label,
          offerId: offer.id,
          machineId: offer.machine_id,
          description: info.description,
          perHour: info.perHour,
          profileId: account.profileId,
          baseUrl: account.baseUrl,
          account: account.account,
          before,
        },
        key,
      );
      const renewal = setInterval(() => void this.journal.renew(entry.label), LEASE_MS / 3);
      try {
        const created = await client.instances.create(offer.id, request);
        // A window that closed meanwhile has handed the entry on (its lease released): the window
        // that took it over settles it and tells the user.
        if (this.disposed) return { kind: 'uncertain', entry, error: new Error(l10n.t('the window closed before the answer arrived')) };
        await this.journal.settle(entry.label);
        this.options.logger.info(`Rented offer ${offer.id}: instance ${created.instanceId} (${request.label}).`);
        return { kind: 'created', instanceId: created.instanceId };
      } catch (error) {
        if (this.disposed) return { kind: 'uncertain', entry, error };
        if (error instanceof ApiError && certainlyNotMade(error)) {
          await this.journal.settle(entry.label);
          const refusal = createRefusal(error, offer.id, request);
          this.options.logger.info(
            `The rent of offer ${offer.id} ("${request.label}") was refused (read as ${refusal ? JSON.stringify(refusal) : 'neither the offer gone nor a missing template or volume'}): ${error.toLogString()}`,
          );
          if (refusal?.kind === 'offer') return { kind: 'unavailable', error };
          return refusal ? { kind: 'refused', error, missing: refusal } : { kind: 'refused', error };
        }
        const problem = error instanceof ApiError ? error.toLogString() : String(error);
        this.options.logger.warn(
          `The answer to the rent of offer ${offer.id} ("${request.label}") was not readable (${problem}); checking the account.`,
        );
        await this.journal.markUncertain(entry.label, problem);
        const uncertain = this.journal.get(entry.label) ?? entry;
        void this.settle(uncertain);
        return { kind: 'uncertain', entry: uncertain, error };
      } finally {
        clearInterval(renewal);
      }
    } finally {
      this.inFlight = false;
    }
  }

  /** Starts checking every pending rent no live window works on (after a reload, say). */
  resume(): void {
    if (this.disposed) return;
    for (const entry of this.journal.claimable()) {
      // This window's own rent that is still being sent is not pending in that sense.
      if (entry.state === 'sending' && entry.lease.owner === this.journal.owner && this.inFlight) continue;
      void this.settle(entry);
    }
  }

  /** Looks now, instead of at the next scheduled look (the status bar's Check Now). */
  checkNow(): void {
    for (const [label, controller] of this.settling) {
      controller.abort();
      this.settling.delete(label);
    }
    this.resume();
  }

  /** Resolves when the entry is settled here, taken over by another window, or this window closes. */
  settle(entry: PendingRent): Promise<void> {
    if (this.settling.has(entry.label) || this.disposed) return Promise.resolve();
    const controller = new AbortController();
    this.settling.set(entry.label, controller);
    return this.lookUntilKnown(entry, controller.signal).finally(() => {
      if (this.settling.get(entry.label) === controller) this.settling.delete(entry.label);
    });
  }

  dispose(): void {
    this.disposed = true;
    for (const controller of this.settling.values()) controller.abort();
    this.settling.clear();
    this.settled.dispose();
  }

  private async lookUntilKnown(entry: PendingRent, signal: AbortSignal): Promise<void> {
    const logger = this.options.logger;
    const key = await this.journal.key(entry.label);
    if (key === undefined) {
      logger.warn(`The key of the pending rent "${entry.label}" is gone from the secret store; it cannot be checked.`);
      if (await this.finish(entry)) this.settled.fire({ kind: 'unknowable', entry });
      return;
    }
    const client = this.options.createClient(entry.baseUrl, () => key);
    const windowMs = this.options.windowMs ?? DEFAULT_WINDOW_MS;
    const delays = this.options.lookDelaysMs ?? DEFAULT_LOOK_DELAYS_MS;
    const sleep = this.options.sleep ?? abortableSleep;
    const before = new Set(entry.before);
    for (let look = 0; !signal.aborted; look++) {
      if (!(await this.journal.renew(entry.label))) return; // another window took it over
      let instances: Instance[];
      const startedAt = this.now();
      try {
        instances = await client.instances.list({ signal });
      } catch (error) {
        if (signal.aborted) return;
        logger.warn(
          `Checking the pending rent "${entry.label}" failed: ${error instanceof ApiError ? error.toLogString() : String(error)}; trying again.`,
        );
        await sleep(Math.max(delays.at(-1) ?? 15_000, 5_000), signal).catch(() => undefined);
        continue;
      }
      const match = instances.find(
        (i) =>
          !before.has(i.id) &&
          i.label === entry.label &&
          (entry.machineId == null || i.machine_id == null || i.machine_id === entry.machineId),
      );
      if (match) {
        logger.info(`The pending rent "${entry.label}" made instance ${match.id}.`);
        if (await this.finish(entry)) this.settled.fire({ kind: 'found', entry, instanceId: match.id });
        return;
      }
      // The list was read from `startedAt` on; only a read begun after the window proves absence.
      if (startedAt >= entry.sentAt + windowMs) {
        logger.info(
          `The pending rent "${entry.label}" made no instance (checked ${Math.round((startedAt - entry.sentAt) / 1000)} s after it was sent).`,
        );
        if (await this.finish(entry)) this.settled.fire({ kind: 'notCreated', entry, checkedAt: startedAt });
        return;
      }
      const untilWindowEnds = entry.sentAt + windowMs - this.now();
      const delay = Math.min(delays[Math.min(look, delays.length - 1)] ?? 15_000, Math.max(0, untilWindowEnds) + 1);
      await sleep(delay, signal).catch(() => undefined);
    }
  }

  /** Settles the entry; false when another window settled it first. */
  private async finish(entry: PendingRent): Promise<boolean> {
    if (!this.journal.get(entry.label)) return false;
    await this.journal.settle(entry.label);
    return true;
  }
}

/**
 * The service answered and said no (or the request never left this machine): nothing was made.
 * Anything else (a 5xx or 429 that a gateway may send after the create was done, a timeout, a
 * reset, an unreadable 2xx) says nothing about the outcome.
 */
export function certainlyNotMade(error: ApiError): boolean {
  switch (error.kind) {
    case 'auth':
    case 'forbidden':
    case 'bad_request':
    case 'not_found':
      return true;
    case 'network':
    case 'timeout':
      return !error.outcomeUnknown;
    default:
      return false;
  }
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
