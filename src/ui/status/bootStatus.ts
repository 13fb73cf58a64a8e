import * as vscode from 'vscode';
import { COMMANDS, VIEWS } from '../../core/ids';
import { bootStatus, type Booting } from '../../core/instances/boot';
import type { InstancePoller } from '../../core/instances/poller';
import { instancePhase } from '../../core/instances/phase';
import { bootButtonLabel, bootSpoken, failedNotice, runningNotice, type BootNotice } from '../../core/instances/bootNotices';
import type { Logger } from '../../core/log';
import { BootWatch, type BootChange } from '../../core/ssh/bootWatch';
import { readBanner } from '../../core/ssh/probe';
import { notify } from '../pickers/notify';
import type { GpuRentalState } from '../../core/stored';

/**
 * The status-bar boot watcher: phase and elapsed time while anything boots, a notification when
 * it is ready (its sshd answers, or the service says running) or fails. Core's BootWatch decides;
 * this shows. Boots in progress are saved in global state, so a reload keeps watching.
 */
export class BootStatus implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('gpuRental.boot', vscode.StatusBarAlignment.Left, 49);
  private readonly watch: BootWatch;
  private readonly disposables: vscode.Disposable[] = [];
  private booting: readonly Booting[] = [];
  /** Failed instances already pointed out, so each is announced once per window. */
  private readonly announcedFailures = new Set<number>();
  /** Instances whose boot a flow announces itself (see track). */
  private readonly quiet = new Set<number>();
  private ticker: ReturnType<typeof setInterval> | undefined;

  constructor(
    poller: InstancePoller,
    private readonly state: GpuRentalState,
    logger?: Logger,
  ) {
    this.item.name = vscode.l10n.t('GPU Rental Boot Progress');
    this.item.accessibilityInformation = { label: vscode.l10n.t('GPU Rental: nothing is booting') };
    this.item.command = `${VIEWS.instances}.focus`;
    this.watch = new BootWatch({
      poller,
      saved: state.get('boots'),
      logger,
      readBanner: (host, port, { timeoutMs, signal }) => readBanner(host, port, timeoutMs, signal),
    });
    this.disposables.push(
      this.watch,
      this.watch.onDidChange((change) => this.update(change)),
    );
  }

  /** The status bar text now, for tests. */
  get text(): string | undefined {
    return this.booting.length > 0 ? this.item.text : undefined;
  }

  get tooltipText(): string {
    const t = this.item.tooltip;
    return typeof t === 'string' ? t : (t?.value ?? '');
  }

  /**
   * Called when the user rents, starts or reboots an instance. `quiet`: its flow says how the boot
   * ended itself (a cluster's node: one notice for the cluster), so this window shows no notice of
   * its own for it; the status bar still shows the boot.
   */
  track(id: number, options: { quiet?: boolean } = {}): void {
    if (options.quiet) this.quiet.add(id);
    this.watch.track(id);
    void this.save();
  }

  dispose(): void {
    this.stopTicker();
    for (const d of this.disposables) d.dispose();
    this.item.dispose();
  }

  private update({ instances, booting, booted }: BootChange): void {
    this.booting = booting;
    this.render();
    void this.save();
    // Ready by its sshd or by the service's word: the same notice, with the same ways in.
    for (const { instance } of booted) if (!this.quiet.delete(instance.id)) void this.announce(runningNotice(instance), instance.id);
    // A failed instance never recovers and bills for its disk: point each out once, with Destroy.
    for (const instance of instances) {
      if (instancePhase(instance) !== 'failed' || this.announcedFailures.has(instance.id)) continue;
      this.announcedFailures.add(instance.id);
      // A quiet boot's flow settles its failure itself (replace, keep the others, or destroy them).
      if (this.quiet.delete(instance.id)) continue;
      void this.announce(failedNotice(instance), instance.id);
    }
  }

  private render(): void {
    const status = bootStatus(this.booting, Date.now());
    if (!status) {
      this.item.hide();
      this.stopTicker();
      return;
    }
    this.item.text = status.text;
    this.item.tooltip = new vscode.MarkdownString(status.tooltip);
    this.item.accessibilityInformation = { label: bootSpoken(this.booting, Date.now()) };
    this.item.show();
    // The clock ticks between polls; the phase only changes when the poller says so.
    this.ticker ??= setInterval(() => this.render(), 1_000);
  }

  private stopTicker(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = undefined;
  }

  private save(): Promise<void> {
    return this.state.update('boots', this.watch.entries());
  }

  /** Shows a notice and runs the command its picked button names, on the instance. */
  private async announce(notice: BootNotice, id: number): Promise<void> {
    const choice = await notify(notice, bootButtonLabel);
    if (choice) await vscode.commands.executeCommand(COMMANDS[choice], id);
  }
}
