import * as vscode from 'vscode';
import { COMMANDS } from '../../core/ids';
import type { InstancePoller } from '../../core/instances/poller';
import type { Logger } from '../../core/log';
import type { Session } from '../../core/session/session';
import { cloudSyncFlow, type CloudSyncArgs } from '../../core/transfer/cloudSync';
import { copyFlow, type CopyArgs } from '../../core/transfer/copy';
import type { ServiceCopyDeps, ServiceCopyOutcome, ServiceCopyResult } from '../../core/transfer/serviceCopy';
import { config } from '../host/config';
import { asker, type Prompts } from '../pickers/prompts';
import type { RemoteHandoff } from '../host/remote';
import { resolveTarget, type Target } from './instances';
import { command, type CommandDefinition } from '../registry';
import { transferActionLabel } from '../../core/transfer/notices';
import { notify } from '../pickers/notify';
import { showProgress } from '../pickers/progress';

export type { CloudSyncArgs } from '../../core/transfer/cloudSync';
export type { CopyArgs } from '../../core/transfer/copy';

/** What the copy and cloud-sync commands use. */
export interface DataDeps {
  readonly session: Session;
  readonly poller: InstancePoller;
  /** Getters: integration tests replace the prompts and the handoff at run time. */
  readonly prompts: () => Prompts;
  readonly handoff: () => RemoteHandoff;
  readonly logger: Logger;
}

/** How a copy or sync ended, for automation and tests: what the service's status message said, or why it is not known. */
export type TransferOutcome = ServiceCopyOutcome;

/**
 * Copy a folder between two of the account's instances, and sync an instance with cloud storage.
 * What they ask, refuse and say is decided in core/transfer/copy.ts and cloudSync.ts (the start,
 * the follow and the cancel in serviceCopy.ts).
 */
export function dataCommands(s: DataDeps): CommandDefinition[] {
  return [
    command(COMMANDS.copyBetweenInstances, async (t?: Target, args?: CopyArgs) => {
      const src = await resolveTarget(s, t, vscode.l10n.t('Copy a folder from which instance?'), ['running']);
      if (!src) return undefined;
      const result = await copyFlow(copyDeps(s), src, args ?? {});
      if (result?.outcome === 'noDestination') {
        void notify(result.notice, transferActionLabel);
        return undefined;
      }
      return show(s, result);
    }),
    command(COMMANDS.cloudSync, async (t?: Target, args?: CloudSyncArgs) => {
      const instance = await resolveTarget(s, t, vscode.l10n.t('Sync which instance with cloud storage?'), ['running']);
      return instance ? show(s, await cloudSyncFlow(copyDeps(s), instance, args ?? {})) : undefined;
    }),
  ];
}

function copyDeps(s: DataDeps): ServiceCopyDeps {
  return {
    ask: asker(s.prompts()),
    logger: s.logger,
    copy: s.session.client.copy,
    instances: s.session.client.instances,
    poller: s.poller,
    progress: showProgress,
    remoteFolder: config.remoteFolder(),
    baseUrl: s.session.normalizedBaseUrl,
  };
}

/** Shows how the copy or sync ended (without waiting for the user) and answers its outcome. */
function show(s: DataDeps, result: ServiceCopyResult | undefined): TransferOutcome | undefined {
  if (!result) return undefined;
  void notify(result.notice, transferActionLabel).then((choice) => {
    if (choice === 'showLogs') void vscode.commands.executeCommand(COMMANDS.showInstanceLogs, result.instanceId);
    if (choice === 'openConsole' && result.consoleUrl) openExternal(s, result.consoleUrl);
  });
  return result.outcome;
}

function openExternal(s: DataDeps, url: string): void {
  const handoff = s.handoff();
  const uri = vscode.Uri.parse(url);
  void (handoff.openExternal ? handoff.openExternal(uri) : vscode.env.openExternal(uri));
}
