/**
 * The outbid policies of resumable jobs (resumable.ts): what GPU Rental does when the service
 * outbids an instance whose jobs resume. One instance, one policy: its first job's (the notice says
 * so when its jobs differ).
 *
 * - wait: one notice, with what the disk bills meanwhile; the service resumes the instance.
 * - raise: the bid just over the machine's minimum (the step Change Bid suggests) when that is within
 *   the ceiling, sent and checked as Change Bid sends it (core/instances/outbid.ts); above it nothing
 *   is sent and the instance waits.
 * - move: outbidMove.ts rents the same search elsewhere, copies the checkpoints over with the
 *   service's copy, verifies them, resumes the job there and only then destroys the old instance.
 *
 * It is written against ports: the job book's listing and resume (ResumableJobsPort), and the rent
 * through the Renter and its journal (MoveRentPort, core/rent/outbidRent.ts). The ui adapter is
 * src/ui/guards/outbid.ts; only the window that records the outbid acts on it.
 */
import type { Instance } from '../api/instances';
import { formatDollars } from '../format';
import { instanceName } from '../instances/names';
import { changeInstanceBid, minBidNow, outbidDiskRate, suggestBid } from '../instances/outbid';
import { l10n, sentences } from '../l10n';
import type { Notice } from '../notice';
import { destroyNewInstance } from './outbidKept';
import { moveJobs } from './outbidMove';
import {
  errorText,
  jobNames,
  shortName,
  type MoveState,
  type OutbidAction,
  type OutbidOutcome,
  type OutbidPolicyDeps,
} from './outbidPorts';
import { policyText, type OutbidPolicy, type ResumableJob } from './resumable';

export * from './outbidPorts';

/** The policy an instance follows, and whether its jobs disagree (then the first job's). */
export function instancePolicy(jobs: readonly ResumableJob[]): { policy: OutbidPolicy; first: ResumableJob; differ: boolean } | undefined {
  const first = jobs[0];
  if (!first) return undefined;
  const text = policyText(first.spec.policy);
  return { policy: first.spec.policy, first, differ: jobs.some((j) => policyText(j.spec.policy) !== text) };
}

/** "Its jobs have different outbid policies; the first job's applies ("train": raise 0.5)." */
function differNote(differ: boolean, first: ResumableJob): string | undefined {
  return differ
    ? l10n.t(
        "Its jobs have different outbid policies; the first job's applies ({0}: {1}).",
        jobNames([first]),
        policyText(first.spec.policy),
      )
    : undefined;
}

function diskMeanwhile(instance: Instance): string {
  const disk = outbidDiskRate(instance);
  return disk === undefined ? l10n.t('Its disk still bills meanwhile.') : l10n.t('Its disk bills {0}/h meanwhile.', formatDollars(disk));
}

/**
 * What a notice adds when the instance's copy of the policy is not what the user chose here (or
 * nothing was chosen here): that copy is shown as text and never followed.
 */
export function sourceNote(first: Pick<ResumableJob, 'policySource' | 'label' | 'jobId'>): string | undefined {
  const source = first.policySource;
  if (source?.kind === 'notHere')
    return l10n.t(
      'No outbid policy was chosen for {0} on this machine, so it waits; the instance\'s own copy ("{1}") is not followed. Choose one with Change Outbid Policy.',
      jobNames([first]),
      source.onInstance,
    );
  if (source?.kind === 'differs')
    return l10n.t(
      'The instance\'s copy of the policy of {0} says "{1}"; GPU Rental follows what you chose on this machine.',
      jobNames([first]),
      source.onInstance,
    );
  return undefined;
}

/** The wait policy's notice (also what raise says when the ceiling stops it, before its own sentence). */
export function waitNotice(instance: Instance, jobs: readonly ResumableJob[], differ: boolean): Notice<OutbidAction> {
  const names = jobNames(jobs);
  const resumes =
    jobs.length === 1
      ? l10n.t(
          'GPU Rental: {0} was outbid and stopped. {1} resumes from its newest checkpoint when the service resumes the instance (policy: wait).',
          shortName(instance),
          names,
        )
      : l10n.t(
          'GPU Rental: {0} was outbid and stopped. {1} resume from their newest checkpoints when the service resumes the instance (policy: wait).',
          shortName(instance),
          names,
        );
  return {
    severity: 'warning',
    text: sentences(resumes, diskMeanwhile(instance), differNote(differ, jobs[0]!)),
    actions: ['raiseBid', 'moveToOnDemand'],
  };
}

/**
 * Acts on the outbid of `instance` by its jobs' policy, once at a time per instance. Undefined when
 * it has no resumable job that has not ended: the plain outbid notice applies.
 */
export class OutbidPolicies {
  private readonly moving = new Set<number>();

  constructor(private readonly deps: OutbidPolicyDeps) {}

  /** Whether a move of instance `id` is on its way in this window. */
  isMoving(id: number): boolean {
    return this.moving.has(id);
  }

  async onOutbid(instance: Instance): Promise<OutbidOutcome | undefined> {
    if (this.moving.has(instance.id)) return { kind: 'inFlight' };
    const jobs = this.deps.jobs.resumableJobs(instance.id).filter((j) => !j.ended);
    const chosen = instancePolicy(jobs);
    if (!chosen) return undefined;
    const { policy, differ, first } = chosen;
    this.deps.logger.info(
      `Instance #${instance.id} was outbid; its resumable jobs (${jobs.map((j) => j.jobId).join(', ')}) follow "${policyText(policy)}" as chosen ${first.policySource?.kind === 'notHere' ? 'by default (nothing was chosen on this machine)' : 'on this machine'}.`,
    );
    const outcome = await this.follow(instance, jobs, policy, differ);
    const note = sourceNote(first);
    return note && outcome.kind === 'acted'
      ? { ...outcome, notice: { ...outcome.notice, text: sentences(outcome.notice.text, note) } }
      : outcome;
  }

  /** The policy's own work: what the user chose on this machine, never the instance's copy (the job book reconciled them). */
  private follow(instance: Instance, jobs: readonly ResumableJob[], policy: OutbidPolicy, differ: boolean): Promise<OutbidOutcome> {
    switch (policy.kind) {
      case 'wait':
        return Promise.resolve({ kind: 'acted', notice: waitNotice(instance, jobs, differ) });
      case 'raise':
        return this.raise(instance, jobs, policy.ceiling, differ);
      case 'move':
        return this.guarded(instance.id, () => moveJobs(this.deps, { old: instance, jobs, ceiling: policy.ceiling, differ }));
    }
  }

  /** Retry Copy: the move goes on from the wait for the new instance, with the same one. */
  retryCopy(move: MoveState): Promise<OutbidOutcome> {
    if (this.moving.has(move.old.id)) return Promise.resolve({ kind: 'inFlight' });
    return this.guarded(move.old.id, () => moveJobs(this.deps, move));
  }

  /** Destroy New Instance: asked again in a modal, then the one destroy action; the old one stays. */
  async destroyNew(move: MoveState): Promise<OutbidOutcome> {
    if (this.moving.has(move.old.id)) return { kind: 'inFlight' };
    return this.guarded(move.old.id, () => destroyNewInstance(this.deps, move));
  }

  private async guarded(id: number, work: () => Promise<OutbidOutcome>): Promise<OutbidOutcome> {
    this.moving.add(id);
    try {
      return await work();
    } finally {
      this.moving.delete(id);
    }
  }

  /** Just over the machine's minimum, when that is within the ceiling; sent as Change Bid sends it. */
  private async raise(instance: Instance, jobs: readonly ResumableJob[], ceiling: number, differ: boolean): Promise<OutbidOutcome> {
    const d = this.deps;
    const name = instanceName(instance);
    const min = minBidNow(instance);
    const from = instance.dph_base ?? undefined;
    if (min === undefined) return { kind: 'acted', notice: waitNotice(instance, jobs, differ) };
    const price = suggestBid(min);
    const buttons: OutbidAction[] = ['raiseBid', 'moveToOnDemand'];
    if (price > ceiling + 1e-9) {
      d.logger.info(`Instance #${instance.id}: a bid of $${price.toFixed(4)}/h would be over the ceiling $${ceiling}/h; nothing sent.`);
      const text = sentences(
        l10n.t('GPU Rental: {0} was outbid and stopped.', shortName(instance)),
        l10n.t(
          'Its bid would need to be {0}/h (just over the minimum of {1}/h), above the ceiling of {2}/h set for {3}, so no bid was sent and it waits (policy: raise).',
          formatDollars(price),
          formatDollars(min),
          formatDollars(ceiling),
          jobNames(jobs),
        ),
      );
      return {
        kind: 'acted',
        notice: { severity: 'warning', text: sentences(text, diskMeanwhile(instance), differNote(differ, jobs[0]!)), actions: buttons },
      };
    }
    const reason = l10n.t('changed: the bid of {0} would be {1}/h', name, formatDollars(price));
    if (!(await d.allowsSpend(price, reason))) {
      d.logger.info(`Instance #${instance.id}: the spend cap refused a bid of $${price.toFixed(4)}/h.`);
      const text = l10n.t(
        'GPU Rental: {0} was outbid and stopped. The spend cap refused raising its bid to {1}/h, so no bid was sent and it waits (policy: raise).',
        shortName(instance),
        formatDollars(price),
      );
      return { kind: 'acted', notice: { severity: 'warning', text: sentences(text, diskMeanwhile(instance)), actions: buttons } };
    }
    d.logger.info(
      `Instance #${instance.id}: raising its bid from ${from ?? '?'} to $${price.toFixed(4)}/h (minimum $${min}/h, ceiling $${ceiling}/h).`,
    );
    let message: string;
    let kind: 'done' | 'notDone' | 'unknown' | 'refused';
    try {
      ({ kind, message } = await changeInstanceBid(d.instances, instance, price));
    } catch (error) {
      kind = 'refused';
      message = l10n.t('the service refused the new bid of {0}/h for {1}: {2}', formatDollars(price), name, errorText(error));
    }
    d.logger.info(`Instance #${instance.id}: raise ${kind}: ${message}`);
    const why =
      from === undefined
        ? l10n.t(
            'The policy of {0} raised it to just over the minimum of {1}/h, within the ceiling of {2}/h.',
            jobNames(jobs),
            formatDollars(min),
            formatDollars(ceiling),
          )
        : sentences(
            l10n.t('The policy of {0} raised it from {1}/h to {2}/h.', jobNames(jobs), formatDollars(from), formatDollars(price)),
            l10n.t('That is just over the minimum of {0}/h, within the ceiling of {1}/h.', formatDollars(min), formatDollars(ceiling)),
          );
    if (kind === 'done')
      return {
        kind: 'acted',
        notice: { severity: 'info', text: sentences(l10n.t('GPU Rental: {0}', message), why, differNote(differ, jobs[0]!)) },
        boots: instance.id,
      };
    return {
      kind: 'acted',
      notice: {
        severity: 'warning',
        text: sentences(l10n.t('GPU Rental: {0} was outbid and stopped; {1}', shortName(instance), message), diskMeanwhile(instance)),
        actions: buttons,
      },
    };
  }
}
