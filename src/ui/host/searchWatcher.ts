import * as vscode from 'vscode';
import { Emitter } from '../../core/events';
import { COMMANDS, SETTINGS, VIEWS } from '../../core/ids';
import { realTimers } from '../../core/instances/poller';
import type { Logger } from '../../core/log';
import { SearchWatcher } from '../../core/offers/watch';
import { describeWatchNotice, watchButtonLabel, watchKeyLookup, type WatchNotice } from '../../core/offers/watchNotice';
import { notify } from '../pickers/notify';
import type { ClientFactory, KeyStore, Session } from '../../core/session/session';
import type { GpuRentalState } from '../../core/stored';
import { config } from './config';
import type { OffersView } from '../views/offersView';

export interface SearchWatcherUiDeps {
  state: GpuRentalState;
  keys: Pick<KeyStore, 'get'>;
  createClient: ClientFactory;
  session: Pick<Session, 'profileId'>;
  offersView: Pick<OffersView, 'setSearch'>;
  logger: Logger;
}

/**
 * The search watcher of this window (src/core/offers/watch.ts) and the notifications it shows.
 * Built at activation without the API client: the client loads on the first watch request.
 */
export class SearchWatcherUi implements vscode.Disposable {
  readonly watcher: SearchWatcher;
  private readonly shown = new Emitter<string>();
  /** Fires with each notification's text as it is shown (the integration tests read it). */
  readonly onDidShow = this.shown.event;
  private readonly configuration: vscode.Disposable;

  constructor(private readonly deps: SearchWatcherUiDeps) {
    this.watcher = new SearchWatcher({
      state: deps.state,
      owner: vscode.env.sessionId,
      createClient: deps.createClient,
      keyOf: watchKeyLookup(deps.keys, deps.state),
      intervalMs: () => config.watchIntervalMinutes() * 60_000,
      timers: realTimers,
      logger: deps.logger,
    });
    this.watcher.onDidNotice((notice) => void this.show(notice));
    this.watcher.start();
    // A new interval applies now, not after the wait already running (up to a day).
    this.configuration = vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(SETTINGS.watchIntervalMinutes)) this.watcher.start();
    });
  }

  dispose(): void {
    this.configuration.dispose();
    this.watcher.dispose();
    this.shown.dispose();
  }

  private async show(notice: WatchNotice): Promise<void> {
    const told = describeWatchNotice(notice);
    this.shown.fire(told.text);
    const choice = await notify(told, watchButtonLabel);
    const { search } = notice;
    if (choice === 'Rent' && notice.kind === 'match') {
      if (this.deps.session.profileId !== search.watch.profileId) {
        const pick = await vscode.window.showWarningMessage(
          vscode.l10n.t(
            'GPU Rental: the watch on "{0}" searches with another profile than this window\'s. Switch to that profile, then rent offer {1} from the Offers view.',
            search.name,
            notice.offer.id,
          ),
          vscode.l10n.t('Switch Profile'),
        );
        if (pick) await vscode.commands.executeCommand(COMMANDS.switchProfile);
        return;
      }
      await vscode.commands.executeCommand(COMMANDS.rentOffer, notice.offer.id);
    } else if (choice === 'Show') {
      await this.deps.offersView.setSearch({ query: search.query, sort: search.sort, pages: 1 });
      await vscode.commands.executeCommand(`${VIEWS.offers}.focus`);
    } else if (choice === 'Stop Watching') {
      await vscode.commands.executeCommand(COMMANDS.stopWatchingSearch, search.name);
    } else if (choice === 'Watch Again') {
      await vscode.commands.executeCommand(COMMANDS.watchSearch, search.name);
    }
  }
}
