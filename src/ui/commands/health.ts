import * as vscode from 'vscode';
import type { Instance } from '../../core/api/instances';
import { checkHealth, destroyAfterCheck, healthActionLabel, type HealthDeps, type HealthOutcome } from '../../core/health/check';
import { COMMANDS } from '../../core/ids';
import { instanceActionLabel } from '../../core/instances/flows';
import { instanceName } from '../../core/instances/names';
import type { InstancePoller } from '../../core/instances/poller';
import type { Logger } from '../../core/log';
import type { Prompts } from '../../core/prompts';
import type { Session } from '../../core/session/session';
import type { InstanceCleanup } from '../../core/ssh/instanceCleanup';
import { runRemote, type SshTarget } from '../../core/ssh/remote';
import { notify } from '../pickers/notify';
import { asker } from '../pickers/prompts';
import { resolveTarget, type Target } from './instances';
import { command, type CommandDefinition } from './registry';

/** What Check Machine Health uses. */
export interface HealthCommandDeps {
  readonly session: Session;
  readonly poller: InstancePoller;
  readonly cleanup: Pick<InstanceCleanup, 'forgetInstance'>;
  /** Writes the instance's SSH entry and says how ssh reaches it. */
  readonly sshTarget: (instance: Instance) => Promise<SshTarget>;
  /** A getter: integration tests replace the prompts at run time. */
  readonly prompts: () => Prompts;
  readonly logger: Logger;
}

/** Check Machine Health: nvidia-smi, the disk and a short write over ssh, held against the offer (decided in core/health/check.ts). */
export function healthCommands(s: HealthCommandDeps): CommandDefinition[] {
  return [command(COMMANDS.checkMachineHealth, (t?: Target) => checkMachineHealth(s, t))];
}

async function checkMachineHealth(s: HealthCommandDeps, t: Target): Promise<HealthOutcome['kind'] | undefined> {
  const picked = await resolveTarget(s, t, vscode.l10n.t('Check the health of which instance?'), ['running']);
  if (!picked) return undefined;
  const end = await vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: vscode.l10n.t('GPU Rental: checking the GPUs and disk of {0}…', instanceName(picked)),
      cancellable: true,
    },
    (_progress, token) => {
      const abort = new AbortController();
      token.onCancellationRequested(() => abort.abort());
      return checkHealth(deps(s, abort.signal), picked);
    },
  );
  if (end.kind === 'cancelled') return end.kind;
  if (end.kind !== 'checked') {
    void notify(end.notice);
    return end.kind;
  }
  // The notice is not waited for: the command ends with the verdict; Destroy Instance asks again.
  void notify(end.notice, healthActionLabel).then(async (action) => {
    if (action !== 'destroy') return;
    const destroyed = await destroyAfterCheck(deps(s), end.instance, end.verdict);
    if (destroyed.kind === 'declined') return;
    const next = await notify(destroyed.notice, instanceActionLabel);
    if (next === 'refresh') void vscode.commands.executeCommand(COMMANDS.refresh);
  });
  return end.kind;
}

function deps(s: HealthCommandDeps, signal?: AbortSignal): HealthDeps {
  return {
    ask: asker(s.prompts()),
    instances: s.session.client.instances,
    sshTarget: s.sshTarget,
    run: (target, script, timeoutMs) => runRemote(target, script, { timeoutMs, signal }),
    after: { forget: (id) => s.cleanup.forgetInstance(id), refresh: () => s.poller.refresh() },
    signal,
    now: () => Date.now(),
    logger: s.logger,
  };
}
