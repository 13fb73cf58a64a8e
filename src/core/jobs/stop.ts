import type { Instance } from '../api/instances';
import { formatDollars } from '../format';
import { l10n } from '../l10n';
import type { Ask } from '../prompts';
import type { JobRef } from './ports';

export interface StopJobDeps {
  readonly ask: Pick<Ask, 'confirm'>;
  readonly jobs: { stop(instanceId: number, jobId: string, stopInstance: boolean): Promise<boolean> };
}

/** What Stop Job did: whether the command was running when stopped, and what the user is told. */
export interface StopJobOutcome {
  readonly stopped: boolean;
  readonly message: string;
}

/**
 * Stop Job, decided: a confirmation that says the instance keeps running (with its rate when the
 * poll knows it), even when the job was to stop it at its end; then the job alone is stopped.
 * Resolves undefined when the user cancels: nothing is stopped.
 */
export async function stopJobAsked(
  deps: StopJobDeps,
  job: JobRef,
  instance: Pick<Instance, 'dph_total'> | undefined,
): Promise<StopJobOutcome | undefined> {
  const rate = instance?.dph_total ? formatDollars(instance.dph_total) : undefined;
  const ok = await deps.ask.confirm(
    l10n.t('Stop {0} on #{1}?', job.label, job.instanceId),
    rate === undefined
      ? l10n.t(
          'Its command and everything it started are ended. The instance keeps running, even when the job was to stop it at its end: stop it yourself when you are done.',
        )
      : l10n.t(
          'Its command and everything it started are ended. The instance keeps running ({0}/h), even when the job was to stop it at its end: stop it yourself when you are done.',
          rate,
        ),
    l10n.t('Stop Job'),
  );
  if (!ok) return undefined;
  const stopped = await deps.jobs.stop(job.instanceId, job.jobId, false);
  return { stopped, message: stopMessage(job, stopped, rate) };
}

function stopMessage(job: JobRef, stopped: boolean, rate: string | undefined): string {
  if (!stopped) return l10n.t('GPU Rental: {0} had already ended.', job.label);
  return rate === undefined
    ? l10n.t('GPU Rental: {0} was stopped. #{1} keeps running; stop or destroy it when you are done.', job.label, job.instanceId)
    : l10n.t(
        'GPU Rental: {0} was stopped. #{1} keeps running ({2}/h); stop or destroy it when you are done.',
        job.label,
        job.instanceId,
        rate,
      );
}
