import * as vscode from 'vscode';
import type { Instance } from '../../core/api/instances';
import type { CostTracker } from '../../core/billing/costs';
import { COMMANDS, CONTEXT } from '../../core/ids';
import { instancePhase } from '../../core/instances/phase';
import type { InstancePoller } from '../../core/instances/poller';
import { launchedWithJupyter } from '../../core/instances/ssh';
import { costText } from '../../core/instances/costText';
import { command, type CommandDefinition } from '../registry';
import { instanceIdOfAlias, windowAlias } from '../host/remote';

/** What the remote indicator's menu knows of this window's instance, as its context keys say it. */
export interface RemoteWindowState {
  /** The instance this window is connected to through Remote-SSH, undefined in any other window. */
  readonly instanceId: number | undefined;
  /** Its phase in the last poll; undefined when the account's list does not have it (another account, destroyed). */
  readonly phase: string | undefined;
  readonly jupyter: boolean;
}

/**
 * A Remote-SSH window on one of the account's instances. Which instance comes from the window's
 * remote authority (src/ui/host/remote.ts), once, as it cannot change for a window; whether it is the
 * account's, its phase and whether it runs Jupyter follow each poll, into the context keys the
 * remote indicator's menu (`statusBar/remoteIndicator`) reads.
 */
export class RemoteWindow implements vscode.Disposable {
  private readonly subscription: vscode.Disposable;
  private id: number | undefined = instanceIdOfAlias(windowAlias());
  private last: RemoteWindowState = { instanceId: undefined, phase: undefined, jupyter: false };

  constructor(private readonly poller: Pick<InstancePoller, 'snapshot' | 'onDidUpdate'>) {
    this.subscription = poller.onDidUpdate(() => this.update());
    this.update();
  }

  /** The instance this window is on, undefined when it is not a Remote-SSH window on an instance. */
  get instanceId(): number | undefined {
    return this.id;
  }

  /** What the context keys say now. */
  get state(): RemoteWindowState {
    return this.last;
  }

  /** This window's instance as the last poll has it, undefined when the account's list does not have it. */
  instance(): Instance | undefined {
    return this.id === undefined ? undefined : this.poller.snapshot?.instances.find((i) => i.id === this.id);
  }

  /**
   * Takes this window to be on instance `id` (undefined: on none). For integration tests, since
   * code-server cannot open a Remote-SSH window; it changes nothing but what this class reports.
   */
  pretend(id: number | undefined): void {
    this.id = id;
    this.update();
  }

  private update(): void {
    const instance = this.instance();
    const next: RemoteWindowState = {
      instanceId: this.id,
      phase: instance && instancePhase(instance),
      jupyter: instance !== undefined && launchedWithJupyter(instance),
    };
    if (next.phase === this.last.phase && next.jupyter === this.last.jupyter && next.instanceId === this.last.instanceId) return;
    this.last = next;
    void vscode.commands.executeCommand('setContext', CONTEXT.remoteInstance, next.phase ?? false);
    void vscode.commands.executeCommand('setContext', CONTEXT.remoteInstanceJupyter, next.jupyter);
  }

  dispose(): void {
    this.subscription.dispose();
  }
}

/** What the remote indicator's commands use. */
export interface RemoteWindowDeps {
  readonly remote: RemoteWindow;
  readonly poller: Pick<InstancePoller, 'refresh' | 'snapshot'>;
  readonly costs: Pick<CostTracker, 'refresh' | 'costOf'>;
}

/**
 * The remote indicator's menu: this window's instance's actions. Each runs the command the
 * Instances view runs, with this instance, so it asks the same confirmations and keeps the same
 * money rules (Destroy says this window loses its connection: src/core/instances/flows.ts).
 */
export function remoteWindowCommands(s: RemoteWindowDeps): CommandDefinition[] {
  return [
    command(COMMANDS.stopThisInstance, () => onThis(s, COMMANDS.stopInstance)),
    command(COMMANDS.destroyThisInstance, () => onThis(s, COMMANDS.destroyInstance)),
    command(COMMANDS.forwardPortOnThisInstance, (port?: unknown) => onThis(s, COMMANDS.forwardPort, port)),
    command(COMMANDS.openJupyterOnThisInstance, (use?: unknown) => onThis(s, COMMANDS.openJupyter, use)),
    command(COMMANDS.showThisInstanceCost, async () => {
      if ((await thisInstance(s)) === undefined) return undefined;
      const instance = s.remote.instance()!;
      // Every listed id, as the Instances view passes them: a shorter list would make its next read look stale.
      await s.costs.refresh((s.poller.snapshot?.instances ?? [instance]).map((i) => i.id));
      const text = costText(instance, s.costs.costOf(instance.id), Date.now());
      void vscode.window.showInformationMessage(vscode.l10n.t('GPU Rental: {0}', text));
      return text;
    }),
  ];
}

/** Runs an instance command with this window's instance (and what else it was given). */
async function onThis(s: RemoteWindowDeps, id: string, ...rest: unknown[]): Promise<unknown> {
  const instanceId = await thisInstance(s);
  return instanceId === undefined ? undefined : vscode.commands.executeCommand(id, instanceId, ...rest.filter((r) => r !== undefined));
}

/** This window's instance, after a fresh poll; says why not and resolves undefined when there is none. */
async function thisInstance(s: RemoteWindowDeps): Promise<number | undefined> {
  const id = s.remote.instanceId;
  if (id === undefined) {
    void vscode.window.showWarningMessage(
      vscode.l10n.t(
        'GPU Rental: this window is not a Remote-SSH window on a GPU Rental instance. Use the Instances view to act on an instance.',
      ),
    );
    return undefined;
  }
  await s.poller.refresh();
  if (!s.remote.instance()) {
    void vscode.window.showWarningMessage(
      vscode.l10n.t(
        'GPU Rental: this window is on instance #{0}, which the signed-in account does not list (destroyed, or rented with another profile). Switch profiles or refresh the Instances view.',
        id,
      ),
    );
    return undefined;
  }
  return id;
}
