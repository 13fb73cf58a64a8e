import { request as httpGet } from 'node:http';
import { request as httpsGet } from 'node:https';
import { lastErrorLine, RemoteCommandError, runRemote, type RemoteResult, type RunRemoteOptions, type SshTarget } from '../ssh/remote';
import { chooseServer, JUPYTER_LIST_COMMAND, parseServerList, type JupyterServer } from './servers';
import { l10n } from '../l10n';

/** What asking an instance for its Jupyter servers found. */
export type JupyterLookup =
  /** `server` is the one to open; `count` how many were listed. */
  | { found: true; server: JupyterServer; count: number }
  /** ssh worked and no server is listed: Jupyter is not running (not a Jupyter launch, or still starting). */
  | { found: false };

/**
 * Lists the Jupyter servers on the instance over ssh and picks one (see `chooseServer`). Rejects
 * with a RemoteCommandError when ssh cannot reach the instance.
 */
export async function findJupyter(
  target: SshTarget,
  instanceToken: string | null | undefined,
  options: RunRemoteOptions & { run?: (target: SshTarget, command: string, options: RunRemoteOptions) => Promise<RemoteResult> } = {},
): Promise<JupyterLookup> {
  const { run = runRemote, ...rest } = options;
  const result = await run(target, JUPYTER_LIST_COMMAND, { timeoutMs: 30_000, ...rest });
  if (result.code === 255) {
    throw new RemoteCommandError(
      l10n.t('Could not reach instance #{0} over SSH: {1}.', target.instanceId, lastErrorLine(result.stderr) || l10n.t('ssh failed')),
      // Whatever the list printed stays out of the error: it holds the servers' tokens.
      { ...result, stdout: '' },
    );
  }
  const servers = parseServerList(result.stdout);
  const server = chooseServer(servers, instanceToken);
  return server ? { found: true, server, count: servers.length } : { found: false };
}

/**
 * The HTTP status of a GET of `url` on this machine (a forwarded port), or undefined when nothing
 * answered within `timeoutMs`. A TLS server's certificate is its own self-signed one: only the
 * status is read, nothing is sent but the token it already holds.
 */
export function httpStatus(url: string, timeoutMs = 5_000): Promise<number | undefined> {
  return new Promise((resolve) => {
    const get = url.startsWith('https:') ? httpsGet : httpGet;
    const req = get(url, { method: 'GET', timeout: timeoutMs, rejectUnauthorized: false }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(undefined));
    req.end();
  });
}
