import type * as vscode from 'vscode';
import type { Instance } from '../../core/api/instances';
import type { InstancePoller } from '../../core/instances/poller';
import type { Logger } from '../../core/log';
import { sshProfile } from '../../core/session/profiles';
import type { Session } from '../../core/session/session';
import { SshConnector, type PreparedHost } from '../../core/ssh/connector';
import type { PortForwards } from '../../core/ssh/forward';
import { InstanceCleanup } from '../../core/ssh/instanceCleanup';
import { findLocalKey } from '../../core/ssh/localKeys';
import { SshConfigManager, sshPaths } from '../../core/ssh/manager';
import type { SshTarget } from '../../core/ssh/remote';
import { config } from './config';
import type { Prompts } from '../pickers/prompts';
import { forgetRemotePlatform, remoteSshConfigFile, type RemoteHandoff } from './remote';
import { offerNewSshKey } from '../../core/ssh/keyOffer';

export interface SshDeps {
  readonly session: Session;
  readonly poller: InstancePoller;
  readonly forwards: PortForwards;
  /** Getters: integration tests replace the prompts and the handoff at run time. */
  readonly prompts: () => Prompts;
  readonly handoff: () => RemoteHandoff;
  readonly logger: Logger;
}

/** The SSH side of the extension, built from the session and the poller. */
export interface Ssh extends vscode.Disposable {
  readonly connector: SshConnector;
  readonly cleanup: InstanceCleanup;
  /** The SSH config files, read from the settings each time (Remote-SSH's configFile may change). */
  readonly sshConfig: () => SshConfigManager;
  /**
   * Writes the instance's SSH entry (registering the key when needed) and says how `ssh` reaches
   * it. The instance must be running; a stopped one has no address (NoSshAddress).
   */
  readonly target: (instance: Instance) => Promise<SshTarget>;
}

/** The ssh arguments that reach a prepared alias: the user's config when the Include is in it, else the host file alone. */
export function sshArgsForHost(host: PreparedHost, handoff: RemoteHandoff): string[] {
  if (!host.includeInPlace) return ['-F', host.hostFile];
  // ssh reads ~/.ssh/config of the account, not of $HOME; pass the file whenever it was chosen.
  return remoteSshConfigFile(handoff) ? ['-F', host.userConfig] : [];
}

/**
 * Builds the connector (keys of the session's account, the managed SSH config, a new key offered
 * when none is found) and the cleanup that follows the poller: what this machine keeps for an
 * instance goes when the instance does.
 */
export function createSsh(deps: SshDeps): Ssh {
  const { session, logger } = deps;
  const sshConfig = () => new SshConfigManager(sshPaths(remoteSshConfigFile(deps.handoff())), logger);
  const connector = new SshConnector({
    keys: () => session.client.sshKeys,
    config: sshConfig,
    findKey: () => findLocalKey(config.sshIdentityFile()),
    createKey: () => offerNewSshKey(deps.prompts, logger),
    logger,
    profile: () => sshProfile(session.profileId),
  });
  const cleanup = new InstanceCleanup({ forwards: deps.forwards, connector, forgetRemotePlatform, logger });
  const subscription = deps.poller.onDidUpdate((snapshot) => cleanup.followInstances(snapshot.instances));
  const target = async (instance: Instance): Promise<SshTarget> => {
    const host = await connector.prepare(instance, config.sshConnectVia());
    return { instanceId: instance.id, alias: host.alias, args: sshArgsForHost(host, deps.handoff()) };
  };
  return { connector, cleanup, sshConfig, target, dispose: () => subscription.dispose() };
}
