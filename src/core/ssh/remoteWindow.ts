/**
 * Which SSH host a Remote-SSH window is on, from what VS Code tells the extension: `env.remoteName`
 * and the authority of the workspace's folder or file URI (`vscode-remote://ssh-remote+<host>/...`).
 */

const PREFIX = 'ssh-remote+';

/**
 * The SSH host alias behind a window's remote authority, or undefined when the window is not a
 * Remote-SSH one. The host part is URL-encoded in the URI; Remote-SSH writes a host it cannot put
 * there plainly as hex of `{"hostName": ...}`, which is read too.
 *
 *   aliasOfRemoteAuthority('ssh-remote', 'ssh-remote+gpu-rental-12')  -> 'gpu-rental-12'
 *   aliasOfRemoteAuthority('wsl', 'wsl+Ubuntu')                       -> undefined
 */
export function aliasOfRemoteAuthority(remoteName: string | undefined, authority: string | undefined): string | undefined {
  if (remoteName !== 'ssh-remote' || !authority?.startsWith(PREFIX)) return undefined;
  let host: string;
  try {
    host = decodeURIComponent(authority.slice(PREFIX.length));
  } catch {
    return undefined;
  }
  if (/^(?:[0-9a-f]{2})+$/i.test(host) && host.toLowerCase().startsWith('7b')) {
    try {
      const parsed: unknown = JSON.parse(Buffer.from(host, 'hex').toString('utf8'));
      const name = typeof parsed === 'object' && parsed !== null ? (parsed as { hostName?: unknown }).hostName : undefined;
      if (typeof name === 'string') host = name;
    } catch {
      // Not hex JSON after all: a host name made of hex digits.
    }
  }
  return host || undefined;
}
