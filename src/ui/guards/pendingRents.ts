import * as vscode from 'vscode';
import { COMMANDS } from '../../core/ids';
import type { JournalStorage } from '../../core/rent/journal';
import { pendingStatus, settlementMessage } from '../../core/rent/messages';
import type { Renter, Settlement } from '../../core/rent/renter';
import type { GpuRentalState } from '../../core/stored';

const KEY_PREFIX = 'gpuRental.rentKey:';
/** How often a window looks for pending rents whose window closed (their lease ran out). */
const ADOPT_MS = 10_000;

/**
 * The rent journal in global state (shared by every window, kept across reloads), and the key each
 * pending rent was sent with in SecretStorage.
 */
export function journalStorage(state: GpuRentalState, secrets: vscode.SecretStorage): JournalStorage {
  return {
    read: () => state.get('rentJournal'),
    // An empty journal is removed rather than stored as [], as it always was.
    write: (entries) => state.update('rentJournal', entries.length ? [...entries] : undefined),
    storeKey: (label, key) => Promise.resolve(secrets.store(KEY_PREFIX + label, key)),
    getKey: (label) => Promise.resolve(secrets.get(KEY_PREFIX + label)),
    deleteKey: (label) => Promise.resolve(secrets.delete(KEY_PREFIX + label)),
  };
}

/**
 * Shows unsettled rents in the status bar, tells the user each outcome once it is known, and takes
 * over the checking of rents whose window was closed or reloaded mid-rent.
 */
export class PendingRents implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('gpuRental.pendingRent', vscode.StatusBarAlignment.Left, 99);
  private readonly disposables: vscode.Disposable[] = [];
  private readonly timer: ReturnType<typeof setInterval>;
  /** The last messages shown, for tests. */
  readonly shown: string[] = [];

  constructor(
    private readonly renter: Renter,
    private readonly onFound: (instanceId: number) => void,
  ) {
    this.item.name = vscode.l10n.t('GPU Rental Unconfirmed Rent');
    this.item.command = { command: COMMANDS.refresh, title: vscode.l10n.t('Check Now') };
    this.disposables.push(
      this.item,
      renter.journal.onDidChange(() => this.update()),
      renter.onDidSettle((s) => this.announce(s)),
    );
    this.timer = setInterval(() => {
      this.update();
      renter.resume();
    }, ADOPT_MS);
    this.update();
  }

  /** Starts checking what earlier windows left unsettled. */
  resume(): void {
    this.renter.resume();
    this.update();
  }

  update(): void {
    const journal = this.renter.journal;
    const status = pendingStatus(journal.entries(), (e) => e.state === 'sending' && e.lease.owner === journal.owner && this.renter.busy);
    if (!status) {
      this.item.hide();
      return;
    }
    this.item.text = `$(sync~spin) ${status.text}`;
    this.item.accessibilityInformation = { label: vscode.l10n.t('GPU Rental: {0}. Activate to check now.', status.text) };
    this.item.tooltip = vscode.l10n.t('{0}\n\nClick to check now.', status.tooltip);
    this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
    this.item.show();
  }

  private announce(s: Settlement): void {
    const message = vscode.l10n.t('GPU Rental: {0}', settlementMessage(s));
    this.shown.push(message);
    this.update();
    if (s.kind === 'found') {
      this.onFound(s.instanceId);
      void vscode.window.showWarningMessage(message, vscode.l10n.t('Open When Ready')).then((choice) => {
        if (choice) void vscode.commands.executeCommand(COMMANDS.connect, s.instanceId);
      });
    } else if (s.kind === 'notCreated') {
      void vscode.window.showInformationMessage(message);
    } else {
      void vscode.window.showWarningMessage(message);
    }
  }

  dispose(): void {
    clearInterval(this.timer);
    for (const d of this.disposables) d.dispose();
  }
}
