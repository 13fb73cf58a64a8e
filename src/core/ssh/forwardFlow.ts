import type { Instance } from '../api/instances';
import { instanceName } from '../instances/names';
import { l10n } from '../l10n';
import type { Notice } from '../notice';
import { checkInBox, portBox, readBox } from '../numbers';
import { readyHost, type ReadyDeps, type Ready } from './connect';
import type { PreparedHost } from './connector';
import { freeLocalPort, startPortForward, type PortForward, type PortForwards } from './forward';

/**
 * Forward a Port as a flow: which port (given, or picked from common ones or typed), checked; a
 * forward already running is announced again; else the instance is made ready as for connect and
 * ssh forwards the port to a free local one. `src/ui/commands/connect.ts` shows the pick and the notice.
 */

/** A button of the forward's notice; `forwardActionLabel` says its label. */
export type ForwardAction = 'openBrowser' | 'copyUrl' | 'stopForwarding';

export function forwardActionLabel(action: ForwardAction): string {
  switch (action) {
    case 'openBrowser':
      return l10n.t('Open in Browser');
    case 'copyUrl':
      return l10n.t('Copy URL');
    case 'stopForwarding':
      return l10n.t('Stop Forwarding');
  }
}

/** The port pick: common ports, and any number typed. */
export interface PortPick {
  title: string;
  placeholder: string;
  items: Array<{ label: string; description: string }>;
}

export function portPick(instance: Instance): PortPick {
  return {
    title: l10n.t('GPU Rental: forward a port of {0} to this machine', instanceName(instance)),
    placeholder: l10n.t('A port on the instance (type any number)'),
    items: [
      { label: '8888', description: l10n.t('Jupyter') },
      { label: '6006', description: 'TensorBoard' },
      { label: '7860', description: l10n.t('Gradio') },
      { label: '8080', description: l10n.t('web server') },
    ],
  };
}

/** The remote port from a number given (automation) or the text picked or typed; else what is wrong with it. */
export function remotePortOf(given: number | undefined, typed: string | undefined): { port: number } | { problem: string } {
  const port = given ?? (typed === undefined ? undefined : readBox(typed, portBox()).value);
  if (port === undefined || checkInBox(port, portBox()).problem !== undefined) {
    const shown = given !== undefined ? String(given) : (typed ?? '').trim().slice(0, 40);
    return { problem: l10n.t('GPU Rental: "{0}" is not a port number (1 to 65535).', shown) };
  }
  return { port };
}

/** "port 8888 of … is at http://localhost:8889", with what the user can do with it. */
export function forwardNotice(instance: Instance, forward: PortForward): Notice<ForwardAction> {
  return {
    severity: 'info',
    text: l10n.t('GPU Rental: port {0} of {1} is at {2}', forward.remotePort, instanceName(instance), forward.url),
    actions: ['openBrowser', 'copyUrl', 'stopForwarding'],
  };
}

export interface ForwardDeps extends ReadyDeps {
  /** The port pick (a quick pick that takes typed text too); undefined when dismissed. */
  readonly pickPort: (pick: PortPick) => Promise<string | undefined>;
  readonly forwards: Pick<PortForwards, 'find' | 'add'>;
  /** The ssh arguments that reach the prepared alias. */
  readonly sshArgs: (host: PreparedHost) => string[];
  /** Starts the ssh forward; tests pass their own. */
  readonly start?: typeof startPortForward;
}

/** How Forward a Port ended: as readying the host did when it did not get ready, or with the port refused, or forwarded. */
export type ForwardEnd =
  | Exclude<Ready, { kind: 'ready' }>
  | { kind: 'refused'; message: string }
  | { kind: 'forwarded'; forward: PortForward; instance: Instance; existing: boolean };

export async function forwardPortFlow(s: ForwardDeps, instance: Instance, given: unknown): Promise<ForwardEnd> {
  const number = typeof given === 'number' ? given : undefined;
  const typed = number === undefined ? await s.pickPort(portPick(instance)) : undefined;
  if (number === undefined && typed === undefined) return { kind: 'cancelled' };
  const remote = remotePortOf(number, typed);
  if ('problem' in remote) return { kind: 'refused', message: remote.problem };
  const existing = s.forwards.find(instance.id, remote.port);
  if (existing) return { kind: 'forwarded', forward: existing, instance, existing: true };
  const ready = await readyHost(s, instance);
  if (ready.kind !== 'ready') return ready;
  try {
    const forward = await (s.start ?? startPortForward)({
      instanceId: instance.id,
      alias: ready.host.alias,
      remotePort: remote.port,
      localPort: await freeLocalPort(remote.port),
      sshArgs: s.sshArgs(ready.host),
    });
    s.forwards.add(forward);
    s.logger.info(`Forwarding ${forward.url} to port ${remote.port} of instance #${instance.id}.`);
    return { kind: 'forwarded', forward, instance: ready.instance, existing: false };
  } catch (error) {
    return { kind: 'error', error };
  }
}
