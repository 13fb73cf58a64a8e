import type { Instance } from '../../core/api/instances';
import type { Services } from '../services';
import { apiKeyCommands, createdKeyIds } from './apiKeys';
import { bidCommands } from './bids';
import { contractCommands } from './contracts';
import { billingCommands } from './billing';
import { connectCommands } from './connect';
import { dataCommands } from './data';
import { instanceCommands } from './instances';
import { jobCommands } from './jobs';
import { clusterJobCommands } from './clusterJobs';
import { jupyterCommands } from './jupyter';
import { browserWorkspaceCommands } from './browserWorkspace';
import { healthCommands } from './health';
import { explorerCommands } from './explorer';
import { offerCommands } from './offers';
import { profileCommands } from './profiles';
import { commandHandlers, type CommandDefinition } from '../registry';
import type { CommandId } from '../../core/ids';
import { rentCommands, windowRentGate } from './rent';
import { searchCommands } from './searches';
import { rentBestMatchCommands } from './rentBestMatch';
import { rentClusterCommands } from './rentCluster';
import { secretCommands } from './secrets';
import { serverlessCommands } from './serverless';
import { sessionCommands } from './session';
import { sshKeyCommands } from './sshKeys';
import { teamCommands } from './team';
import { templateCommands } from './templates';
import { downloadBeforeDestroy, downloadFromInstance, measureForDestroy, transferCommands, uploadFolder } from './transfer';
import { volumeCommands } from './volumes';
import { logCommands } from './logs';
import { notifyCommands } from './notify';
import { scopeOf } from '../../core/notify/vault';
import { remoteWindowCommands } from '../status/remoteWindow';
import { walkthroughCommands } from '../host/walkthrough';

/**
 * Every command's body, each module given the few collaborators it uses, wrapped by the one
 * registry; the stubs registered in activate() call them. `prompts` and `handoff` go in as getters: integration tests replace
 * them on Services at run time.
 */
export function allCommands(s: Services): Map<CommandId, (...args: unknown[]) => Promise<unknown>> {
  const { session, poller, boots, spend, renter, accountView, offersView, state, logger, log, showError } = s;
  const prompts = () => s.prompts;
  const handoff = () => s.handoff;
  const account = { session, accountView, prompts };
  const { logChannels, logFollowers: followers } = s;
  const transfer = { session, poller, sshTarget: s.sshTarget, prompts, logger };
  const beforeDestroy = {
    measure: (i: Instance) => measureForDestroy(transfer, i),
    download: (i: Instance, folder: string) => downloadBeforeDestroy(transfer, i, folder),
  };
  // Rent Offer and Rent Best Match share the gate: one rent at a time in this window.
  const rent = {
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
  };
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
    ...instanceCommands({
      session,
      poller,
      boots,
      spend,
      cleanup: s.cleanup,
      prompts,
      logger,
      logChannels,
      beforeDestroy,
      windowInstance: () => s.remoteWindow.instanceId,
    }),
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
    ...healthCommands({ session, poller, cleanup: s.cleanup, sshTarget: s.sshTarget, prompts, logger }),
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
    ...jobCommands({
      session,
      poller,
      jobs: s.jobs,
      sshTarget: s.sshTarget,
      memory: s.jobMemory,
      prompts,
      upload: (id, request) => uploadFolder(transfer, id, request),
      download: (id, args) => downloadFromInstance(transfer, id, args),
      notifyUrl: () => s.notifyVault.jobEndUrl(scopeOf(session)),
    }),
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
