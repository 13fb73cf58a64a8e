import * as vscode from 'vscode';
import { formatDollars } from '../../core/format';
import { COMMANDS } from '../../core/ids';
import type { Offer } from '../../core/api/offers';
import {
  checkCeilingValue,
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
import { decimalText } from '../../core/numbers';
import { OFFER_SORTS, describeSearch } from '../../core/offers/search';
import type { SearchWatcher, WatchedSearch } from '../../core/offers/watch';
import type { Session } from '../../core/session/session';
import type { GpuRentalState } from '../../core/stored';
import { config } from '../config';
import { inputOf, type Prompts } from '../prompts';
import type { OffersView } from '../views/offersView';
import { command, type CommandDefinition } from './registry';

/** What the saved-search commands use. */
export interface SearchDeps {
  readonly session: Pick<Session, 'client' | 'bound'>;
  readonly offersView: Pick<OffersView, 'search' | 'setSearch'>;
  readonly state: GpuRentalState;
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
      title: vscode.l10n.t('GPU Rental: Save Search'),
      prompt: vscode.l10n.t(
        'A name for this search ({0}, {1})',
        describeSearch({ query, sort, pages: 1 }),
        OFFER_SORTS[sort].label.toLowerCase(),
      ),
      placeholder: 'e.g. Cheap 4090s',
      validate: validateSearchName,
    }))
  )?.trim();
  if (name === undefined) return undefined;
  const problem = validateSearchName(name);
  if (problem) throw new Error(vscode.l10n.t('GPU Rental: cannot save the search as "{0}": {1}', name, problem));
  const existing = findSearch(list(d), name);
  if (existing) {
    const replace = await d
      .prompts()
      .confirm(
        vscode.l10n.t('Replace the saved search "{0}"?', existing.name),
        existing.watch
          ? vscode.l10n.t(
              'It searches {0}; it will search {1}. Its watch stops.',
              describeSearch({ ...existing, pages: 1 }),
              describeSearch({ query, sort, pages: 1 }),
            )
          : vscode.l10n.t(
              'It searches {0}; it will search {1}.',
              describeSearch({ ...existing, pages: 1 }),
              describeSearch({ query, sort, pages: 1 }),
            ),
        vscode.l10n.t('Replace'),
      );
    if (!replace) return undefined;
  }
  await d.state.change('savedSearches', (all) => saveSearch(all, { name, query, sort }));
  if (existing?.watch) await forgetSeen(d, name);
  void vscode.window
    .showInformationMessage(
      vscode.l10n.t('GPU Rental: saved the search "{0}". Pick it from Saved Searches in the Offers view, or watch it for a price.', name),
      vscode.l10n.t('Watch…'),
    )
    .then((choice) => choice && vscode.commands.executeCommand(COMMANDS.watchSearch, name));
  return name;
}

interface SearchItem extends vscode.QuickPickItem {
  search: SavedSearch;
}

const BUTTONS = {
  watch: { iconPath: new vscode.ThemeIcon('eye'), tooltip: vscode.l10n.t('Watch') },
  stop: { iconPath: new vscode.ThemeIcon('eye-closed'), tooltip: vscode.l10n.t('Stop Watching') },
  rent: { iconPath: new vscode.ThemeIcon('zap'), tooltip: vscode.l10n.t('Rent Best Match') },
  remove: { iconPath: new vscode.ThemeIcon('trash'), tooltip: vscode.l10n.t('Delete') },
};

function searchItem(search: SavedSearch): SearchItem {
  const buttons = [search.watch ? BUTTONS.stop : BUTTONS.watch];
  // Rent Best Match is its own command (src/ui/commands/rentBestMatch.ts); the button follows its id.
  if ('rentBestMatch' in COMMANDS) buttons.push(BUTTONS.rent);
  buttons.push(BUTTONS.remove);
  return {
    label: search.watch ? `$(eye) ${search.name}` : search.name,
    description: search.watch ? vscode.l10n.t('watched: at or under {0}/h', formatDollars(search.watch.ceilingPerHour)) : undefined,
    detail: `${describeSearch({ ...search, pages: 1 })} · ${OFFER_SORTS[search.sort].label}`,
    buttons,
    search,
  };
}

/** The quick pick of saved searches; picking one sets the Offers view's search. With a name, that search is set at once. */
async function showSaved(d: SearchDeps, name?: string): Promise<void> {
  if (name !== undefined) {
    const search = findSearch(list(d), name);
    if (!search) throw new Error(vscode.l10n.t('GPU Rental: there is no saved search "{0}". Open Saved Searches to see them.', name));
    await apply(d, search);
    return;
  }
  if (list(d).length === 0) {
    const choice = await vscode.window.showInformationMessage(
      vscode.l10n.t('GPU Rental: no saved searches yet. Set up a search in the Offers view, then save it.'),
      vscode.l10n.t('Save Search…'),
    );
    if (choice) await vscode.commands.executeCommand(COMMANDS.saveSearch);
    return;
  }
  const pick = vscode.window.createQuickPick<SearchItem>();
  pick.title = vscode.l10n.t('GPU Rental: Saved Searches');
  pick.placeholder = vscode.l10n.t('Pick a search to show its offers; the buttons watch, rent the best match or delete');
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
      vscode.l10n.t('Delete the saved search "{0}"?', search.name),
      search.watch ? vscode.l10n.t('It is watched: the watch stops too.') : vscode.l10n.t('The Offers view keeps its current search.'),
      vscode.l10n.t('Delete'),
    );
  if (!sure) return;
  await d.state.change('savedSearches', (all) => removeSearch(all, search.name));
  await forgetSeen(d, search.name);
  void vscode.window.showInformationMessage(vscode.l10n.t('GPU Rental: deleted the saved search "{0}".', search.name));
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
    { title: vscode.l10n.t('GPU Rental: {0}', title), matchOnDetail: true, ignoreFocusOut: true },
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
  if (!account) throw new Error(vscode.l10n.t('GPU Rental: sign in with an API key first: a watch searches with your key.'));
  let search: SavedSearch | undefined;
  if (name !== undefined) {
    search = findSearch(list(d), name);
    if (!search) throw new Error(vscode.l10n.t('GPU Rental: there is no saved search "{0}". Save the search first, then watch it.', name));
  } else if (list(d).length === 0) {
    const saved = await saveCurrent(d);
    search = saved === undefined ? undefined : findSearch(list(d), saved);
  } else {
    search = await pickSearch(d, vscode.l10n.t('Watch Search'), false);
  }
  if (!search) return;
  if (ceiling === undefined) {
    const cheapest = await cheapestNow(d, search);
    const text = await inputOf(d.prompts())({
      title: vscode.l10n.t('GPU Rental: Watch "{0}"', search.name),
      prompt: vscode.l10n.t(
        'Tell me about new offers at or under this price, in $/h. {0}',
        cheapest ? vscode.l10n.t('The cheapest match now: {0}.', describeOffer(cheapest)) : vscode.l10n.t('No offer matches now.'),
      ),
      placeholder: cheapest ? String(Math.floor(cheapest.dph_total * 100) / 100) : '0.60',
      value: search.watch ? decimalText(search.watch.ceilingPerHour) : undefined,
      validate: validateCeiling,
    });
    if (text === undefined) return;
    ceiling = parseCeiling(text);
  }
  const problem = checkCeilingValue(ceiling);
  if (problem) throw new Error(vscode.l10n.t('GPU Rental: cannot watch with that ceiling: {0}', problem));
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
      vscode.l10n.t(
        'GPU Rental: watching "{0}", but the first search failed ({1}). The watcher tries again every {2} and counts what matches then as already there.',
        watched.name,
        why,
        intervalText(),
      ),
    );
    return;
  }
  const cheapest = matching.reduce<Offer | undefined>((best, o) => (!best || o.dph_total < best.dph_total ? o : best), undefined);
  const now =
    matching.length === 0
      ? vscode.l10n.t('No offer matches now')
      : matching.length === 1
        ? vscode.l10n.t('1 offer matches now ({0})', describeOffer(cheapest!))
        : vscode.l10n.t('{0} offers match now (the cheapest {1})', matching.length, describeOffer(cheapest!));
  void vscode.window.showInformationMessage(
    vscode.l10n.t(
      'GPU Rental: watching "{0}" for offers at or under {1}/h. {2}; you will be told about new ones. All watched searches together send one search every {3}.',
      watched.name,
      formatDollars(ceiling),
      now,
      intervalText(),
    ),
  );
}

/** The cheapest offer the search finds now, without its watch's ceiling (one request). */
async function cheapestNow(d: SearchDeps, search: SavedSearch): Promise<Offer | undefined> {
  const offers = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('GPU Rental: reading what "{0}" finds now…', search.name) },
    () => d.session.client.offers.search(savedSearchRequest({ ...unwatched(search), sort: 'price' }, 1)),
  );
  return offers[0];
}

function describeOffer(o: Offer): string {
  return `${o.gpu_name}${o.num_gpus > 1 ? ` ×${o.num_gpus}` : ''} at ${formatDollars(o.dph_total)}/h`;
}

async function stopWatching(d: SearchDeps, name?: string): Promise<void> {
  const search = name !== undefined ? findSearch(list(d), name) : await pickSearch(d, vscode.l10n.t('Stop Watching'), true);
  if (!search) {
    if (name !== undefined || watchedSearches(list(d)).length === 0)
      void vscode.window.showInformationMessage(
        name === undefined
          ? vscode.l10n.t('GPU Rental: no search is watched.')
          : vscode.l10n.t('GPU Rental: there is no saved search "{0}".', name),
      );
    return;
  }
  if (!search.watch) {
    void vscode.window.showInformationMessage(vscode.l10n.t('GPU Rental: "{0}" is not watched.', search.name));
    return;
  }
  await d.state.change('savedSearches', (all) => updateSearch(all, search.name, unwatched));
  await forgetSeen(d, search.name);
  void vscode.window.showInformationMessage(vscode.l10n.t('GPU Rental: stopped watching "{0}". The search is still saved.', search.name));
}

async function checkNow(d: SearchDeps): Promise<{ searched: number; told: number }> {
  if (watchedSearches(list(d)).length === 0) {
    void vscode.window.showInformationMessage(
      vscode.l10n.t('GPU Rental: no search is watched. Watch one with Watch Search… in the Offers view.'),
    );
    return { searched: 0, told: 0 };
  }
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('GPU Rental: checking the watched searches…') },
    () => d.watcher.checkNow(),
  );
  const watched = watchedSearches(list(d)).length;
  if (result.searched < watched)
    void vscode.window.showWarningMessage(
      vscode.l10n.t(
        'GPU Rental: {0} of {1} watched searches could not be searched now; the GPU Rental log says why. They are tried again every {2}.',
        watched - result.searched,
        watched,
        intervalText(),
      ),
    );
  else if (result.told === 0)
    void vscode.window.showInformationMessage(
      result.searched === 1
        ? vscode.l10n.t('GPU Rental: checked 1 watched search: no new offers.')
        : vscode.l10n.t('GPU Rental: checked {0} watched searches: no new offers.', result.searched),
    );
  return result;
}
