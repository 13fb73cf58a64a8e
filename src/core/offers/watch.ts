import type { GpuRentalClient } from '../api/client';
import { ApiError } from '../api/errors';
import type { Offer } from '../api/offers';
import { Emitter, type Disposable } from '../events';
import type { Timers } from '../instances/poller';
import type { Logger } from '../log';
import type { StoredAccess } from '../state/storedState';
import {
  findSearch,
  savedSearchRequest,
  seenKey,
  unwatched,
  updateSearch,
  watchedSearches,
  withSeen,
  type SavedSearch,
  type SeenOffers,
} from './saved';
import { l10n } from '../l10n';
import type { WatchedSearch, WatchKey, WatchNotice } from './watchNotice';

export type { WatchedSearch } from './watchNotice';

/** The one window that runs the search watcher, and when its lease lapses unless renewed. */
export interface WatchClaim {
  owner: string;
  until: number;
}

/** What the watcher reads and keeps in global state: the saved searches, the offers each watch has seen, and the claim. */
export type WatchState = StoredAccess<{
  savedSearches: SavedSearch[];
  watchSeen: Record<string, SeenOffers>;
  searchWatchClaim: WatchClaim | undefined;
}>;

export interface SearchWatcherOptions {
  state: WatchState;
  /** This window (VS Code's session id): the claim says which window watches. */
  owner: string;
  /** A client bound to one base URL and key (the watch's own profile, not the active one). */
  createClient: (baseUrl: string, getApiKey: () => string | undefined) => GpuRentalClient;
  /** The key a watch searches with (see `watchKeyLookup`). */
  keyOf: (watch: WatchedSearch['watch']) => Promise<WatchKey>;
  /** The time between two search requests (the setting), read before each wait. */
  intervalMs: () => number;
  timers: Timers;
  logger: Logger;
  /** Offers one watch request asks for (see WATCH_PAGE_SIZE). */
  pageSize?: number;
}

/**
 * Offers asked for per watch request. More than the view's page: a watch request sorted by the
 * search's order sees the best `pageSize` matches, and an offer that was matching all along but
 * ranked past the page would otherwise look new when better ones are rented away.
 */
export const WATCH_PAGE_SIZE = 200;
/** A 429 doubles the wait, up to this many intervals. */
export const MAX_BACKOFF = 8;
/** The claim outlives the wait to the next tick by this much: a slow request does not hand the watch over. */
export const WATCH_CLAIM_GRACE_MS = 60_000;
/** Refusals in a row (401, 403, 400) before the user is told: one may be a blip, two are not. */
const REFUSALS_BEFORE_SAYING = 2;

/** A 401/403/400 that says the key or the query is wrong, not that the service is busy or down. */
function isRefusal(error: unknown): error is ApiError {
  return error instanceof ApiError && (error.kind === 'auth' || error.kind === 'forbidden' || error.kind === 'bad_request');
}

/**
 * Looks for new offers of the watched saved searches, from one window of the editor at a time.
 *
 * One timer; each tick sends at most ONE search request, for one watched search, chosen in turn
 * (the one looked at longest ago, a search with no baseline yet first). Searches cannot be merged
 * into one request: the query language has no "or", two searches may belong to two profiles (two
 * keys), and a merged, looser search would return the top offers of the union and miss matches
 * of a narrow search. So the user's interval is the time between two requests, whatever the
 * number of watched searches, and each search is looked at every N intervals.
 *
 * The first look at a watch records a baseline: offers matching then are not new. Afterwards an
 * offer id not seen before that matches the query and the ceiling is told once: the seen ids are in
 * global state, written before the notice, so a window that takes the watch over never tells
 * again what another told. Windows agree on who watches through a claim in global state, renewed
 * every tick and taken over when it lapses; like WindowClaims (src/core/idle/windowClaims.ts) it
 * is not a lock (global state has no compare-and-set): two windows that check in the same instant
 * may both search once.
 */
export class SearchWatcher implements Disposable {
  private readonly notices = new Emitter<WatchNotice>();
  /** Fires in the window that holds the claim (or ran Check Now). */
  readonly onDidNotice = this.notices.event;
  private timer: unknown;
  private disposed = false;
  private backoff = 1;
  /** Search (seenKey) → when this window last looked at it; the rotation's order. */
  private readonly lastLooked = new Map<string, number>();
  /** Search (seenKey) → refusals in a row, and whether the user was told for this watch (`since`). */
  private readonly refusals = new Map<string, { count: number; toldSince?: number }>();
  private running: Promise<unknown> = Promise.resolve();
  /** Search requests sent by this watcher, for the bench and tests. */
  requests = 0;

  constructor(private readonly o: SearchWatcherOptions) {}

  /** Starts the timer; the first tick is one interval away (a Watch command records its own baseline). */
  start(): void {
    this.schedule();
  }

  /** The wait before the next tick: the interval, times the backoff after a 429. */
  get waitMs(): number {
    return Math.max(1, this.o.intervalMs()) * this.backoff;
  }

  /** Whether this window holds the watch now. */
  holdsClaim(now = this.o.timers.now()): boolean {
    const claim = this.o.state.get('searchWatchClaim');
    return claim !== undefined && claim.owner === this.o.owner && claim.until > now;
  }

  /**
   * One tick: claim the watch (unless another window holds it), then look at the next watched
   * search in turn. Sends at most one search request. Resolves when done; never rejects.
   */
  tick(): Promise<void> {
    return this.serialize(() => this.tickNow());
  }

  /**
   * Looks at every watched search now (one request each), whichever window holds the watch: the
   * "Check Watched Searches Now" command. Resolves with how many searches were looked at and how
   * many new offers were told.
   */
  checkNow(): Promise<{ searched: number; told: number }> {
    return this.serialize(async () => {
      let searched = 0;
      let told = 0;
      for (const search of watchedSearches(this.o.state.get('savedSearches'))) {
        const result = await this.look(search);
        if (result === 'searched' || typeof result === 'number') searched++;
        if (typeof result === 'number') told += result;
      }
      if (searched > 0) await this.claim();
      return { searched, told };
    });
  }

  /**
   * Records the baseline of a search just watched (one request): the offers matching now, which
   * are never told as new. Resolves with them, best first by the search's order. Throws the
   * request's error: the Watch command shows it.
   */
  async baseline(search: WatchedSearch): Promise<Offer[]> {
    const offers = await this.search(search, await this.requireKey(search));
    await this.o.state.change('watchSeen', (all) => ({
      ...all,
      [seenKey(search.name)]: withSeen({ since: search.watch.since, ids: [] }, matching(search, offers)),
    }));
    this.lastLooked.set(seenKey(search.name), this.o.timers.now());
    return matching(search, offers).map((id) => offers.find((o) => o.id === id)!);
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer !== undefined) this.o.timers.clearTimeout(this.timer);
    this.notices.dispose();
    // Another window may take over at once rather than when the lease lapses.
    void this.o.state.change('searchWatchClaim', (claim) => (claim && claim.owner !== this.o.owner ? claim : undefined));
  }

  private serialize<T>(work: () => Promise<T>): Promise<T> {
    const next = this.running.then(work, work);
    this.running = next.catch(() => undefined);
    return next;
  }

  private schedule(): void {
    if (this.disposed) return;
    if (this.timer !== undefined) this.o.timers.clearTimeout(this.timer);
    this.timer = this.o.timers.setTimeout(() => {
      this.timer = undefined;
      void this.tick().finally(() => this.schedule());
    }, this.waitMs);
  }

  private async claim(): Promise<void> {
    await this.o.state.update('searchWatchClaim', {
      owner: this.o.owner,
      until: this.o.timers.now() + this.waitMs * 2 + WATCH_CLAIM_GRACE_MS,
    });
  }

  private async tickNow(): Promise<void> {
    if (this.disposed) return;
    const now = this.o.timers.now();
    const watched = watchedSearches(this.o.state.get('savedSearches'));
    const claim = this.o.state.get('searchWatchClaim');
    if (watched.length === 0) {
      if (claim?.owner === this.o.owner) await this.o.state.update('searchWatchClaim', undefined);
      return;
    }
    if (claim && claim.owner !== this.o.owner && claim.until > now) return;
    await this.claim();
    // A search whose account is gone sends nothing: the next in turn may use this tick's request.
    for (const search of this.inTurn(watched)) {
      const result = await this.look(search);
      if (result !== 'paused') return;
    }
  }

  /** The watched searches, the next to look at first: one with no baseline, then the one looked at longest ago. */
  private inTurn(watched: WatchedSearch[]): WatchedSearch[] {
    const seen = this.o.state.get('watchSeen');
    const rank = (s: WatchedSearch) => (seen[seenKey(s.name)]?.since === s.watch.since ? (this.lastLooked.get(seenKey(s.name)) ?? 0) : -1);
    return watched
      .map((s, i) => ({ s, i, r: rank(s) }))
      .sort((a, b) => a.r - b.r || a.i - b.i)
      .map((x) => x.s);
  }

  /** Looks at one search: 'paused' (no request), 'failed', 'searched', or the number of new offers told. */
  private async look(search: WatchedSearch): Promise<'paused' | 'failed' | 'searched' | number> {
    const name = seenKey(search.name);
    const key = await this.o.keyOf(search.watch);
    if ('missing' in key) {
      await this.pause(search, key.missing);
      return 'paused';
    }
    this.lastLooked.set(name, this.o.timers.now());
    let offers: Offer[];
    try {
      offers = await this.search(search, key.key);
    } catch (error) {
      this.failed(search, error);
      return 'failed';
    }
    this.backoff = 1;
    this.refusals.delete(name);
    // The search may have been stopped or re-watched while the request was out.
    const current = findSearch(this.o.state.get('savedSearches'), search.name);
    if (current?.watch?.since !== search.watch.since) return 'searched';
    const ids = matching(search, offers);
    const before: SeenOffers | undefined = this.o.state.get('watchSeen')[name];
    const isBaseline = before?.since !== search.watch.since;
    const known = new Set(isBaseline ? [] : before.ids);
    const fresh = isBaseline ? [] : ids.filter((id) => !known.has(id));
    // Written before the notice: a window taking over reads these ids and never tells them again.
    await this.o.state.change('watchSeen', (all) => {
      const latest = all[name];
      const base = latest?.since === search.watch.since ? latest : { since: search.watch.since, ids: [] };
      return { ...all, [name]: withSeen(base, ids) };
    });
    if (isBaseline) {
      this.o.logger.info(`Watched search "${search.name}": baseline of ${ids.length} matching offers.`);
      return 'searched';
    }
    const first = offers.find((o) => o.id === fresh[0]);
    if (first) this.notices.fire({ kind: 'match', search, offer: first, more: fresh.length - 1 });
    return fresh.length;
  }

  private search(search: WatchedSearch, key: string): Promise<Offer[]> {
    const client = this.o.createClient(search.watch.baseUrl, () => key);
    this.requests++;
    // One request, never retried inside: the watcher's own wait and backoff are the retry.
    return client.offers.search(savedSearchRequest(search, this.o.pageSize ?? WATCH_PAGE_SIZE), { retry: 'never' });
  }

  private async requireKey(search: WatchedSearch): Promise<string> {
    const key = await this.o.keyOf(search.watch);
    if ('key' in key) return key.key;
    throw new Error(
      key.missing === 'profile'
        ? l10n.t('The profile of the watch on "{0}" was removed.', search.name)
        : l10n.t('No API key is stored for the profile of the watch on "{0}".', search.name),
    );
  }

  private failed(search: WatchedSearch, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof ApiError && error.kind === 'rate_limited') {
      const before = this.backoff;
      const asked = error.retryAfterMs ?? 0;
      const interval = Math.max(1, this.o.intervalMs());
      // Double the wait, or wait as long as the service asked, within MAX_BACKOFF intervals.
      this.backoff = Math.min(MAX_BACKOFF, Math.max(before * 2, Math.ceil(asked / interval)));
      this.o.logger.warn(`Watched search "${search.name}": rate limited; next search in ${Math.round(this.waitMs / 1000)} s.`);
      return;
    }
    this.o.logger.warn(`Watched search "${search.name}" failed; trying again next time: ${message}`);
    if (!isRefusal(error)) return;
    const name = seenKey(search.name);
    const refusal = this.refusals.get(name) ?? { count: 0 };
    refusal.count++;
    this.refusals.set(name, refusal);
    if (refusal.count >= REFUSALS_BEFORE_SAYING && refusal.toldSince !== search.watch.since) {
      refusal.toldSince = search.watch.since;
      this.notices.fire({ kind: 'refused', search, error });
    }
  }

  private async pause(search: WatchedSearch, reason: 'profile' | 'key'): Promise<void> {
    const next = await this.o.state.change('savedSearches', (list) =>
      updateSearch(list, search.name, (s) => (s.watch?.since === search.watch.since ? unwatched(s) : s)),
    );
    await this.o.state.change('watchSeen', (all) => {
      const rest = { ...all };
      delete rest[seenKey(search.name)];
      return rest;
    });
    const stillWatched = next && findSearch(next, search.name)?.watch;
    this.o.logger.warn(`Watched search "${search.name}" stopped: its ${reason === 'profile' ? 'profile was removed' : 'key is gone'}.`);
    if (!stillWatched) this.notices.fire({ kind: 'paused', search, reason });
  }
}

/** Ids of the offers that match the watch: the service filtered by the query; the ceiling is checked again here. */
function matching(search: WatchedSearch, offers: readonly Offer[]): number[] {
  return offers.filter((o) => o.dph_total <= search.watch.ceilingPerHour).map((o) => o.id);
}
