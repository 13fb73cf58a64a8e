import type { Instance } from '../api/instances';
import { instanceName } from '../instances/names';
import { instancePhase } from '../instances/phase';
import { launchedWithJupyter } from '../instances/ssh';
import { l10n } from '../l10n';
import type { Logger } from '../log';
import type { Notice } from '../notice';
import type { Progress } from '../progress';
import { forwardTo, type PortForward, type PortForwards } from '../ssh/forward';
import type { SshTarget } from '../ssh/remote';
import { findJupyter, httpStatus, type JupyterLookup } from './find';
import { jupyterUrl, servedPage, type JupyterPage, type JupyterServer } from './servers';

/*
 * Open Jupyter's decisions: whether the instance can serve it, finding its server over ssh (under
 * the Progress port, whose Cancel ends the lookup), forwarding it here, which page it serves, and
 * what the user is told. The ui command (src/ui/commands/jupyter.ts) shows the notices and opens
 * what the user picks.
 */

/** The Jupyter extension, which takes a remote server's URL for VS Code's notebooks. */
export const JUPYTER_EXTENSION = 'ms-toolsai.jupyter';

/** What reaching an instance's Jupyter reads and acts through. */
export interface ReachJupyterDeps {
  /** The instance as it is now (the list may be a poll old); the token and the phase are read from it. */
  show(id: number): Promise<Instance>;
  /** Writes the instance's SSH entry and says how ssh reaches it. */
  sshTarget(instance: Instance): Promise<SshTarget>;
  /** The lookup's progress, whose Cancel ends it (UI: a notification). */
  readonly progress: Progress;
  /** Lists the servers over ssh, ended when `signal` aborts (findJupyter unless a test gives another). */
  lookup?(target: SshTarget, instanceToken: string | null | undefined, signal: AbortSignal): Promise<JupyterLookup>;
  readonly forwards: Pick<PortForwards, 'find' | 'add'>;
  /** Starts a forward (the real one unless a test gives another). */
  startForward?(instance: Instance, target: SshTarget, server: JupyterServer): Promise<PortForward>;
  /** The HTTP status of a local URL (the real GET unless a test gives another). */
  status?(url: string): Promise<number | undefined>;
  readonly logger: Logger;
}

/** Jupyter forwarded here: what to open, and the question whether to use it in a browser or for notebooks. */
export interface JupyterReached {
  readonly kind: 'reached';
  readonly instance: Instance;
  readonly name: string;
  readonly localPort: number;
  readonly remotePort: number;
  readonly page: JupyterPage;
  /** The page to open in a browser, and the server's root for the Jupyter extension (both with the token). */
  readonly browserUrl: string;
  readonly serverUrl: string;
  readonly question: string;
}

/** Jupyter cannot be opened: what to tell the user, and whether to offer the instance's logs. */
export interface JupyterNotRunning {
  readonly kind: 'notRunning';
  readonly instanceId: number;
  readonly notice: string;
  readonly offerLogs: boolean;
}

/** The user cancelled the lookup: nothing was forwarded, and nothing more is said. */
export interface JupyterCancelled {
  readonly kind: 'cancelled';
}

/** Finds the instance's Jupyter server and forwards it here (reusing this window's forward to it). */
export async function reachJupyter(
  deps: ReachJupyterDeps,
  picked: Instance,
): Promise<JupyterReached | JupyterNotRunning | JupyterCancelled> {
  const instance = await deps.show(picked.id).catch(() => picked);
  const name = instanceName(instance);
  const phase = instancePhase(instance);
  if (phase !== 'running') {
    const notice = l10n.t('GPU Rental: {0} is {1}; start it, then open Jupyter again.', name, phase);
    return { kind: 'notRunning', instanceId: instance.id, notice, offerLogs: false };
  }
  const target = await deps.sshTarget(instance);
  const lookup = await lookUp(deps, target, instance, name);
  if (lookup === 'cancelled') return { kind: 'cancelled' };
  if (!lookup.found) {
    deps.logger.info(`No Jupyter server is listed on instance #${instance.id}.`);
    return { kind: 'notRunning', instanceId: instance.id, notice: notRunningNotice(instance), offerLogs: true };
  }
  const { server } = lookup;
  const forward = deps.forwards.find(instance.id, server.port) ?? (await newForward(deps, instance, target, server));
  const page = await servedPage(server, forward.localPort, deps.status ?? ((url) => httpStatus(url)));
  // The token stays out of the log: only the local address and the remote port are written.
  deps.logger.info(`Jupyter on instance #${instance.id} (port ${server.port}) is forwarded to ${forward.url}${page}.`);
  return {
    kind: 'reached',
    instance,
    name,
    localPort: forward.localPort,
    remotePort: server.port,
    page,
    browserUrl: jupyterUrl(server, forward.localPort, page),
    serverUrl: jupyterUrl(server, forward.localPort),
    question: l10n.t(
      "GPU Rental: Jupyter on {0} is forwarded to {1}. Open it in a browser, or use it for VS Code's notebooks?",
      name,
      forward.url,
    ),
  };
}

/** The servers listed under a cancellable progress; 'cancelled' when the user pressed Cancel. */
async function lookUp(deps: ReachJupyterDeps, target: SshTarget, instance: Instance, name: string): Promise<JupyterLookup | 'cancelled'> {
  let cancelled: AbortSignal | undefined;
  try {
    return await deps.progress(l10n.t('looking for Jupyter on {0}', name), (task) => {
      cancelled = task.signal;
      return deps.lookup
        ? deps.lookup(target, instance.jupyter_token, task.signal)
        : findJupyter(target, instance.jupyter_token, { signal: task.signal });
    });
  } catch (error) {
    // Told by the signal, not by the error's (translated) words.
    if (cancelled?.aborted) return 'cancelled';
    throw error;
  }
}

/** A new forward on the same local port number when it is free, added to this window's forwards. */
async function newForward(deps: ReachJupyterDeps, instance: Instance, target: SshTarget, server: JupyterServer): Promise<PortForward> {
  const forward = deps.startForward ? await deps.startForward(instance, target, server) : await forwardTo(target, server.port, server.port);
  deps.forwards.add(forward);
  return forward;
}

/** No server listed: why, by how the instance was launched. */
function notRunningNotice(instance: Instance): string {
  const name = instanceName(instance);
  return launchedWithJupyter(instance)
    ? l10n.t(
        'GPU Rental: Jupyter is not running on {0}. It was launched in a Jupyter mode, so it may still be starting: try again in a minute, or check its logs.',
        name,
      )
    : l10n.t(
        'GPU Rental: Jupyter is not running on {0}. It was not launched in a Jupyter launch mode: rent with Jupyter, or start a Jupyter server on it yourself.',
        name,
      );
}

/** What "Use for Notebooks" says once the URL is on the clipboard: where to paste it, or that the extension is missing. */
export function notebooksNotice(name: string, extensionInstalled: boolean): Notice & { readonly severity: 'info' | 'warning' } {
  return extensionInstalled
    ? {
        severity: 'info',
        text: l10n.t(
          "GPU Rental: the URL of {0}'s Jupyter server is on the clipboard. Paste it where the Jupyter extension asks for an existing server's URL.",
          name,
        ),
      }
    : {
        severity: 'warning',
        text: l10n.t(
          "GPU Rental: the Jupyter extension ({0}) is not installed, so VS Code's notebooks cannot use {1}'s server. Install it, then choose \"Existing Jupyter Server\" in a notebook's kernel picker and paste the URL (it is on the clipboard).",
          JUPYTER_EXTENSION,
          name,
        ),
      };
}
