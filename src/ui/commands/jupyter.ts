import * as vscode from 'vscode';
import type { Instance } from '../../core/api/instances';
import { COMMANDS } from '../../core/ids';
import type { InstancePoller } from '../../core/instances/poller';
import { JUPYTER_EXTENSION, notebooksNotice, reachJupyter, type ReachJupyterDeps } from '../../core/jupyter/open';
import type { Logger } from '../../core/log';
import type { Session } from '../../core/session/session';
import type { PortForwards } from '../../core/ssh/forward';
import type { SshTarget } from '../../core/ssh/remote';
import type { RemoteHandoff } from '../host/remote';
import { notify } from '../pickers/notify';
import { showProgress } from '../pickers/progress';
import { resolveTarget, type Target } from './instances';
import { command, type CommandDefinition } from '../registry';

/** What Open Jupyter uses. */
export interface JupyterDeps {
  readonly session: Session;
  readonly poller: InstancePoller;
  readonly forwards: PortForwards;
  /** Writes the instance's SSH entry and says how ssh reaches it. */
  readonly sshTarget: (instance: Instance) => Promise<SshTarget>;
  /** A getter: integration tests observe what is opened outside VS Code. */
  readonly handoff: () => RemoteHandoff;
  readonly logger: Logger;
}

/** Where to use the server: in a browser, or as the Jupyter extension's remote server. */
export type JupyterUse = 'browser' | 'notebooks';

/** What Open Jupyter ended with, for tests: the forward (never the token), or why none. */
export type OpenJupyterResult =
  | { outcome: 'opened' | 'forwarded'; instanceId: number; localPort: number; remotePort: number; page: string }
  | { outcome: 'notRunning' | 'cancelled' };

/** Open Jupyter: find the instance's Jupyter server over ssh, forward it here, open it with its token (decided in core/jupyter/open.ts). */
export function jupyterCommands(s: JupyterDeps): CommandDefinition[] {
  return [command(COMMANDS.openJupyter, (t?: Target, use?: JupyterUse) => openJupyter(s, t, use))];
}

async function openJupyter(s: JupyterDeps, t: Target, use: JupyterUse | undefined): Promise<OpenJupyterResult> {
  const picked = await resolveTarget(s, t, vscode.l10n.t('Open Jupyter on which instance?'), ['running']);
  if (!picked) return { outcome: 'cancelled' };
  const deps: ReachJupyterDeps = {
    show: (id) => s.session.client.instances.show(id),
    sshTarget: s.sshTarget,
    progress: showProgress,
    forwards: s.forwards,
    logger: s.logger,
  };
  const reached = await reachJupyter(deps, picked);
  if (reached.kind === 'cancelled') return { outcome: 'cancelled' };
  if (reached.kind === 'notRunning') {
    const logs = reached.offerLogs ? [vscode.l10n.t('Show Instance Logs')] : [];
    void vscode.window.showWarningMessage(reached.notice, ...logs).then((c) => {
      if (c) void vscode.commands.executeCommand(COMMANDS.showInstanceLogs, reached.instanceId);
    });
    return { outcome: 'notRunning' };
  }
  const browser = vscode.l10n.t('Open in Browser');
  const notebooks = vscode.l10n.t('Use for Notebooks');
  const choice =
    use ??
    (await vscode.window
      .showInformationMessage(reached.question, browser, notebooks)
      .then((c) => (c === browser ? 'browser' : c === notebooks ? 'notebooks' : undefined)));
  const result = { instanceId: reached.instance.id, localPort: reached.localPort, remotePort: reached.remotePort, page: reached.page };
  if (choice === 'browser') {
    const uri = vscode.Uri.parse(reached.browserUrl);
    const handoff = s.handoff();
    await (handoff.openExternal ? handoff.openExternal(uri) : vscode.env.openExternal(uri));
    return { outcome: 'opened', ...result };
  }
  if (choice === 'notebooks') await useForNotebooks(s, reached.name, reached.serverUrl);
  return { outcome: 'forwarded', ...result };
}

/**
 * The server's URL (with its token) goes to the clipboard at the user's request, and the Jupyter
 * extension is asked to take a remote server, where it is pasted. Without the extension, says so.
 */
async function useForNotebooks(s: JupyterDeps, name: string, url: string): Promise<void> {
  await vscode.env.clipboard.writeText(url);
  const installed = s.handoff().installedIds().has(JUPYTER_EXTENSION);
  const notice = notebooksNotice(name, installed);
  // Neither the message nor the Jupyter extension's picker is waited for: the command ends here.
  if (!installed) {
    void vscode.window.showWarningMessage(notice.text, vscode.l10n.t('Install Jupyter Extension')).then((choice) => {
      if (choice) void s.handoff().installExtension(JUPYTER_EXTENSION);
    });
    return;
  }
  void notify(notice);
  void vscode.commands.executeCommand('jupyter.selectjupyteruri').then(undefined, (error: unknown) => {
    s.logger.warn(`jupyter.selectjupyteruri: ${String(error)}`);
  });
}
