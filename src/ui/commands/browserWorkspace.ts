import * as vscode from 'vscode';
import type { Instance } from '../../core/api/instances';
import { closeBrowserWorkspace, openInBrowser, type OpenInBrowserDeps } from '../../core/browserWorkspace/open';
import type { LoginPages } from '../../core/browserWorkspace/loginPage';
import type { BrowserWorkspaces } from '../../core/browserWorkspace/sessions';
import { COMMANDS } from '../../core/ids';
import { instancePhase } from '../../core/instances/phase';
import type { InstancePoller } from '../../core/instances/poller';
import type { Logger } from '../../core/log';
import type { Session } from '../../core/session/session';
import type { PortForwards } from '../../core/ssh/forward';
import type { SshTarget } from '../../core/ssh/remote';
import { config } from '../host/config';
import type { RemoteHandoff } from '../host/remote';
import { notify } from '../pickers/notify';
import { showProgress } from '../pickers/progress';
import { command, type CommandDefinition } from '../registry';
import { resolveTarget, type Target } from './instances';

/** What Open in Browser and Close Browser Workspace use. */
export interface BrowserWorkspaceDeps {
  readonly session: Session;
  readonly poller: InstancePoller;
  readonly forwards: PortForwards;
  readonly workspaces: BrowserWorkspaces;
  readonly loginPages: LoginPages;
  readonly sshTarget: (instance: Instance) => Promise<SshTarget>;
  /** Reads a checksum URL through the extension's HTTP stack (the user's proxy). */
  readonly fetchText: (url: string, signal: AbortSignal) => Promise<string>;
  /** A getter: integration tests observe what is opened outside VS Code. */
  readonly handoff: () => RemoteHandoff;
  readonly logger: Logger;
}

/** What Open in Browser ended with, for tests: the forward (never the password), or why none. */
export type OpenInBrowserOutcome =
  { outcome: 'opened'; instanceId: number; localPort: number; remotePort: number; how: string } | { outcome: 'failed' | 'cancelled' };

/** Open in Browser and Close Browser Workspace (decided in core/browserWorkspace/). */
export function browserWorkspaceCommands(s: BrowserWorkspaceDeps): CommandDefinition[] {
  return [
    command(COMMANDS.openInBrowser, (t?: Target) => open(s, t)),
    command(COMMANDS.closeBrowserWorkspace, (t?: Target) => close(s, t)),
  ];
}

async function open(s: BrowserWorkspaceDeps, t: Target): Promise<OpenInBrowserOutcome> {
  const picked = await resolveTarget(s, t, vscode.l10n.t('Open which instance in a browser?'), ['running']);
  if (!picked) return { outcome: 'cancelled' };
  const deps: OpenInBrowserDeps = {
    show: (id) => s.session.client.instances.show(id),
    sshTarget: s.sshTarget,
    progress: showProgress,
    fetchText: s.fetchText,
    release: config.browserWorkspaceRelease(),
    folder: config.remoteFolder() || '/root',
    forwards: s.forwards,
    workspaces: s.workspaces,
    loginPages: s.loginPages,
    logger: s.logger,
  };
  const result = await openInBrowser(deps, picked);
  if (result.kind === 'cancelled') return { outcome: 'cancelled' };
  if (result.kind === 'failed') {
    const settings = vscode.l10n.t('Open Settings');
    void vscode.window.showErrorMessage(result.notice.text, ...(result.offerSettings ? [settings] : [])).then((c) => {
      if (c) void vscode.commands.executeCommand('workbench.action.openSettings', 'gpuRental.browserWorkspace');
    });
    return { outcome: 'failed' };
  }
  // openExternal resolves a loopback URL the way the editor reaches it (a web editor's proxy): only
  // the sign-in page goes that way; it posts to the server's own loopback origin.
  const uri = vscode.Uri.parse(result.loginUrl);
  const handoff = s.handoff();
  await (handoff.openExternal ? handoff.openExternal(uri) : vscode.env.openExternal(uri));
  const closeLabel = vscode.l10n.t('Close');
  void vscode.window
    .showInformationMessage(
      vscode.l10n.t(
        'GPU Rental: VS Code on {0} opens in your browser (served by the instance, forwarded to {1}). Close it here when you are done.',
        result.name,
        result.serverUrl,
      ),
      closeLabel,
    )
    .then((c) => {
      if (c) void vscode.commands.executeCommand(COMMANDS.closeBrowserWorkspace, result.instance.id);
    });
  return { outcome: 'opened', instanceId: result.instance.id, localPort: result.localPort, remotePort: result.remotePort, how: result.how };
}

async function close(s: BrowserWorkspaceDeps, t: Target): Promise<void> {
  const id = await pickOpen(s, t);
  if (id === undefined) return;
  const notice = await closeBrowserWorkspace(
    {
      workspaces: s.workspaces,
      sshTarget: async (instanceId) => {
        const instance = s.poller.snapshot?.instances.find((i) => i.id === instanceId);
        return instance && instancePhase(instance) === 'running' ? s.sshTarget(instance) : undefined;
      },
      logger: s.logger,
    },
    id,
  );
  void notify(notice);
}

/** The instance whose browser workspace to close: the one given, the only one open, or the one picked. */
async function pickOpen(s: BrowserWorkspaceDeps, t: Target): Promise<number | undefined> {
  const open = s.workspaces.list();
  const given = typeof t === 'number' ? t : t && 'instance' in t ? t.instance.id : undefined;
  if (given !== undefined) return given;
  if (open.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('GPU Rental: no browser workspace is open in this window.'));
    return undefined;
  }
  if (open.length === 1) return open[0]!.instanceId;
  const picked = await vscode.window.showQuickPick(
    open.map((w) => ({ label: w.name, description: w.forward.url, id: w.instanceId })),
    { title: vscode.l10n.t('Close which browser workspace?') },
  );
  return picked?.id;
}
