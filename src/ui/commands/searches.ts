import * as vscode from 'vscode';
import { COMMANDS } from '../../core/ids';
import { findSearch, type SavedSearch } from '../../core/offers/saved';
import {
  checkWatchedNow,
  deleteSavedSearch,
  saveCurrentSearch,
  savedActionLabel,
  savedSearchRow,
  stopWatching,
  watchSearch,
  type WatchDeps,
} from '../../core/offers/savedFlows';
import type { SearchWatcher } from '../../core/offers/watch';
import type { Session } from '../../core/session/session';
import type { GpuRentalState } from '../../core/stored';
import { config } from '../host/config';
import { asker, type Prompts } from '../pickers/prompts';
import { showProgress } from '../pickers/progress';
import type { OffersView } from '../views/offersView';
import { notify } from '../pickers/notify';
import { command, type CommandDefinition } from '../registry';

/** What the saved-search commands use. */
export interface SearchDeps {
  readonly session: Pick<Session, 'client' | 'bound'>;
  readonly offersView: Pick<OffersView, 'search' | 'setSearch'>;
  readonly state: GpuRentalState;
  readonly prompts: () => Prompts;
  readonly watcher: SearchWatcher;
}

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

/** Save Search, Saved Searches, Watch Search, Stop Watching and Check Watched Searches Now (decided in core/offers/savedFlows.ts). */
export function searchCommands(d: SearchDeps): CommandDefinition[] {
  return [
    command(COMMANDS.saveSearch, (name?: unknown) => saveCurrent(d, text(name))),
    command(COMMANDS.showSavedSearches, (name?: unknown) => showSaved(d, text(name))),
    command(COMMANDS.watchSearch, async (name?: unknown, ceiling?: unknown) => {
      void notify(await watchSearch(flowDeps(d), d.offersView.search, text(name), typeof ceiling === 'number' ? ceiling : undefined));
    }),
    command(COMMANDS.stopWatchingSearch, async (name?: unknown) => void notify(await stopWatching(flowDeps(d), text(name)))),
    command(COMMANDS.checkWatchedSearches, async () => {
      const { notice, ...result } = await checkWatchedNow(flowDeps(d));
      void notify(notice);
      return result;
    }),
  ];
}

function flowDeps(d: SearchDeps): WatchDeps {
  return {
    ask: asker(d.prompts()),
    state: d.state,
    account: () => d.session.bound(),
    searchOffers: (request) => d.session.client.offers.search(request),
    busy: showProgress,
    watcher: d.watcher,
    intervalMinutes: () => config.watchIntervalMinutes(),
    now: () => Date.now(),
  };
}

/** Saves the Offers view's search; resolves with the name saved. Its notice's Watch… button watches it. */
async function saveCurrent(d: SearchDeps, given?: string): Promise<string | undefined> {
  const saved = await saveCurrentSearch(flowDeps(d), d.offersView.search, given);
  if (!saved) return undefined;
  void notify(saved.notice, savedActionLabel).then((choice) => choice && vscode.commands.executeCommand(COMMANDS.watchSearch, saved.name));
  return saved.name;
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
  return { ...savedSearchRow(search), buttons, search };
}

/** The quick pick of saved searches (its item buttons need VS Code's own); picking one sets the Offers view's search. With a name, that search is set at once. */
async function showSaved(d: SearchDeps, name?: string): Promise<void> {
  const list = d.state.get('savedSearches');
  if (name !== undefined) {
    const search = findSearch(list, name);
    if (!search) throw new Error(vscode.l10n.t('GPU Rental: there is no saved search "{0}". Open Saved Searches to see them.', name));
    await apply(d, search);
    return;
  }
  if (list.length === 0) {
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
  pick.items = list.map(searchItem);
  const done = new Promise<void>((resolve) => {
    pick.onDidAccept(() => {
      const chosen = pick.selectedItems[0];
      pick.hide();
      if (chosen) void apply(d, chosen.search);
    });
    pick.onDidTriggerItemButton(({ item, button }) => {
      pick.hide();
      void onButton(d, item.search, button);
    });
    pick.onDidHide(() => {
      pick.dispose();
      resolve();
    });
  });
  pick.show();
  await done;
}

async function onButton(d: SearchDeps, search: SavedSearch, button: vscode.QuickInputButton): Promise<unknown> {
  if (button === BUTTONS.remove) return notify(await deleteSavedSearch(flowDeps(d), search));
  const id =
    button === BUTTONS.rent ? COMMANDS.rentBestMatch : button === BUTTONS.stop ? COMMANDS.stopWatchingSearch : COMMANDS.watchSearch;
  return vscode.commands.executeCommand(id, search.name);
}

async function apply(d: SearchDeps, search: SavedSearch): Promise<void> {
  await d.offersView.setSearch({ query: search.query, sort: search.sort, pages: 1 });
}
