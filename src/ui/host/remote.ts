import * as vscode from 'vscode';
import { parseHostAlias } from '../../core/ssh/config';
import { aliasOfRemoteAuthority } from '../../core/ssh/remoteWindow';
import { REMOTE_SSH_EXTENSIONS, pickRemoteSsh, nativeRemoteSsh, type RemoteSshExtension } from '../../core/ssh/remoteSsh';

/**
 * The editor side of the handoff: which Remote-SSH extension is installed, and how a folder is
 * opened. Integration tests replace it to observe the exact URI and options, since code-server
 * has no Remote-SSH and a new window cannot be watched from the extension host.
 */
export interface RemoteHandoff {
  installedIds(): ReadonlySet<string>;
  openFolder(uri: vscode.Uri, options: { forceNewWindow: boolean }): Thenable<unknown>;
  /** An empty window on the remote, when no folder is configured. */
  openEmptyWindow(remoteAuthority: string): Thenable<unknown>;
  installExtension(id: string): Thenable<unknown>;
  /** Opens a URL outside VS Code (a browser); optional so a test's handoff may leave it to VS Code. */
  openExternal?(uri: vscode.Uri): Thenable<boolean>;
}

export const vscodeHandoff: RemoteHandoff = {
  installedIds: () => new Set(vscode.extensions.all.map((e) => e.id.toLowerCase())),
  openFolder: (uri, options) => vscode.commands.executeCommand('vscode.openFolder', uri, options),
  openEmptyWindow: (remoteAuthority) => vscode.commands.executeCommand('vscode.newWindow', { remoteAuthority, reuseWindow: false }),
  installExtension: (id) => vscode.commands.executeCommand('workbench.extensions.installExtension', id),
  openExternal: (uri) => vscode.env.openExternal(uri),
};

export function installedRemoteSsh(handoff: RemoteHandoff): RemoteSshExtension | undefined {
  return pickRemoteSsh(handoff.installedIds(), vscode.env.appName, vscode.env.uriScheme);
}

export function editorsRemoteSsh(): RemoteSshExtension {
  return nativeRemoteSsh(vscode.env.appName, vscode.env.uriScheme);
}

/** The SSH config Remote-SSH reads: its `configFile` setting, else undefined (~/.ssh/config). */
export function remoteSshConfigFile(handoff: RemoteHandoff): string | undefined {
  const section = (installedRemoteSsh(handoff) ?? editorsRemoteSsh()).section;
  const value =
    vscode.workspace.getConfiguration(section).get<string>('configFile') ||
    vscode.workspace.getConfiguration('remote.SSH').get<string>('configFile');
  return value?.trim() || undefined;
}

/** Tells Remote-SSH the host runs Linux, so it does not ask. Written to user settings, one key per alias. */
export async function setRemotePlatform(extension: RemoteSshExtension, alias: string): Promise<void> {
  const cfg = vscode.workspace.getConfiguration(extension.section);
  const current = cfg.get<Record<string, string>>('remotePlatform') ?? {};
  if (current[alias] === 'linux') return;
  await cfg.update('remotePlatform', { ...current, [alias]: 'linux' }, vscode.ConfigurationTarget.Global);
}

/** Takes a destroyed instance's alias out of every Remote-SSH section that has it. */
export async function forgetRemotePlatform(alias: string): Promise<void> {
  for (const section of new Set(REMOTE_SSH_EXTENSIONS.map((e) => e.section))) {
    const cfg = vscode.workspace.getConfiguration(section);
    const current = cfg.inspect<Record<string, string>>('remotePlatform')?.globalValue;
    if (!current || !(alias in current)) continue;
    const rest = Object.fromEntries(Object.entries(current).filter(([k]) => k !== alias));
    await cfg.update('remotePlatform', Object.keys(rest).length ? rest : undefined, vscode.ConfigurationTarget.Global);
  }
}

/** The instance id behind one of this extension's SSH aliases (gpu-rental-[profile-]<id>). */
export function instanceIdOfAlias(alias: string | undefined): number | undefined {
  return parseHostAlias(alias)?.instanceId;
}

/** The alias this window is connected to through Remote-SSH, if any. */
export function windowAlias(): string | undefined {
  // A saved workspace file on the instance carries the authority; an untitled one does not, its folders do.
  const uris = [vscode.workspace.workspaceFile, ...(vscode.workspace.workspaceFolders ?? []).map((f) => f.uri)];
  for (const uri of uris) {
    const alias = aliasOfRemoteAuthority(vscode.env.remoteName, uri?.authority);
    if (alias) return alias;
  }
  return undefined;
}
