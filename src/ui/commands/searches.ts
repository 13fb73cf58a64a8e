import * as vscode from 'vscode';
import { formatDollars } from '../../core/format';
import { COMMANDS } from '../../core/ids';
import type { Offer } from '../../core/api/offers';
import {
  findSearch,
  parseCeiling,
  removeSearch,
  saveSearch,
  savedSearchRequest,
  seenKey,
  unwatched,
  updateSearch,
  validateCeiling,
  validateSearchName,
  watchedSearches,
  type SavedSearch,
} from '../../core/offers/saved';
import { OFFER_SORTS, describeSearch } from '../../core/offers/search';
import type { SearchWatcher, WatchedSearch } from '../../core/offers/watch';
import type { Session } from '../../core/session/session';
import type { StoredState } from '../../core/state/storedState';
import { config } from '../config';
import { inputOf, type Prompts } from '../prompts';
import type { OffersView } from '../views/offersView';
import { command, type CommandDefinition } from './registry';

/** What the saved-search commands use. */
export interface SearchDeps {
  readonly session: Pick<Session, 'client' | 'bound'>;
  readonly offersView: Pick<OffersView, 'search' | 'setSearch'>;
  readonly state: StoredState;
  readonly prompts: () => Prompts;
  readonly watcher: SearchWatcher;
}

/** Save Search, Saved Searches, Watch Search, Stop Watching and Check Watched Searches Now. */
export function searchCommands(d: SearchDeps): CommandDefinition[] {
  return [
    command(COMMANDS.saveSearch, (name?: unknown) => saveCurrent(d, typeof name === 'string' ? name : undefined)),
    command(COMMANDS.showSavedSearches, (name?: unknown) => showSaved(d, typeof name === 'string' ? name : undefined)),
    command(COMMANDS.watchSearch, (name?: unknown, ceiling?: unknown) =>
      watch(d, typeof name === 'string' ? name : undefined, typeof ceiling === 'number' ? ceiling : undefined),
    ),
    command(COMMANDS.stopWatchingSearch, (name?: unknown) => stopWatching(d, typeof name === 'string' ? name : undefined)),
    command(COMMANDS.checkWatchedSearches, () => checkNow(d)),
  ];
}

const list = (d: SearchDeps) => d.state.get('savedSearches');

/** The interval as the messages say it: "5 min", "1 h 30 min". */
function intervalText(): string {
  const minutes = config.watchIntervalMinutes();
  const h = Math.floor(minutes / 60);
  const m = Math.round(minutes % 60);
  return h > 0 ? `${h} h${m ? ` ${m} min` : ''}` : `${m} min`;
}

/** Saves the Offers view's search under a name (asked unless given); a name in use is replaced after a confirmation. Resolves with the name saved. */
async function saveCurrent(d: SearchDeps, given?: string): Promise<string | undefined> {
  const { query, sort } = d.offersView.search;
  const name = (
    given ??
    (await inputOf(d.prompts())({
      title: 'GPU Rental: Save Search',
      prompt: `A name for this search (${describeSearch({ query, sort, pages: 1 })}, ${OFFER_SORTS[sort].label.toLowerCase()})`,
      placeholder: 'e.g. Cheap 4090s',
      validate: validateSearchName,
    }))
  )?.trim();
  if (name === undefined) return undefined;
  const problem = validateSearchName(name);
  if (problem) throw new Error(`GPU Rental: cannot save the search as "${name}": ${problem}`);
  const existing = findSearch(list(d), name);
  if (existing) {
    const replace = await d
      .prompts()
      .confirm(
        `Replace the saved search "${existing.name}"?`,
        `It searches ${describeSearch({ ...existing, pages: 1 })}; it will search ${describeSearch({ query, sort, pages: 1 })}.${existing.watch ? ' Its watch stops.' : ''}`,
        'Replace',
      );
    if (!replace) return undefined;
  }
  await d.state.change('savedSearches', (all) => saveSearch(all, { name, query, sort }));
  if (existing?.watch) await forgetSeen(d, name);
  void vscode.window
    .showInformationMessage(
      `GPU Rental: saved the search "${name}". Pick it from Saved Searches in the Offers view, or watch it for a price.`,
      'Watch…',
    )
    .then((choice) => choice && vscode.commands.executeCommand(COMMANDS.watchSearch, name));
  return name;
}

interface SearchItem extends vscode.QuickPickItem {
  search: SavedSearch;
}

const BUTTONS = {
  watch: { iconPath: new vscode.ThemeIcon('eye'), tooltip: 'Watch' },
  stop: { iconPath: new vscode.ThemeIcon('eye-closed'), tooltip: 'Stop Watching' },
  rent: { iconPath: new vscode.ThemeIcon('zap'), tooltip: 'Rent Best Match' },
  remove: { iconPath: new vscode.ThemeIcon('trash'), tooltip: 'Delete' },
};

function searchItem(search: SavedSearch): SearchItem {
  const buttons = [search.watch ? BUTTONS.stop : BUTTONS.watch];
  // Rent Best Match is its own command (src/ui/commands/rentBestMatch.ts); the button follows its id.
  if ('rentBestMatch' in COMMANDS) buttons.push(BUTTONS.rent);
  buttons.push(BUTTONS.remove);
  return {
    label: search.watch ? `$(eye) ${search.name}` : search.name,
    description: search.watch ? `watched: at or under ${formatDollars(search.watch.ceilingPerHour)}/h` : undefined,
    detail: `${describeSearch({ ...search, pages: 1 })} · ${OFFER_SORTS[search.sort].label}`,
    buttons,
    search,
  };
}

/** The quick pick of saved searches; picking one sets the Offers view's search. With a name, that search is set at once. */
async function showSaved(d: SearchDeps, name?: string): Promise<void> {
  if (name !== undefined) {
    const search = findSearch(list(d), name);
    if (!search) throw new Error(`GPU Rental: there is no saved search "${name}". Open Saved Searches to see them.`);
    await apply(d, search);
    return;
  }
  if (list(d).length === 0) {
    const choice = await vscode.window.showInformationMessage(
      'GPU Rental: no saved searches yet. Set up a search in the Offers view, then save it.',
      'Save Search…',
    );
    if (choice) await vscode.commands.executeCommand(COMMANDS.saveSearch);
    return;
  }
  const pick = vscode.window.createQuickPick<SearchItem>();
  pick.title = 'GPU Rental: Saved Searches';
  pick.placeholder = 'Pick a search to show its offers; the buttons watch, rent the best match or delete';
  pick.matchOnDetail = true;
  pick.items = list(d).map(searchItem);
  const done = new Promise<void>((resolve) => {
    pick.onDidAccept(() => {
      const chosen = pick.selectedItems[0];
      pick.hide();
      if (chosen) void apply(d, chosen.search);
    });
    pick.onDidTriggerItemButton(({ item, button }) => {
      pick.hide();
      const run =
        button === BUTTONS.remove
          ? () => remove(d, item.search)
          : button === BUTTONS.rent
            ? () => vscode.commands.executeCommand(COMMANDS.rentBestMatch, item.search.name)
            : button === BUTTONS.stop
              ? () => vscode.commands.executeCommand(COMMANDS.stopWatchingSearch, item.search.name)
              : () => vscode.commands.executeCommand(COMMANDS.watchSearch, item.search.name);
      void run();
    });
    pick.onDidHide(() => {
      pick.dispose();
      resolve();
    });
  });
  pick.show();
  await done;
}

async function apply(d: SearchDeps, search: SavedSearch): Promise<void> {
  await d.offersView.setSearch({ query: search.query, sort: search.sort, pages: 1 });
}

async function remove(d: SearchDeps, search: SavedSearch): Promise<void> {
  const sure = await d
    .prompts()
    .confirm(
      `Delete the saved search "${search.name}"?`,
      search.watch ? 'It is watched: the watch stops too.' : 'The Offers view keeps its current search.',
      'Delete',
    );
  if (!sure) return;
  await d.state.change('savedSearches', (all) => removeSearch(all, search.name));
  await forgetSeen(d, search.name);
  void vscode.window.showInformationMessage(`GPU Rental: deleted the saved search "${search.name}".`);
}

async function forgetSeen(d: SearchDeps, name: string): Promise<void> {
  await d.state.change('watchSeen', (all) => {
    const rest = { ...all };
    delete rest[seenKey(name)];
    return rest;
  });
}

/** Asks for one saved search (only the watched ones with `watchedOnly`); undefined when dismissed or there is none. */
async function pickSearch(d: SearchDeps, title: string, watchedOnly: boolean): Promise<SavedSearch | undefined> {
  const searches = watchedOnly ? watchedSearches(list(d)) : list(d);
  if (searches.length === 0) return undefined;
  const picked = await vscode.window.showQuickPick(
    searches.map((s) => ({ ...searchItem(s), buttons: [] })),
    { title: `GPU Rental: ${title}`, matchOnDetail: true, ignoreFocusOut: true },
  );
  return picked?.search;
}

/**
 * Watches a saved search with a price ceiling: asks which search (or saves the current one when
 * none is saved) and the ceiling, showing the cheapest match now; then records the baseline and
 * says how many offers match now.
 */
async function watch(d: SearchDeps, name?: string, ceiling?: number): Promise<void> {
  const account = d.session.bound();
  if (!account) throw new Error('GPU Rental: sign in with an API key first: a watch searches with your key.');
  let search: SavedSearch | undefined;
  if (name !== undefined) {
    search = findSearch(list(d), name);
    if (!search) throw new Error(`GPU Rental: there is no saved search "${name}". Save the search first, then watch it.`);
  } else if (list(d).length === 0) {
    const saved = await saveCurrent(d);
    search = saved === undefined ? undefined : findSearch(list(d), saved);
  } else {
    search = await pickSearch(d, 'Watch Search', false);
  }
  if (!search) return;
  if (ceiling === undefined) {
    const cheapest = await cheapestNow(d, search);
    const text = await inputOf(d.prompts())({
      title: `GPU Rental: Watch "${search.name}"`,
      prompt: `Tell me about new offers at or under this price, in $/h. ${
        cheapest ? `The cheapest match now: ${describeOffer(cheapest)}.` : 'No offer matches now.'
      }`,
      placeholder: cheapest ? String(Math.floor(cheapest.dph_total * 100) / 100) : '0.60',
      value: search.watch ? String(search.watch.ceilingPerHour) : undefined,
      validate: validateCeiling,
    });
    if (text === undefined) return;
    ceiling = parseCeiling(text);
  }
  const problem = validateCeiling(String(ceiling));
  if (problem) throw new Error(`GPU Rental: cannot watch with that ceiling: ${problem}`);
  const watched: WatchedSearch = {
    ...search,
    watch: { ceilingPerHour: ceiling, baseUrl: account.baseUrl, profileId: account.profileId, since: Date.now() },
  };
  await d.state.change('savedSearches', (all) => updateSearch(all, watched.name, () => watched));
  let matching: Offer[];
  try {
    matching = await d.watcher.baseline(watched);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    void vscode.window.showWarningMessage(
      `GPU Rental: watching "${watched.name}", but the first search failed (${why}). The watcher tries again every ${intervalText()} and counts what matches then as already there.`,
    );
    return;
  }
  const cheapest = matching.reduce<Offer | undefined>((best, o) => (!best || o.dph_total < best.dph_total ? o : best), undefined);
  const now =
    matching.length === 0
      ? 'No offer matches now'
      : `${matching.length} offer${matching.length === 1 ? '' : 's'} match${matching.length === 1 ? 'es' : ''} now (the cheapest ${describeOffer(cheapest!)})`;
  void vscode.window.showInformationMessage(
    `GPU Rental: watching "${watched.name}" for offers at or under ${formatDollars(ceiling)}/h. ${now}; you will be told about new ones. All watched searches together send one search every ${intervalText()}.`,
  );
}

/** The cheapest offer the search finds now, without its watch's ceiling (one request). */
async function cheapestNow(d: SearchDeps, search: SavedSearch): Promise<Offer | undefined> {
  const offers = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `GPU Rental: reading what "${search.name}" finds now…` },
    () => d.session.client.offers.search(savedSearchRequest({ ...unwatched(search), sort: 'price' }, 1)),
  );
  return offers[0];
}

function describeOffer(o: Offer): string {
  return `${o.gpu_name}${o.num_gpus > 1 ? ` ×${o.num_gpus}` : ''} at ${formatDollars(o.dph_total)}/h`;
}

async function stopWatching(d: SearchDeps, name?: string): Promise<void> {
  const search = name !== undefined ? findSearch(list(d), name) : await pickSearch(d, 'Stop Watching', true);
  if (!search) {
    if (name !== undefined || watchedSearches(list(d)).length === 0)
      void vscode.window.showInformationMessage(
        name === undefined ? 'GPU Rental: no search is watched.' : `GPU Rental: there is no saved search "${name}".`,
      );
    return;
  }
  if (!search.watch) {
    void vscode.window.showInformationMessage(`GPU Rental: "${search.name}" is not watched.`);
    return;
  }
  await d.state.change('savedSearches', (all) => updateSearch(all, search.name, unwatched));
  await forgetSeen(d, search.name);
  void vscode.window.showInformationMessage(`GPU Rental: stopped watching "${search.name}". The search is still saved.`);
}

async function checkNow(d: SearchDeps): Promise<{ searched: number; told: number }> {
  if (watchedSearches(list(d)).length === 0) {
    void vscode.window.showInformationMessage('GPU Rental: no search is watched. Watch one with Watch Search… in the Offers view.');
    return { searched: 0, told: 0 };
  }
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'GPU Rental: checking the watched searches…' },
    () => d.watcher.checkNow(),
  );
  const watched = watchedSearches(list(d)).length;
  if (result.searched < watched)
    void vscode.window.showWarningMessage(
      `GPU Rental: ${watched - result.searched} of ${watched} watched searches could not be searched now; the GPU Rental log says why. They are tried again every ${intervalText()}.`,
    );
  else if (result.told === 0)
    void vscode.window.showInformationMessage(
      `GPU Rental: checked ${result.searched} watched search${result.searched === 1 ? '' : 'es'}: no new offers.`,
    );
  return result;
}
