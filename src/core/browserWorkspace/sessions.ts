import type { Instance } from '../api/instances';
import { ApiError } from '../api/errors';
import { instancePhase, type InstancePhase } from '../instances/phase';
import { l10n } from '../l10n';
import type { Notice } from '../notice';
import type { PortForward, PortForwards } from '../ssh/forward';

/** One instance's VS Code server, forwarded to this machine and open in a browser. */
export interface BrowserWorkspace {
  readonly instanceId: number;
  readonly name: string;
  /** The server's port on the instance's loopback. */
  readonly remotePort: number;
  readonly forward: PortForward;
  /** The folder it opened on the instance. */
  readonly folder: string;
}

/**
 * The browser workspaces this window opened. Each lives as long as its forward: Close ends it (and
 * the server), and so does the forward ending by itself (the instance stopped or was destroyed,
 * the connection dropped), which is told through `onEnded` so the user hears why.
 */
export class BrowserWorkspaces {
  private readonly open = new Map<number, BrowserWorkspace>();
  private readonly closing = new Set<PortForward>();
  private readonly listeners = new Set<(ended: BrowserWorkspace) => void>();
  private readonly changeListeners = new Set<() => void>();

  constructor(private readonly forwards: Pick<PortForwards, 'stop'>) {}

  add(workspace: BrowserWorkspace): void {
    const before = this.open.get(workspace.instanceId);
    this.open.set(workspace.instanceId, workspace);
    if (before !== workspace) {
      void workspace.forward.ended.then(() => {
        if (this.open.get(workspace.instanceId) !== workspace) return;
        this.open.delete(workspace.instanceId);
        this.changed();
        if (!this.closing.delete(workspace.forward)) for (const listener of this.listeners) listener(workspace);
      });
    }
    this.changed();
  }

  get(instanceId: number): BrowserWorkspace | undefined {
    return this.open.get(instanceId);
  }

  list(): BrowserWorkspace[] {
    return [...this.open.values()];
  }

  /** Ends this window's side (the forward); the caller stops the server. Returns what was open. */
  close(instanceId: number): BrowserWorkspace | undefined {
    const workspace = this.open.get(instanceId);
    if (!workspace) return undefined;
    this.closing.add(workspace.forward);
    this.open.delete(instanceId);
    this.forwards.stop(workspace.forward);
    this.changed();
    return workspace;
  }

  /** Called when a workspace ends without Close (its forward ended by itself). */
  onEnded(listener: (ended: BrowserWorkspace) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** Called when one opens or ends (the status item follows it). */
  onChanged(listener: () => void): { dispose(): void } {
    this.changeListeners.add(listener);
    return { dispose: () => this.changeListeners.delete(listener) };
  }

  private changed(): void {
    for (const listener of this.changeListeners) listener();
  }
}

/**
 * What became of an instance whose browser workspace ended by itself, asked of the service: the
 * list may be a poll behind the stop that ended the forward. 'gone' when the service no longer
 * has it; `fallback` (the list's phase) when it cannot be asked.
 */
export async function endedPhase(
  show: (id: number) => Promise<Instance>,
  id: number,
  fallback: InstancePhase | 'gone' | undefined,
): Promise<InstancePhase | 'gone' | undefined> {
  try {
    return instancePhase(await show(id));
  } catch (error) {
    return error instanceof ApiError && error.kind === 'not_found' ? 'gone' : fallback;
  }
}

/** What the user is told when a browser workspace ends by itself, by what became of its instance. */
export function endedNotice(name: string, phase: InstancePhase | 'gone' | undefined): Notice {
  if (phase === 'gone') {
    return { severity: 'warning', text: l10n.t('GPU Rental: {0} was destroyed, so its VS Code in the browser has ended.', name) };
  }
  if (phase && phase !== 'running') {
    return {
      severity: 'warning',
      text: l10n.t(
        'GPU Rental: {0} is {1}, so its VS Code in the browser has ended. Unsaved changes in that tab are lost; start the instance, then Open in Browser again.',
        name,
        phase,
      ),
    };
  }
  return {
    severity: 'warning',
    text: l10n.t(
      'GPU Rental: the connection to the VS Code in the browser on {0} dropped. Open in Browser again to reconnect: the server on the instance keeps your session.',
      name,
    ),
  };
}
