import * as vscode from 'vscode';
import type { Instance } from '../../core/api/instances';
import { HealthAfterRent, type AfterRentResult } from '../../core/health/afterRent';
import { checkHealth, destroyAfterCheck, healthActionLabel, type HealthDeps, type HealthOutcome } from '../../core/health/check';
import { COMMANDS } from '../../core/ids';
import { instanceActionLabel } from '../../core/instances/flows';
import { instanceName } from '../../core/instances/names';
import type { InstancePoller } from '../../core/instances/poller';
import type { Logger } from '../../core/log';
import type { Prompts } from '../../core/prompts';
import type { Session } from '../../core/session/session';
import type { InstanceCleanup } from '../../core/ssh/instanceCleanup';
import { endpointFor } from '../../core/ssh/connector';
import { findLocalKey } from '../../core/ssh/localKeys';
import { waitForSshBanner } from '../../core/ssh/probe';
import { runRemote, type SshTarget } from '../../core/ssh/remote';
import type { GpuRentalState } from '../../core/stored';
import { config } from '../host/config';
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

/** What the health check after a rent uses. */
export interface AfterRentUiDeps extends HealthCommandDeps {
  readonly state: GpuRentalState;
}

/**
 * The health check after every rent made in this window (decided in core/health/afterRent.ts):
 * each poller snapshot may start one; the status bar carries a verdict as offered, a warning with
 * Destroy Instance one that is not, and the status bar a check that could not run.
 */
export function startHealthAfterRent(s: AfterRentUiDeps): { health: HealthAfterRent; dispose(): void } {
  const health = new HealthAfterRent({
    store: s.state,
    owner: vscode.env.sessionId,
    enabled: () => config.healthCheckAfterRent(),
    speedTestUrl: () => config.healthSpeedTestUrl(),
    reach: async (instance, signal) => {
      // The automatic check never asks to make a key: without one it is not checked (Connect makes one).
      if (!(await findLocalKey(config.sshIdentityFile()))) throw new Error(vscode.l10n.t('no SSH key yet; Connect makes one'));
      const target = await s.sshTarget(instance);
      const endpoint = endpointFor(instance, config.sshConnectVia());
      if (endpoint) await waitForSshBanner(endpoint.host, endpoint.port, { timeoutMs: config.sshReadyTimeoutSeconds() * 1000, signal });
      return target;
    },
    run: (target, script, timeoutMs, signal) => runRemote(target, script, { timeoutMs, signal }),
    now: () => Date.now(),
    logger: s.logger,
  });
  const subscription = s.poller.onDidUpdate((snapshot) => {
    for (const check of health.update(snapshot.instances)) void check.then((result) => showAfterRent(s, result));
  });
  return {
    health,
    dispose: () => {
      subscription.dispose();
      health.dispose();
    },
  };
}

/** How long the status bar shows a verdict. */
const VERDICT_STATUS_MS = 60_000;

/** Shows one check's end: the status bar always; a warning with Destroy Instance for a finding. */
function showAfterRent(s: HealthCommandDeps, result: AfterRentResult): void {
  if (result.kind === 'elsewhere') return;
  const name = instanceName(result.instance);
  const icon = result.kind === 'asOffered' ? '$(pass)' : result.kind === 'finding' ? '$(warning)' : '$(info)';
  vscode.window.setStatusBarMessage(vscode.l10n.t('{0} GPU Rental: {1}: {2}', icon, name, result.status), VERDICT_STATUS_MS);
  if (result.kind !== 'finding') return;
  void notify(result.notice, healthActionLabel).then(async (action) => {
    if (action !== 'destroy') return;
    const destroyed = await destroyAfterCheck(deps(s), result.instance, result.verdict);
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
