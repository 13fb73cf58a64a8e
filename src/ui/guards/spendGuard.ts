import * as vscode from 'vscode';
import { creditOf } from '../../core/account/funds';
import type { Instance } from '../../core/api/instances';
import { lowCreditNotice, SNOOZE_MS, spendButtonLabel, spendCapRefusal, type SpendNotice } from '../../core/billing/notices';
import { burnRate, type Burn } from '../../core/instances/rates';
import { LowCreditWatch, type LowCreditWarning } from '../../core/billing/lowCredit';
import { VIEWS } from '../../core/ids';
import type { InstancePoller } from '../../core/instances/poller';
import type { Session } from '../../core/session/session';
import type { GpuRentalState } from '../../core/stored';
import type { AccountStatus } from '../status/accountStatus';
import { config } from '../host/config';
import { notify } from '../pickers/notify';

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
    const refusal = spendCapRefusal(burnRate(poller.snapshot?.instances ?? []).perHour, addPerHour, cap, what);
    if (refusal) void this.show(refusal);
    return refusal === undefined;
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
    await this.show(lowCreditNotice(w, config.lowCreditAmount()));
  }

  /** Shows a notice and runs the button picked. */
  private async show(notice: SpendNotice): Promise<void> {
    const choice = await notify(notice, spendButtonLabel);
    if (choice === 'Open Settings') await vscode.commands.executeCommand('workbench.action.openSettings', 'gpuRental.maxHourlySpend');
    if (choice === 'Show Instances') await vscode.commands.executeCommand(`${VIEWS.instances}.focus`);
    const snooze = choice && SNOOZE_MS[choice];
    if (snooze) await this.snooze(snooze);
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
