import * as vscode from 'vscode';
import { creditOf } from '../core/account/funds';
import type { Instance } from '../core/api/instances';
import { checkSpendCap, formatHours } from '../core/billing/burn';
import { burnRate, type Burn } from '../core/instances/rates';
import { LowCreditWatch, type LowCreditWarning } from '../core/billing/lowCredit';
import { VIEWS } from '../core/ids';
import type { InstancePoller } from '../core/instances/poller';
import type { Session } from '../core/session/session';
import type { GpuRentalState } from '../core/stored';
import type { AccountStatus } from './accountStatus';
import { config } from './config';
import { formatDollars } from '../core/format';
import { sentences } from '../core/l10n';

/** While anything bills, the credit is read again this often, so the projection stays true. */
const CREDIT_REFRESH_MS = 2 * 60_000;

/**
 * Money on screen: the burn rate beside the credit in the status bar (its tooltip has each
 * instance's share and how long the credit lasts), and a warning when the credit runs low, once
 * per crossing and snoozable. Failed instances that still bill for disk flag the status bar.
 */
export class SpendGuard implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private readonly watch: LowCreditWatch;
  private creditTimer: ReturnType<typeof setInterval> | undefined;
  private lastBurn: Burn | undefined;
  /** Every warning shown in this window, for tests. */
  readonly warnings: LowCreditWarning[] = [];

  constructor(
    private readonly session: Session,
    poller: InstancePoller,
    private readonly account: AccountStatus,
    private readonly state: GpuRentalState,
  ) {
    this.watch = new LowCreditWatch(() => ({ hours: config.lowCreditHours(), amount: config.lowCreditAmount() }));
    const snoozed = state.get('lowCreditSnoozedUntil');
    if (snoozed > Date.now()) this.watch.snooze(snoozed);
    this.disposables.push(
      poller.onDidUpdate((snapshot) => this.update(snapshot.instances)),
      session.onDidChangeState((s) => {
        if (s.kind !== 'ready') {
          this.lastBurn = undefined;
          this.account.setBurn(undefined);
          this.setCreditTimer(false);
        } else this.check();
      }),
    );
  }

  /** The burn rate from the last instance list (undefined before the first). */
  get burn(): Burn | undefined {
    return this.lastBurn;
  }

  update(instances: readonly Instance[]): void {
    this.lastBurn = burnRate(instances);
    this.account.setBurn(this.lastBurn);
    this.setCreditTimer(this.lastBurn.perHour > 0);
    this.check();
  }

  /**
   * Whether `addPerHour` more fits under `gpuRental.maxHourlySpend`, counted against the
   * instance list as it is now. When it does not, says so (naming the cap and the setting).
   */
  async allows(poller: InstancePoller, addPerHour: number, what: string): Promise<boolean> {
    const cap = config.maxHourlySpend();
    if (cap === undefined) return true;
    await poller.refresh();
    const now = burnRate(poller.snapshot?.instances ?? []).perHour;
    const check = checkSpendCap(now, addPerHour, cap);
    if (check.allowed) return true;
    void vscode.window
      .showErrorMessage(
        sentences(
          vscode.l10n.t('GPU Rental: not {0}.', what),
          vscode.l10n.t(
            'It would bring the hourly spend to {0}/h ({1}/h now + {2}/h), over your cap of {3}/h set in gpuRental.maxHourlySpend.',
            formatDollars(check.total),
            formatDollars(now),
            formatDollars(addPerHour),
            formatDollars(cap),
          ),
          vscode.l10n.t('Stop something first, or raise the cap.'),
        ),
        vscode.l10n.t('Open Settings'),
      )
      .then((c) => {
        if (c) void vscode.commands.executeCommand('workbench.action.openSettings', 'gpuRental.maxHourlySpend');
      });
    return false;
  }

  async snooze(ms: number): Promise<void> {
    const until = Date.now() + ms;
    this.watch.snooze(until);
    await this.state.update('lowCreditSnoozedUntil', until);
  }

  dispose(): void {
    this.setCreditTimer(false);
    for (const d of this.disposables) d.dispose();
  }

  private check(): void {
    const state = this.session.state;
    // A key that may not read the account has no credit to watch (its tooltip says so); an account
    // read without a credit figure is told once that the limits cannot be checked.
    if (state.kind !== 'ready' || !state.user || !this.lastBurn) return;
    const warning = this.watch.update(creditOf(state.user), this.lastBurn.perHour, Date.now());
    if (warning) void this.warn(warning);
  }

  private async warn(w: LowCreditWarning): Promise<void> {
    this.warnings.push(w);
    if (w.reason === 'unknown') {
      const unknown = await vscode.window.showWarningMessage(
        vscode.l10n.t(
          "GPU Rental: the service did not report the account's credit, so GPU Rental cannot warn when it runs low. Instances bill {0}/h now; check the credit on the service's web console.",
          formatDollars(w.perHour),
        ),
        vscode.l10n.t('Show Instances'),
      );
      if (unknown === vscode.l10n.t('Show Instances')) await vscode.commands.executeCommand(`${VIEWS.instances}.focus`);
      return;
    }
    const why =
      w.reason === 'amount'
        ? vscode.l10n.t('the credit is down to {0}, below your {1} limit', formatDollars(w.credit), formatDollars(config.lowCreditAmount()))
        : vscode.l10n.t(
            'at {0}/h the credit of {1} lasts about {2}',
            formatDollars(w.perHour),
            formatDollars(w.credit),
            formatHours(w.hoursLeft),
          );
    const choice = await vscode.window.showWarningMessage(
      w.perHour > 0
        ? vscode.l10n.t(
            'GPU Rental: low credit: {0}. When it runs out, running instances are stopped. Add credit, or stop what you do not need.',
            why,
          )
        : vscode.l10n.t('GPU Rental: low credit: {0}. Add credit, or stop what you do not need.', why),
      vscode.l10n.t('Show Instances'),
      vscode.l10n.t('Snooze 1 Hour'),
      vscode.l10n.t('Snooze 1 Day'),
    );
    if (choice === vscode.l10n.t('Show Instances')) await vscode.commands.executeCommand(`${VIEWS.instances}.focus`);
    if (choice === vscode.l10n.t('Snooze 1 Hour')) await this.snooze(3_600_000);
    if (choice === vscode.l10n.t('Snooze 1 Day')) await this.snooze(86_400_000);
  }

  private setCreditTimer(on: boolean): void {
    if (on && !this.creditTimer) {
      this.creditTimer = setInterval(() => {
        void this.session.refreshAccount();
      }, CREDIT_REFRESH_MS);
    } else if (!on && this.creditTimer) {
      clearInterval(this.creditTimer);
      this.creditTimer = undefined;
    }
  }
}
