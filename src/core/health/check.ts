import { randomBytes } from 'node:crypto';
import type { GpuRentalClient } from '../api/client';
import type { Instance } from '../api/instances';
import { formatDollars, formatDuration } from '../format';
import { destroyInstance } from '../instances/actions';
import { resultNotice, type InstanceNotice } from '../instances/flows';
import { instanceName } from '../instances/names';
import { instancePhase } from '../instances/phase';
import { l10n, sentences } from '../l10n';
import type { Logger } from '../log';
import type { Notice } from '../notice';
import type { Progress } from '../progress';
import type { Ask } from '../prompts';
import { visibleText } from '../text';
import { RemoteCommandError, lastErrorLine, type RemoteResult, type SshTarget } from '../ssh/remote';
import { SCRIPT_TIMEOUT_MS, healthScript, readHealthOutput } from './probe';
import { VERDICT_MAX_CHARS, judge, type Offered, type Verdict } from './verdict';

/*
 * Check Machine Health: one ssh round trip reads nvidia-smi, the disk and a short write on a running
 * instance, the verdict holds it against the offer, and a machine that is not what was offered is
 * offered for destruction, saying what it cost so far. The destroy is asked again in a modal and goes
 * through the one destroy action (core/instances/actions.ts). The ui command is src/ui/commands/health.ts.
 */

/** The button of a health notice; `healthActionLabel` words it. */
export type HealthAction = 'destroy';

export function healthActionLabel(action: HealthAction): string {
  switch (action) {
    case 'destroy':
      return l10n.t('Destroy Instance');
  }
}

export interface HealthDeps {
  readonly ask: Ask;
  readonly instances: Pick<GpuRentalClient['instances'], 'show' | 'destroy' | 'stop'>;
  /** Writes the instance's SSH entry and says how ssh reaches it. */
  sshTarget(instance: Instance): Promise<SshTarget>;
  /** Runs the script on the instance (runRemote), ended when `signal` aborts. */
  run(target: SshTarget, script: string, timeoutMs: number, signal: AbortSignal): Promise<RemoteResult>;
  /** After a destroy: what this machine keeps for the instance goes, the list is read again. */
  readonly after?: { forget(id: number): Promise<void>; refresh(): Promise<void> };
  /** The check's progress, whose Cancel ends the script (UI: a notification). */
  readonly progress: Progress;
  /** A fresh section marker per run (tests give a fixed one). */
  nonce?(): string;
  now(): number;
  readonly logger: Logger;
}

export type HealthOutcome =
  | { readonly kind: 'checked'; readonly instance: Instance; readonly verdict: Verdict; readonly notice: Notice<HealthAction> }
  | { readonly kind: 'notRunning' | 'unreachable'; readonly notice: Notice }
  | { readonly kind: 'cancelled' };

/**
 * Checks a running instance against what was offered (`offered`: the offer, or the instance's own
 * record, which carries the offer's hardware). Never throws for what the machine prints: a missing
 * nvidia-smi or garbage is a verdict that says it could not be read.
 */
export async function checkHealth(deps: HealthDeps, picked: Instance, offered: Offered = picked): Promise<HealthOutcome> {
  const instance = await deps.instances.show(picked.id).catch(() => picked);
  const name = instanceName(instance);
  const phase = instancePhase(instance);
  if (phase !== 'running')
    return {
      kind: 'notRunning',
      notice: { severity: 'info', text: l10n.t('GPU Rental: {0} is {1}; start it, then check its health again.', name, phase) },
    };
  const nonce = deps.nonce?.() ?? randomBytes(8).toString('hex');
  let cancelled: AbortSignal | undefined;
  let result: RemoteResult;
  try {
    result = await deps.progress(l10n.t('checking the GPUs and disk of {0}…', name), async (task) => {
      cancelled = task.signal;
      const target = await deps.sshTarget(instance);
      task.signal.throwIfAborted();
      return deps.run(target, healthScript(nonce), SCRIPT_TIMEOUT_MS, task.signal);
    });
  } catch (error) {
    // Told by the signal, not by the error's (translated) words.
    if (cancelled?.aborted) return { kind: 'cancelled' };
    if (!(error instanceof RemoteCommandError)) throw error;
    return { kind: 'unreachable', notice: unreachable(name, visibleText(error.message, 300)) };
  }
  if (result.code === 255) return { kind: 'unreachable', notice: unreachable(name, lastErrorLine(result.stderr)) };
  const verdict = judge(readHealthOutput(result.stdout, nonce), offered);
  deps.logger.info(
    `Health of instance #${instance.id}: ${verdict.matches ? 'as offered' : verdict.readable ? 'NOT as offered' : 'unreadable'}; ${verdict.findings.map((f) => `${f.level} ${f.code}`).join(', ') || 'no findings'}.`,
  );
  return { kind: 'checked', instance, verdict, notice: verdictNotice(instance, verdict, deps.now()) };
}

function unreachable(name: string, why: string): Notice {
  return {
    severity: 'warning',
    text: l10n.t(
      'GPU Rental: the health of {0} could not be checked: ssh did not reach it ({1}). Try again once it accepts SSH.',
      name,
      why,
    ),
  };
}

/** "It has cost about $0.120 so far (6m 00s at $1.20/h)." from its start and its rate; undefined when either is unknown. */
export function costSoFar(instance: Instance, nowMs: number): string | undefined {
  const start = instance.start_date ?? undefined;
  const rate = instance.dph_total ?? undefined;
  if (start === undefined || rate === undefined) return undefined;
  const seconds = Math.max(0, nowMs / 1000 - start);
  return l10n.t(
    'It has cost about {0} so far ({1} at {2}/h).',
    formatDollars((seconds / 3600) * rate),
    formatDuration(seconds),
    formatDollars(rate),
  );
}

/** The verdict as a notification: information when as offered, a warning with Destroy Instance when not. */
export function verdictNotice(instance: Instance, verdict: Verdict, nowMs: number): Notice<HealthAction> {
  const name = instanceName(instance);
  const text = l10n.t('GPU Rental: {0}: {1}', name, verdict.text);
  if (!verdict.readable) return { severity: 'warning', text };
  if (verdict.matches) {
    const warned = verdict.findings.some((f) => f.level === 'warning');
    return { severity: warned ? 'warning' : 'info', text };
  }
  return {
    severity: 'warning',
    text: sentences(text, costSoFar(instance, nowMs), l10n.t('Destroy it now, so that it bills no longer?')),
    actions: ['destroy'],
  };
}

export type DestroyAfterCheck = { kind: 'declined' } | { kind: 'acted'; destroyed: boolean; notice: InstanceNotice };

/**
 * Destroy Instance from a verdict's notice: a modal that says why (the mismatches) and what it
 * cost, then the one destroy action. Nothing happens without the modal's Destroy.
 */
export async function destroyAfterCheck(deps: HealthDeps, picked: Instance, verdict: Verdict): Promise<DestroyAfterCheck> {
  const instance = await deps.instances.show(picked.id).catch(() => picked);
  const name = instanceName(instance);
  const why = verdict.findings.filter((f) => f.level === 'mismatch').map((f) => f.text);
  const detail = sentences(
    visibleText(sentences(...why), VERDICT_MAX_CHARS),
    costSoFar(instance, deps.now()),
    l10n.t('Its disk and every file on it are deleted for good.'),
    l10n.t('This cannot be undone.'),
  );
  if (!(await deps.ask.confirm(l10n.t('Destroy {0}?', name), detail, l10n.t('Destroy')))) return { kind: 'declined' };
  const result = await destroyInstance(deps.instances, instance, name);
  if (result.kind === 'done') await deps.after?.forget(instance.id);
  await deps.after?.refresh();
  return { kind: 'acted', destroyed: result.kind === 'done', notice: resultNotice(result, deps.logger) };
}
