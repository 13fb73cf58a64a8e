/**
 * Change Outbid Policy: what a resumable job does when the service outbids its instance, changed
 * while it runs (or waits). The choice is kept on this machine (choices.ts), which is what the
 * outbid policies follow; the instance's copy in the job's folder (resumable.ts) is written too,
 * for its start-up hook and the listing's comparison. ui: src/ui/commands/jobs.ts.
 */
import type { Instance } from '../api/instances';
import { instanceName } from '../instances/names';
import { isInterruptible } from '../instances/outbid';
import { l10n } from '../l10n';
import type { Ask } from '../prompts';
import type { SshTarget } from '../ssh/remote';
import { setJobPolicy } from './remoteJobs';
import type { OutbidPolicy } from './resumable';
import { askPolicy } from './resumeQuestions';
import { policyLabel, type JobRow } from './rows';

export interface ChangePolicyDeps {
  readonly ask: Ask;
  /** Writes the instance's SSH entry and says how ssh reaches it. */
  target(instance: Instance): Promise<SshTarget>;
  /** Lists the instance's jobs again, so the row shows the new policy. */
  relist(instanceId: number): Promise<void>;
  /** Keeps the choice on this machine (the job book's JobChoices). */
  readonly choices: { changePolicy(instanceId: number, jobId: string, policy: OutbidPolicy): Promise<void> };
  /** Writes the policy on the instance (tests hand a fake; default over ssh). */
  write?: (target: SshTarget, jobId: string, policy: OutbidPolicy) => Promise<void>;
}

/** What came of it: the sentence to show, and whether it is a warning. */
export interface ChangePolicyResult {
  readonly changed: boolean;
  readonly message: string;
}

/**
 * Asks the new policy (and its ceiling) for a resumable job on an interruptible instance, writes
 * it on the instance and lists the jobs again. Resolves undefined when the user cancelled: nothing
 * was written. A job that is not resumable, or an on-demand instance (never outbid), is said and
 * nothing is asked.
 */
export async function changePolicyFlow(
  deps: ChangePolicyDeps,
  instance: Instance,
  row: Pick<JobRow, 'jobId' | 'label' | 'resume'>,
): Promise<ChangePolicyResult | undefined> {
  if (!row.resume)
    return {
      changed: false,
      message: l10n.t('GPU Rental: "{0}" was started to run once; only a resumable job has an outbid policy.', row.label),
    };
  if (!isInterruptible(instance))
    return {
      changed: false,
      message: l10n.t('GPU Rental: {0} rents on demand and is never outbid; its jobs resume when it starts again.', instanceName(instance)),
    };
  const policy = await askPolicy(deps, instance, row.resume.onDemandPerHour);
  if (!policy) return undefined;
  // This machine's record first: it is what the policies follow, even when the instance cannot be written.
  await deps.choices.changePolicy(instance.id, row.jobId, policy);
  await (deps.write ?? setJobPolicy)(await deps.target(instance), row.jobId, policy);
  await deps.relist(instance.id);
  return {
    changed: true,
    message: l10n.t('GPU Rental: when {0} is outbid, "{1}" will now: {2}.', instanceName(instance), row.label, policyLabel(policy)),
  };
}
