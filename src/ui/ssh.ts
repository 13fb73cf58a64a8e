import type * as vscode from 'vscode';
import type { InstancePoller } from '../core/instances/poller';
import type { Logger } from '../core/log';
import { sshProfile } from '../core/session/profiles';
import type { Session } from '../core/session/session';
import { SshConnector } from '../core/ssh/connector';
import type { PortForwards } from '../core/ssh/forward';
import { InstanceCleanup } from '../core/ssh/instanceCleanup';
import { findLocalKey } from '../core/ssh/localKeys';
import { SshConfigManager, sshPaths } from '../core/ssh/manager';
import { config } from './config';
import type { Prompts } from './prompts';
import { forgetRemotePlatform, remoteSshConfigFile, type RemoteHandoff } from './remote';
import { offerNewSshKey } from './sshKeyOffer';

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
  return { connector, cleanup, sshConfig, dispose: () => subscription.dispose() };
}
