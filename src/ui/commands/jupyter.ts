import * as vscode from 'vscode';
import type { Instance } from '../../core/api/instances';
import { COMMANDS } from '../../core/ids';
import { instancePhase } from '../../core/instances/phase';
import type { InstancePoller } from '../../core/instances/poller';
import { instanceName } from '../../core/instances/names';
import { launchedWithJupyter } from '../../core/instances/ssh';
import { findJupyter, httpStatus } from '../../core/jupyter/find';
import { jupyterUrl, servedPage, type JupyterServer } from '../../core/jupyter/servers';
import type { Logger } from '../../core/log';
import type { Session } from '../../core/session/session';
import { freeLocalPort, startPortForward, type PortForward, type PortForwards } from '../../core/ssh/forward';
import type { SshTarget } from '../../core/ssh/remote';
import type { RemoteHandoff } from '../remote';
import { resolveTarget, type Target } from './instances';
import { command, type CommandDefinition } from './registry';

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

/** The Jupyter extension, which takes a remote server's URL for VS Code's notebooks. */
const JUPYTER_EXTENSION = 'ms-toolsai.jupyter';

/** What Open Jupyter ended with, for tests: the forward (never the token), or why none. */
export type OpenJupyterResult =
  | { outcome: 'opened' | 'forwarded'; instanceId: number; localPort: number; remotePort: number; page: string }
  | { outcome: 'notRunning' | 'cancelled' };

/** Open Jupyter: find the instance's Jupyter server over ssh, forward it here, open it with its token. */
export function jupyterCommands(s: JupyterDeps): CommandDefinition[] {
  return [command(COMMANDS.openJupyter, (t?: Target, use?: JupyterUse) => openJupyter(s, t, use))];
}

async function openJupyter(s: JupyterDeps, t: Target, use: JupyterUse | undefined): Promise<OpenJupyterResult> {
  const picked = await resolveTarget(s, t, vscode.l10n.t('Open Jupyter on which instance?'), ['running']);
  if (!picked) return { outcome: 'cancelled' };
  // The list may be a poll old; the token and the phase are read as they are now.
  const instance = await s.session.client.instances.show(picked.id).catch(() => picked);
  const name = instanceName(instance);
  if (instancePhase(instance) !== 'running') {
    void vscode.window.showWarningMessage(
      vscode.l10n.t('GPU Rental: {0} is {1}; start it, then open Jupyter again.', name, instancePhase(instance)),
    );
    return { outcome: 'notRunning' };
  }
  const target = await s.sshTarget(instance);
  const lookup = await vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: vscode.l10n.t('GPU Rental: looking for Jupyter on {0}', name),
      cancellable: true,
    },
    (_progress, token) => {
      const abort = new AbortController();
      token.onCancellationRequested(() => abort.abort());
      return findJupyter(target, instance.jupyter_token, { signal: abort.signal });
    },
  );
  if (!lookup.found) {
    notRunning(s, instance);
    return { outcome: 'notRunning' };
  }
  const { server } = lookup;
  const forward = await forwardTo(s, instance, target, server);
  const page = await servedPage(server, forward.localPort, (url) => httpStatus(url));
  // The token stays out of the log: only the local address and the remote port are written.
  s.logger.info(`Jupyter on instance #${instance.id} (port ${server.port}) is forwarded to ${forward.url}${page}.`);
  const choice =
    use ??
    (await vscode.window
      .showInformationMessage(
        vscode.l10n.t(
          "GPU Rental: Jupyter on {0} is forwarded to {1}. Open it in a browser, or use it for VS Code's notebooks?",
          name,
          forward.url,
        ),
        vscode.l10n.t('Open in Browser'),
        vscode.l10n.t('Use for Notebooks'),
      )
      .then((c) =>
        c === vscode.l10n.t('Open in Browser') ? 'browser' : c === vscode.l10n.t('Use for Notebooks') ? 'notebooks' : undefined,
      ));
  const result = { instanceId: instance.id, localPort: forward.localPort, remotePort: server.port, page };
  if (choice === 'browser') {
    const uri = vscode.Uri.parse(jupyterUrl(server, forward.localPort, page));
    const handoff = s.handoff();
    await (handoff.openExternal ? handoff.openExternal(uri) : vscode.env.openExternal(uri));
    return { outcome: 'opened', ...result };
  }
  if (choice === 'notebooks') await useForNotebooks(s, name, jupyterUrl(server, forward.localPort));
  return { outcome: 'forwarded', ...result };
}

/** The forward this window already runs to that port, or a new one on the same local port number when it is free. */
async function forwardTo(s: JupyterDeps, instance: Instance, target: SshTarget, server: JupyterServer): Promise<PortForward> {
  const existing = s.forwards.find(instance.id, server.port);
  if (existing) return existing;
  const localPort = await freeLocalPort(server.port);
  const forward = await startPortForward({
    instanceId: instance.id,
    alias: target.alias,
    remotePort: server.port,
    localPort,
    sshArgs: target.args,
  });
  s.forwards.add(forward);
  return forward;
}

function notRunning(s: JupyterDeps, instance: Instance): void {
  const name = instanceName(instance);
  const why = launchedWithJupyter(instance)
    ? vscode.l10n.t('It was launched in a Jupyter mode, so it may still be starting: try again in a minute, or check its logs.')
    : vscode.l10n.t('It was not launched in a Jupyter launch mode: rent with Jupyter, or start a Jupyter server on it yourself.');
  s.logger.info(`No Jupyter server is listed on instance #${instance.id}.`);
  void vscode.window
    .showWarningMessage(vscode.l10n.t('GPU Rental: Jupyter is not running on {0}. {1}', name, why), vscode.l10n.t('Show Instance Logs'))
    .then((c) => {
      if (c) void vscode.commands.executeCommand(COMMANDS.showInstanceLogs, instance.id);
    });
}

/**
 * The server's URL (with its token) goes to the clipboard at the user's request, and the Jupyter
 * extension is asked to take a remote server, where it is pasted. Without the extension, says so.
 */
async function useForNotebooks(s: JupyterDeps, name: string, url: string): Promise<void> {
  await vscode.env.clipboard.writeText(url);
  // Neither the message nor the Jupyter extension's picker is waited for: the command ends here.
  if (!s.handoff().installedIds().has(JUPYTER_EXTENSION)) {
    void vscode.window
      .showWarningMessage(
        vscode.l10n.t(
          "GPU Rental: the Jupyter extension ({0}) is not installed, so VS Code's notebooks cannot use {1}'s server. Install it, then choose \"Existing Jupyter Server\" in a notebook's kernel picker and paste the URL (it is on the clipboard).",
          JUPYTER_EXTENSION,
          name,
        ),
        vscode.l10n.t('Install Jupyter Extension'),
      )
      .then((choice) => {
        if (choice) void s.handoff().installExtension(JUPYTER_EXTENSION);
      });
    return;
  }
  void vscode.window.showInformationMessage(
    vscode.l10n.t(
      "GPU Rental: the URL of {0}'s Jupyter server is on the clipboard. Paste it where the Jupyter extension asks for an existing server's URL.",
      name,
    ),
  );
  void vscode.commands.executeCommand('jupyter.selectjupyteruri').then(undefined, (error: unknown) => {
    s.logger.warn(`jupyter.selectjupyteruri: ${String(error)}`);
  });
}
