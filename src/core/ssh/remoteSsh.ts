import { l10n } from '../l10n';
/**
 * The extensions that open `vscode-remote://ssh-remote+<host>` folders. None is a dependency:
 * the one installed (or the one that fits the editor) is found at connect time.
 */
export interface RemoteSshExtension {
  id: string;
  name: string;
  /** The settings section it reads (`<section>.remotePlatform`, `<section>.configFile`). */
  section: string;
}

export const REMOTE_SSH_EXTENSIONS: readonly RemoteSshExtension[] = [
  { id: 'ms-vscode-remote.remote-ssh', name: l10n.t('Remote - SSH (Microsoft)'), section: 'remote.SSH' },
  { id: 'anysphere.remote-ssh', name: l10n.t('Remote - SSH (Cursor)'), section: 'remote.SSH' },
  { id: 'codeium.windsurf-remote-openssh', name: l10n.t('Remote - SSH (Windsurf)'), section: 'remote.windsurfSSH' },
  { id: 'jeanp413.open-remote-ssh', name: l10n.t('Open Remote - SSH'), section: 'remote.SSH' },
  { id: 'google.antigravity-remote-openssh', name: l10n.t('Remote - SSH (Antigravity)'), section: 'remote.antigravitySSH' },
];

/** The extension that belongs to this editor, told by `vscode.env.appName` and `uriScheme`. */
export function nativeRemoteSsh(appName: string, uriScheme: string): RemoteSshExtension {
  const app = `${appName} ${uriScheme}`.toLowerCase();
  const byId = (id: string) => REMOTE_SSH_EXTENSIONS.find((e) => e.id === id)!;
  if (app.includes('cursor')) return byId('anysphere.remote-ssh');
  if (app.includes('windsurf')) return byId('codeium.windsurf-remote-openssh');
  if (app.includes('antigravity')) return byId('google.antigravity-remote-openssh');
  // VSCodium and the other open builds cannot use Microsoft's extension.
  if (app.includes('codium') || app.includes('code - oss') || app.includes('code-oss')) return byId('jeanp413.open-remote-ssh');
  return byId('ms-vscode-remote.remote-ssh');
}

/**
 * Which installed extension to hand the folder to: the editor's own when it is installed, else
 * the first installed in the list's order; undefined when none is.
 */
export function pickRemoteSsh(installed: ReadonlySet<string>, appName: string, uriScheme: string): RemoteSshExtension | undefined {
  const lower = new Set([...installed].map((id) => id.toLowerCase()));
  const native = nativeRemoteSsh(appName, uriScheme);
  if (lower.has(native.id)) return native;
  return REMOTE_SSH_EXTENSIONS.find((e) => lower.has(e.id));
}

/** The folder URI that Remote-SSH resolves: `vscode-remote://ssh-remote+<alias><folder>`. */
export function remoteFolderUri(alias: string, folder: string | undefined): string {
  if (!/^[a-z0-9][a-z0-9.-]*$/.test(alias)) throw new Error(l10n.t('"{0}" is not a usable SSH alias.', alias));
  const path = folder?.trim() ? (folder.trim().startsWith('/') ? folder.trim() : `/${folder.trim()}`) : '/';
  const encoded = path
    .split('/')
    .map((part) => encodeURIComponent(part))
    .join('/');
  return `vscode-remote://ssh-remote+${alias}${encoded}`;
}
