import * as vscode from 'vscode';
import type { Instance } from '../../core/api/instances';
import { endedNotice, endedPhase, type BrowserWorkspaces } from '../../core/browserWorkspace/sessions';
import { COMMANDS } from '../../core/ids';
import { instancePhase } from '../../core/instances/phase';
import type { InstancePoller } from '../../core/instances/poller';
import { notify } from '../pickers/notify';

/**
 * The status item while browser workspaces are open (a click closes one), and the notice when one
 * ends by itself: its instance stopped or was destroyed, or the connection dropped.
 */
export function browserWorkspaceStatus(s: {
  workspaces: BrowserWorkspaces;
  poller: InstancePoller;
  show: (id: number) => Promise<Instance>;
}): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('gpuRental.browserWorkspace', vscode.StatusBarAlignment.Left, 48);
  item.name = vscode.l10n.t('GPU Rental: browser workspaces');
  item.command = COMMANDS.closeBrowserWorkspace;
  const update = () => {
    const open = s.workspaces.list();
    if (open.length === 0) return item.hide();
    item.text = `$(globe) ${open.length === 1 ? open[0]!.name : vscode.l10n.t('{0} in browsers', open.length)}`;
    item.tooltip = vscode.l10n.t('VS Code served by {0}, open in your browser. Click to close it.', open.map((w) => w.name).join(', '));
    item.show();
  };
  const changed = s.workspaces.onChanged(update);
  const ended = s.workspaces.onEnded((w) => {
    const listed = s.poller.snapshot?.instances.find((i) => i.id === w.instanceId);
    void endedPhase(s.show, w.instanceId, listed ? instancePhase(listed) : 'gone').then((phase) => notify(endedNotice(w.name, phase)));
  });
  return vscode.Disposable.from(item, changed, ended);
}
