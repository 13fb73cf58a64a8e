import * as vscode from 'vscode';
import type { Instance } from '../../core/api/instances';
import type { AfterRentResult, HealthAfterRent } from '../../core/health/afterRent';
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
import { showProgress } from '../pickers/progress';
import { asker } from '../pickers/prompts';
import { resolveTarget, type Target } from './instances';
import { command, type CommandDefinition } from '../registry';

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
  const end = await checkHealth(healthDeps(s), picked);
  if (end.kind === 'cancelled') return end.kind;
  if (end.kind !== 'checked') {
    void notify(end.notice);
    return end.kind;
  }
  // The notice is not waited for: the command ends with the verdict; Destroy Instance asks again.
  void notify(end.notice, healthActionLabel).then(async (action) => {
    if (action !== 'destroy') return;
    const destroyed = await destroyAfterCheck(healthDeps(s), end.instance, end.verdict);
    if (destroyed.kind === 'declined') return;
    const next = await notify(destroyed.notice, instanceActionLabel);
    if (next === 'refresh') void vscode.commands.executeCommand(COMMANDS.refresh);
  });
  return end.kind;
}

export function healthDeps(s: HealthCommandDeps): HealthDeps {
  return {
    ask: asker(s.prompts()),
    instances: s.session.client.instances,
    sshTarget: s.sshTarget,
    run: (target, script, timeoutMs, signal) => runRemote(target, script, { timeoutMs, signal }),
    after: { forget: (id) => s.cleanup.forgetInstance(id), refresh: () => s.poller.refresh() },
    progress: showProgress,
    now: () => Date.now(),
    logger: s.logger,
  };
}

/** How long the status bar shows a verdict. */
const VERDICT_STATUS_MS = 60_000;

/**
 * Shows one end of the health check after a rent (core/health/afterRentWiring.ts): the status bar
 * always; a warning with Destroy Instance for a finding.
 */
export function showAfterRent(s: HealthCommandDeps, result: AfterRentResult): void {
  if (result.kind === 'elsewhere') return;
  const name = instanceName(result.instance);
  const icon = result.kind === 'asOffered' ? '$(pass)' : result.kind === 'finding' ? '$(warning)' : '$(info)';
  vscode.window.setStatusBarMessage(vscode.l10n.t('{0} GPU Rental: {1}: {2}', icon, name, result.status), VERDICT_STATUS_MS);
  if (result.kind !== 'finding') return;
  void notify(result.notice, healthActionLabel).then(async (action) => {
    if (action !== 'destroy') return;
    const destroyed = await destroyAfterCheck(healthDeps(s), result.instance, result.verdict);
    if (destroyed.kind === 'declined') return;
    const next = await notify(destroyed.notice, instanceActionLabel);
    if (next === 'refresh') void vscode.commands.executeCommand(COMMANDS.refresh);
  });
}

/** A cluster's nodes once they run: checked together, one summary (a warning when a node has a finding). */
export async function checkClusterHealth(
  s: Pick<HealthCommandDeps, 'poller'> & { readonly health?: Pick<HealthAfterRent, 'checkNodes'> },
  ids: readonly number[],
): Promise<void> {
  if (!s.health || ids.length === 0) return;
  await s.poller.refresh();
  const nodes = (s.poller.snapshot?.instances ?? []).filter((i) => ids.includes(i.id));
  const summary = await s.health.checkNodes(nodes);
  if (!summary) return;
  // A node not checked yet is no failure and no pass: the neutral icon, as for one instance.
  const icon = summary.notice ? '$(warning)' : summary.results.some((r) => r.kind === 'notChecked') ? '$(info)' : '$(pass)';
  vscode.window.setStatusBarMessage(vscode.l10n.t('{0} GPU Rental: {1}', icon, summary.status), VERDICT_STATUS_MS);
  if (summary.notice) void notify(summary.notice);
}
