import { l10n } from '../l10n';
import type { RememberedJob } from './memory';
import { describeJob, jobPhase, type JobStatus } from './status';

/** How a job's row reads: running or starting (not listed yet), or how it ended. */
export type JobRowState = 'starting' | 'running' | 'interrupted' | 'succeeded' | 'failed';

/** One job under its instance in the Instances view, as core decides it; ui makes the tree item. */
export interface JobRow {
  readonly instanceId: number;
  readonly jobId: string;
  readonly label: string;
  /** "running 12:03", "exited 0 after 1:02:11", "not listed yet"… */
  readonly description: string;
  readonly state: JobRowState;
  /** The folder it runs in, once a listing showed it: where its outputs are. */
  readonly cwd: string | undefined;
}

/** Whether the row's job runs (or is about to): Stop Job offers it. */
export function isRunningRow(row: Pick<JobRow, 'state'>): boolean {
  return row.state === 'running' || row.state === 'starting';
}

function stateOf(s: JobStatus): JobRowState {
  const phase = jobPhase(s);
  if (phase !== 'exited') return phase;
  // A job stopped by the user reads as stopped, whatever its exit code: not a success.
  return s.exitCode === 0 && !s.cancelled ? 'succeeded' : 'failed';
}

/**
 * The rows under an instance: the jobs its last listing showed, then the ones this workspace
 * started that no listing showed yet. `up`: the instance runs now; a stop or a reboot kills every
 * process of the instance, so what a listing showed running before it was interrupted.
 */
export function jobRows(
  instanceId: number,
  listed: readonly JobStatus[],
  remembered: readonly RememberedJob[],
  up: boolean,
  nowMs: number,
): JobRow[] {
  const rows: JobRow[] = listed.map((s) => {
    const shown = !up && jobPhase(s) === 'running' ? { ...s, alive: false } : s;
    return {
      instanceId,
      jobId: s.jobId,
      label: s.label,
      description: describeJob(shown, nowMs),
      state: stateOf(shown),
      cwd: s.cwd || undefined,
    };
  });
  for (const j of remembered) {
    if (j.instanceId !== instanceId || listed.some((s) => s.jobId === j.jobId)) continue;
    const description = up ? l10n.t('not listed yet') : l10n.t('waiting for the instance to run');
    rows.push({ instanceId, jobId: j.jobId, label: j.label, description, state: 'starting', cwd: undefined });
  }
  return rows;
}

/** What the tree shows of a row beyond its label and description (as `presentInstance` does for instances). */
export interface JobRowLook {
  readonly tooltip: string;
  readonly icon: { readonly id: string; readonly color?: string };
  readonly contextValue: 'job-running' | 'job-ended';
  /** The icon says how it ended; a screen reader is told in words. */
  readonly accessibilityLabel: string;
}

const ICONS: Record<JobRowState, JobRowLook['icon']> = {
  starting: { id: 'sync~spin' },
  running: { id: 'sync~spin' },
  interrupted: { id: 'debug-disconnect', color: 'problemsWarningIcon.foreground' },
  succeeded: { id: 'pass', color: 'testing.iconPassed' },
  failed: { id: 'error', color: 'testing.iconFailed' },
};

function spoken(row: JobRow): string {
  const { label, instanceId: id, description: d } = row;
  switch (row.state) {
    case 'starting':
      return l10n.t('Job {0} on instance {1}, starting, {2}', label, id, d);
    case 'running':
      return l10n.t('Job {0} on instance {1}, running, {2}', label, id, d);
    case 'interrupted':
      return l10n.t('Job {0} on instance {1}, interrupted, {2}', label, id, d);
    case 'succeeded':
      return l10n.t('Job {0} on instance {1}, succeeded, {2}', label, id, d);
    case 'failed':
      return l10n.t('Job {0} on instance {1}, failed, {2}', label, id, d);
  }
}

export function presentJobRow(row: JobRow): JobRowLook {
  return {
    tooltip: [
      row.label,
      row.description,
      l10n.t('Job {0} on #{1}; its files are in ~/.gpu-rental/jobs/{0} on the instance.', row.jobId, row.instanceId),
    ].join('\n'),
    icon: ICONS[row.state],
    contextValue: isRunningRow(row) ? 'job-running' : 'job-ended',
    accessibilityLabel: spoken(row),
  };
}
