import { formatDollars } from '../format';
import { l10n } from '../l10n';
import { visibleText } from '../text';
import type { RememberedJob } from './memory';
import type { OutbidPolicy } from './resumable';
import { describeJob, jobPhase, type JobStatus, type ResumeStatus } from './status';

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
  /** A resumable job's listing, and the seconds it has run in all (its runs the stops cut short, and this one). */
  readonly resume?: ResumeStatus;
  readonly ranSeconds?: number;
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
    const description = describeJob(shown, nowMs);
    return {
      instanceId,
      jobId: s.jobId,
      label: s.label,
      description: s.resume ? resumableDescription(description, s.resume) : description,
      state: stateOf(shown),
      cwd: s.cwd || undefined,
      ...(s.resume ? { resume: s.resume, ranSeconds: ranSeconds(shown, nowMs) } : {}),
    };
  });
  for (const j of remembered) {
    if (j.instanceId !== instanceId || listed.some((s) => s.jobId === j.jobId)) continue;
    const description = up ? l10n.t('not listed yet') : l10n.t('waiting for the instance to run');
    rows.push({ instanceId, jobId: j.jobId, label: j.label, description, state: 'starting', cwd: undefined });
  }
  return rows;
}

/** A ceiling in $/h as the row says it: two decimals ("$0.60"). */
function ceiling(value: number): string {
  return `$${value.toFixed(2)}`;
}

/** The policy as a row says it: "wait", "raise ≤ $0.60/h", "move ≤ $0.60/h". */
export function policyLabel(policy: OutbidPolicy): string {
  switch (policy.kind) {
    case 'wait':
      return l10n.t('wait');
    case 'raise':
      return l10n.t('raise ≤ {0}/h', ceiling(policy.ceiling));
    case 'move':
      return l10n.t('move ≤ {0}/h', ceiling(policy.ceiling));
  }
}

/** "running 12:03 · resumed ×2 · raise ≤ $0.60/h"; without a recovery, "running 12:03 · wait". */
function resumableDescription(description: string, r: ResumeStatus): string {
  return r.recoveryCount > 0
    ? l10n.t('{0} · resumed ×{1} · {2}', description, r.recoveryCount, policyLabel(r.policy))
    : l10n.t('{0} · {1}', description, policyLabel(r.policy));
}

/** Seconds it ran in all: the runs the stops cut short, then this one (a run its instance's stop cut short counts from the next resume). */
function ranSeconds(s: JobStatus, nowMs: number): number {
  const before = s.resume?.ranBeforeSeconds ?? 0;
  if (s.startedAt === undefined) return before;
  const phase = jobPhase(s);
  if (phase === 'running') return before + Math.max(0, Math.round(nowMs / 1000) - s.startedAt);
  if (phase === 'exited' && s.endedAt !== undefined) return before + Math.max(0, s.endedAt - s.startedAt);
  return before;
}

/**
 * The tooltip's history of a resumable job: each recovery (when, moved from which instance, minutes
 * lost), the minutes lost in all, and the dollars saved against the on-demand price: on-demand
 * minus what it paid per hour (`paidPerHour`, its GPU's rate), times the hours it ran.
 */
export function resumeHistory(row: Pick<JobRow, 'resume' | 'ranSeconds' | 'instanceId'>, paidPerHour: number | undefined): string[] {
  const r = row.resume;
  if (!r) return [];
  const lines = [
    l10n.t('Resumable: checkpoints on #{0} in {1}; when outbid: {2}.', row.instanceId, r.checkpointPath, policyLabel(r.policy)),
  ];
  if (r.policySource?.kind === 'differs')
    lines.push(
      l10n.t(
        'The instance\'s copy of the policy says "{0}"; GPU Rental follows what you chose on this machine.',
        r.policySource.onInstance,
      ),
    );
  else if (r.policySource?.kind === 'notHere')
    lines.push(
      l10n.t(
        'No policy was chosen for it on this machine, so it waits when outbid (the instance\'s copy, "{0}", is not followed); choose one with Change Outbid Policy.',
        r.policySource.onInstance,
      ),
    );
  if (r.latest)
    lines.push(
      l10n.t(
        'Newest checkpoint: {0}, {1} MB, {2}.',
        visibleText(r.latest.name, 120),
        (r.latest.bytes / 1e6).toFixed(1),
        utc(r.latest.modifiedAt),
      ),
    );
  if (r.recoveryCount === 0) lines.push(l10n.t('Not resumed yet.'));
  for (const rec of r.recoveries) {
    const lost = Math.round(rec.lostSeconds / 60);
    lines.push(
      rec.movedFrom === undefined
        ? l10n.t('Resumed {0}; {1} min of work lost.', utc(rec.at), lost)
        : l10n.t('Moved from #{0} and resumed {1}; {2} min of work lost.', rec.movedFrom, utc(rec.at), lost),
    );
  }
  if (r.recoveryCount > r.recoveries.length)
    lines.push(l10n.t('{0} earlier recoveries are not shown.', r.recoveryCount - r.recoveries.length));
  if (r.recoveryCount > 0) {
    const lost = Math.round(r.recoveries.reduce((sum, rec) => sum + rec.lostSeconds, 0) / 60);
    lines.push(l10n.t('Work lost in all: {0} min.', lost));
  }
  const hours = (row.ranSeconds ?? 0) / 3600;
  if (r.onDemandPerHour === undefined || paidPerHour === undefined) lines.push(l10n.t('Saved against on-demand: unknown.'));
  else
    lines.push(
      l10n.t(
        'Saved against on-demand: {0} ({1}/h on demand, {2}/h paid, for {3} h).',
        formatDollars((r.onDemandPerHour - paidPerHour) * hours),
        formatDollars(r.onDemandPerHour),
        formatDollars(paidPerHour),
        hours.toFixed(1),
      ),
    );
  return lines;
}

function utc(unixSeconds: number): string {
  return `${new Date(unixSeconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** What the tree shows of a row beyond its label and description (as `presentInstance` does for instances). */
export interface JobRowLook {
  readonly tooltip: string;
  readonly icon: { readonly id: string; readonly color?: string };
  /** `-resumable` at the end for a resumable job (Change Outbid Policy). */
  readonly contextValue: 'job-running' | 'job-ended' | 'job-running-resumable' | 'job-ended-resumable';
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

/** `paidPerHour`: what the instance's GPU bills per hour now (a resumable job's "saved" counts against it). */
export function presentJobRow(row: JobRow, paidPerHour?: number): JobRowLook {
  return {
    tooltip: [
      row.label,
      row.description,
      l10n.t('Job {0} on #{1}; its files are in ~/.gpu-rental/jobs/{0} on the instance.', row.jobId, row.instanceId),
      ...resumeHistory(row, paidPerHour),
    ].join('\n'),
    icon: ICONS[row.state],
    contextValue: `${isRunningRow(row) ? 'job-running' : 'job-ended'}${row.resume ? '-resumable' : ''}`,
    accessibilityLabel: spoken(row),
  };
}
