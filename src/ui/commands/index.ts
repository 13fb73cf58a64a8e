import type { Instance } from '../../core/api/instances';
import type { Services } from '../services';
import { apiKeyCommands, createdKeyIds } from './apiKeys';
import { bidCommands } from './bids';
import { contractCommands } from './contracts';
import { billingCommands } from './billing';
import { connectCommands } from './connect';
import { dataCommands } from './data';
import { instanceCommands, type InstanceDeps } from './instances';
import { jobCommands, type JobCommandDeps } from './jobs';
import { clusterJobCommands } from './clusterJobs';
import { jupyterCommands } from './jupyter';
import { browserWorkspaceCommands } from './browserWorkspace';
import { healthCommands, type HealthCommandDeps } from './health';
import { explorerCommands } from './explorer';
import { offerCommands } from './offers';
import { profileCommands } from './profiles';
import { commandHandlers, type CommandDefinition } from '../registry';
import type { CommandId } from '../../core/ids';
import { rentCommands, windowRentGate, type RentDeps } from './rent';
import { searchCommands } from './searches';
import { rentBestMatchCommands } from './rentBestMatch';
import { rentClusterCommands } from './rentCluster';
import { secretCommands } from './secrets';
import { serverlessCommands } from './serverless';
import { sessionCommands } from './session';
import { sshKeyCommands } from './sshKeys';
import { teamCommands } from './team';
import { templateCommands } from './templates';
import {
  downloadBeforeDestroy,
  downloadFromInstance,
  measureForDestroy,
  transferCommands,
  uploadFolder,
  type TransferDeps,
} from './transfer';
import { volumeCommands } from './volumes';
import { logCommands } from './logs';
import { notifyCommands } from './notify';
import { scopeOf } from '../../core/notify/vault';
import { remoteWindowCommands } from '../status/remoteWindow';
import { walkthroughCommands } from '../host/walkthrough';

/**
 * The collaborators the commands share with the language model tools (src/ui/agent/): built once,
 * so a tool goes through the very objects its command does (one rent gate for the window).
 */
export interface SharedDeps {
  readonly rent: RentDeps;
  readonly transfer: TransferDeps;
  readonly instances: InstanceDeps;
  readonly health: HealthCommandDeps;
  readonly jobs: JobCommandDeps;
}

export function sharedDeps(s: Services): SharedDeps {
  const { session, poller, boots, spend, renter, offersView, state, logger, log } = s;
  const prompts = () => s.prompts;
  const transfer = { session, poller, sshTarget: s.sshTarget, prompts, logger };
  const beforeDestroy = {
    measure: (i: Instance) => measureForDestroy(transfer, i),
    download: (i: Instance, folder: string) => downloadBeforeDestroy(transfer, i, folder),
  };
  return {
    transfer,
    // Rent Offer and Rent Best Match share the gate: one rent at a time in this window.
    rent: {
      session,
      renter,
      poller,
      boots,
      spend,
      pendingRents: s.pendingRents,
      offersView,
      state,
      prompts,
      logger,
      log,
      gate: windowRentGate(renter),
      priceContext: s.priceContext,
      health: s.healthAfterRent,
    },
    instances: {
      session,
      poller,
      boots,
      spend,
      cleanup: s.cleanup,
      prompts,
      logger,
      logChannels: s.logChannels,
      beforeDestroy,
      windowInstance: () => s.remoteWindow.instanceId,
    },
    health: { session, poller, cleanup: s.cleanup, sshTarget: s.sshTarget, prompts, logger },
    jobs: {
      session,
      poller,
      jobs: s.jobs,
      sshTarget: s.sshTarget,
      memory: s.jobMemory,
      prompts,
      upload: (id, request) => uploadFolder(transfer, id, request),
      download: (id, args) => downloadFromInstance(transfer, id, args),
      notifyUrl: () => s.notifyVault.jobEndUrl(scopeOf(session)),
    },
  };
}

/**
 * Every command's body, each module given the few collaborators it uses, wrapped by the one
 * registry; the stubs registered in activate() call them. `prompts` and `handoff` go in as getters: integration tests replace
 * them on Services at run time.
 */
export function allCommands(s: Services, shared: SharedDeps = sharedDeps(s)): Map<CommandId, (...args: unknown[]) => Promise<unknown>> {
  const { session, poller, boots, spend, renter, accountView, offersView, state, logger, log, showError } = s;
  const prompts = () => s.prompts;
  const handoff = () => s.handoff;
  const account = { session, accountView, prompts };
  const { logFollowers: followers } = s;
  const { transfer, rent } = shared;
  // The Account view marks the key GPU Rental is signed in with, when it was created here.
  accountView.ownKeyId = (fingerprint) => createdKeyIds({ session, state })[fingerprint];
  const commands: CommandDefinition[] = [
    ...sessionCommands({
      session,
      renter,
      poller,
      environmentKey: s.environmentKey,
      where: () => s.switcher.where,
      refreshViews: () => {
        s.views.refresh();
        // Refresh also lists the hosts' price increases at once (the poll does so once a minute).
        void s.contracts.refresh();
      },
      logger,
      log,
    }),
    ...instanceCommands(shared.instances),
    ...logCommands({ session, poller, logger, followers }),
    ...remoteWindowCommands({ remote: s.remoteWindow, poller, costs: s.costs }),
    ...bidCommands({ session, poller, boots, spend, prompts, logger }),
    ...contractCommands({ session, poller, contracts: s.contracts, prompts }),
    ...transferCommands(transfer),
    ...dataCommands({ session, poller, prompts, handoff, logger }),
    ...jupyterCommands({ session, poller, forwards: s.forwards, sshTarget: s.sshTarget, handoff, logger }),
    ...browserWorkspaceCommands({
      session,
      poller,
      forwards: s.forwards,
      workspaces: s.browserWorkspaces,
      loginPages: s.loginPages,
      sshTarget: s.sshTarget,
      fetchText: s.fetchText,
      handoff,
      logger,
    }),
    ...healthCommands(shared.health),
    ...offerCommands({ session, offersView }),
    ...searchCommands({ session, offersView, state, prompts, watcher: s.searchWatcher.watcher }),
    ...explorerCommands({ explorer: s.explorer }),
    ...rentCommands(rent),
    ...rentBestMatchCommands(rent),
    ...rentClusterCommands(rent),
    ...connectCommands({
      session,
      poller,
      boots,
      spend,
      connector: s.connector,
      forwards: s.forwards,
      terminals: s.idle.terminals,
      sshConfig: s.sshConfig,
      prompts,
      handoff,
      logger,
      showError,
    }),
    ...billingCommands({ session, poller, prompts }),
    ...apiKeyCommands({ session, accountView, state, prompts, logger }),
    ...sshKeyCommands({ ...account, poller }),
    ...secretCommands(account),
    ...notifyCommands({ session, vault: s.notifyVault, prompts, logger }),
    ...teamCommands(account),
    ...templateCommands({ ...account, poller, state }),
    ...volumeCommands(account),
    ...serverlessCommands(account),
    ...jobCommands(shared.jobs),
    ...clusterJobCommands({
      session,
      poller,
      jobs: s.jobs,
      memory: s.jobMemory,
      prompts,
      sshTarget: s.sshTarget,
      logger,
      upload: (id, request) => uploadFolder(transfer, id, request),
    }),
    ...profileCommands({ profiles: s.profiles, session, switcher: s.switcher, createClient: s.createClient, prompts, logger }),
    ...walkthroughCommands({ extensionId: s.context.extension.id }),
  ];
  return commandHandlers(commands, { logger, showError });
}
