import * as vscode from 'vscode';
import { COMMANDS, CONTEXT } from '../core/ids';
import type { Session } from '../core/session/session';
import type { InstancePoller, InstanceSnapshot } from '../core/instances/poller';
import { instancePhase } from '../core/instances/phase';
import type { OffersView } from './views/offersView';
import { command, type CommandDefinition } from './commands/registry';

/** The walkthrough's id in package.json (`contributes.walkthroughs`); VS Code names it `<extension id>#<this>`. */
export const WALKTHROUGH_ID = 'getStarted';

/** The context keys the walkthrough's steps complete on, each set by the action the step asks for. */
type StepKey = typeof CONTEXT.offersListed | typeof CONTEXT.rented | typeof CONTEXT.stopped;

export interface WalkthroughDeps {
  session: Pick<Session, 'onDidChangeState' | 'state'>;
  poller: Pick<InstancePoller, 'onDidUpdate' | 'snapshot'>;
  offersView: Pick<OffersView, 'onDidChangeTreeData' | 'offers'>;
}

/**
 * Marks the Get Started steps done when the user really does what they ask: offers listed in the
 * Offers view, an instance on the account, an instance stopped or destroyed. VS Code remembers a
 * completed step, so each key is set once and never cleared. Opening a step marks nothing.
 */
export class WalkthroughProgress implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private readonly marked = new Set<StepKey>();
  /** Instances seen in this session's snapshots: one missing later was destroyed. */
  private seen = new Set<number>();

  constructor(private readonly deps: WalkthroughDeps) {
    // The Offers view sets its rows before it fires for them (the price context's redraw comes after the rows are shown).
    this.disposables.push(deps.offersView.onDidChangeTreeData(() => this.offersShown()));
    this.disposables.push(deps.poller.onDidUpdate((snapshot) => this.instancesSeen(snapshot)));
    // Another account's list is not this one's: an instance missing after a switch was not destroyed.
    this.disposables.push(deps.session.onDidChangeState(() => (this.seen = new Set())));
    this.offersShown();
    if (deps.poller.snapshot) this.instancesSeen(deps.poller.snapshot);
  }

  private offersShown(): void {
    if (this.deps.offersView.offers.length > 0) this.mark(CONTEXT.offersListed);
  }

  private instancesSeen(snapshot: InstanceSnapshot): void {
    if (this.deps.session.state.kind !== 'ready') return;
    const now = new Set(snapshot.instances.map((i) => i.id));
    if (now.size > 0) this.mark(CONTEXT.rented);
    const phases = snapshot.instances.map((i) => instancePhase(i));
    const destroyed = [...this.seen].some((id) => !now.has(id));
    if (destroyed || phases.some((p) => p === 'stopped' || p === 'stopping' || p === 'gone')) this.mark(CONTEXT.stopped);
    this.seen = new Set([...this.seen, ...now]);
  }

  private mark(key: StepKey): void {
    if (this.marked.has(key)) return;
    this.marked.add(key);
    void vscode.commands.executeCommand('setContext', key, true);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

/** Get Started: opens the walkthrough, from the palette or the welcome view, before or after sign-in. */
export function walkthroughCommands(deps: { extensionId: string }): CommandDefinition[] {
  return [
    command(COMMANDS.openWalkthrough, () =>
      vscode.commands.executeCommand('workbench.action.openWalkthrough', `${deps.extensionId}#${WALKTHROUGH_ID}`, false),
    ),
  ];
}
