/**
 * The outbid policy "move", step by step, each said as it happens and written to the log:
 *
 * 1. rent an instance like the outbid one on another machine, within the ceiling (MoveRentPort:
 *    the Renter and its journal, failover over taken offers);
 * 2. wait until it runs and its sshd answers;
 * 3. copy the job's working folder (its code and data), its checkpoint folder and its own folder
 *    from the stopped old instance with the service's copy, followed to its end (outbidVerify.ts);
 * 4. verify over ssh that the newest checkpoint is there with its size, and the job's folder;
 * 5. resume the job there;
 * 6. only then destroy the old instance, its outcome checked.
 *
 * Cancel works between steps (and ends a wait or a copy), never during a create. A copy or check
 * that fails keeps both instances and says where the checkpoint is and what the new one costs,
 * with Retry Copy and Destroy New Instance: nothing is destroyed without the user's choice.
 */
import { isApiError } from '../api/errors';
import type { Instance } from '../api/instances';
import { formatDollars } from '../format';
import { outcomeUnseen } from '../instances/actions';
import { followTransfer } from '../instances/copyProgress';
import { gpuSummary, instanceName } from '../instances/names';
import { sshEndpoint } from '../instances/ssh';
import { untilPhase } from '../instances/untilPhase';
import { l10n, sentences } from '../l10n';
import type { Notice } from '../notice';
import { waitForSshBanner } from '../ssh/probe';
import { lastErrorLine, type SshTarget } from '../ssh/remote';
import { visibleText } from '../text';
import { destroyOne, diskBills, kept } from './outbidKept';
import {
  errorText,
  jobNames,
  shortName,
  type MoveState,
  type OutbidAction,
  type OutbidOutcome,
  type OutbidPolicyDeps,
} from './outbidPorts';
import { judgeVerify, mkdirScript, moveFolders, readVerify, verifyScript, VERIFY_TIMEOUT_MS, type VerifyJudgement } from './outbidVerify';
import type { CheckpointInfo } from './resumable';

const STEPS = 6;
const BOOT_TIMEOUT_MS = 15 * 60_000;
const SSH_TIMEOUT_MS = 3 * 60_000;

type Fresh = NonNullable<MoveState['fresh']>;
type Report = (message: string) => void;

/** Runs the move (from step 1, or from step 2 when `start` has its new instance) under one cancellable progress. */
export function moveJobs(d: OutbidPolicyDeps, start: MoveState): Promise<OutbidOutcome> {
  // The outbid is said first: this progress is the only notification while the move runs.
  const title = l10n.t('{0} was outbid and stopped; moving {1} to another machine', shortName(start.old), jobNames(start.jobs));
  return d.progress(title, async (task) => {
    const report: Report = (message) => task.report({ message });
    const signal = task.signal;
    let move = start;
    if (!move.fresh) {
      const rented = await rentStep(d, move, report, signal);
      if ('kind' in rented) return rented;
      move = { ...move, fresh: rented };
    }
    try {
      return await takeOver(d, move, move.fresh!, report, signal);
    } catch (error) {
      // Whatever went wrong, the new instance exists: the user keeps the buttons to go on or destroy it.
      d.logger.error(`Move from #${move.old.id} to #${move.fresh!.id}: ${String(error)}`);
      return kept(d, move, { why: errorText(error), actions: ['retryCopy', 'destroyNew'] });
    }
  });
}

function step(n: number, text: string): string {
  return l10n.t('step {0} of {1}: {2}', n, STEPS, text);
}

/** Step 1: the rent. The new instance, or what to tell when there is none. */
async function rentStep(d: OutbidPolicyDeps, move: MoveState, report: Report, signal: AbortSignal): Promise<Fresh | OutbidOutcome> {
  const { old, ceiling } = move;
  report(step(1, l10n.t('renting {0} on another machine, at most {1}/h for the GPU', gpuSummary(old), formatDollars(ceiling))));
  d.logger.info(`Move from #${old.id}: renting a ${gpuSummary(old)} like it on another machine, at most $${ceiling}/h.`);
  const rented = await d.rent.rentLike(old, ceiling, { report: (m) => report(step(1, m)), signal });
  d.logger.info(
    `Move from #${old.id}: the rent ended ${rented.kind}${rented.kind === 'rented' ? ` (#${rented.instanceId}, ${rented.description}, $${rented.perHour.toFixed(4)}/h)` : ''}.`,
  );
  const waits = (text: string, severity: 'info' | 'warning' = 'warning'): OutbidOutcome => ({
    kind: 'acted',
    notice: { severity, text: sentences(text, diskBills(old)), actions: ['raiseBid', 'moveToOnDemand'] },
  });
  switch (rented.kind) {
    case 'rented':
      return { id: rented.instanceId, description: rented.description, perHour: rented.perHour };
    case 'nothingFits':
      return waits(
        l10n.t(
          'GPU Rental: {0} was outbid and stopped. No offer like it ({1}, at least its GPU memory and disk, on another machine) fits the ceiling of {2}/h now, so nothing was rented and {3} waits for the service to resume it (policy: move).',
          instanceName(old),
          gpuSummary(old),
          formatDollars(ceiling),
          jobNames(move.jobs),
        ),
      );
    case 'notRented':
      return waits(
        l10n.t(
          'GPU Rental: {0} was outbid and stopped; moving {1} rented nothing: {2} It waits for the service to resume it.',
          instanceName(old),
          jobNames(move.jobs),
          rented.reason,
        ),
      );
    case 'uncertain':
      return {
        kind: 'acted',
        notice: { severity: 'warning', text: l10n.t('GPU Rental: the move of {0} stopped: {1}', jobNames(move.jobs), rented.reason) },
      };
    case 'capped':
      return waits(
        l10n.t(
          'GPU Rental: {0} was outbid and stopped; the spend cap refused the rent that would move {1}, so it waits.',
          instanceName(old),
          jobNames(move.jobs),
        ),
      );
    case 'cancelled':
      return waits(
        l10n.t(
          'GPU Rental: the move of {0} was cancelled before anything was rented; {1} stays stopped.',
          jobNames(move.jobs),
          instanceName(old),
        ),
        'info',
      );
  }
}

/** Steps 2 to 6 on the new instance `fresh`. */
async function takeOver(d: OutbidPolicyDeps, move: MoveState, fresh: Fresh, report: Report, signal: AbortSignal): Promise<OutbidOutcome> {
  const { old, jobs } = move;
  // Every step to the log, in English.
  const log = { info: (line: string) => d.logger.info(`Move from #${old.id} to #${fresh.id}: ${line}`) };
  const cancelled = (n: number) =>
    kept(d, move, { why: l10n.t('cancelled at step {0} of {1}', n, STEPS), actions: ['retryCopy', 'destroyNew'] });
  const folders = moveFolders(jobs);
  if ('problem' in folders) return kept(d, move, { why: folders.problem, actions: ['destroyNew'] });

  // 2. Running, and its sshd answering.
  if (signal.aborted) return cancelled(2);
  const freshName = `#${fresh.id}`;
  report(step(2, l10n.t('waiting for {0} to run', freshName)));
  log.info(`waiting until it runs.`);
  const wait = await (d.untilPhase ?? untilPhase)(d.poller, fresh.id, ['running'], {
    signal,
    timeoutMs: d.bootTimeoutMs ?? BOOT_TIMEOUT_MS,
    onPhase: (phase) => report(step(2, l10n.t('waiting for {0} to run (it is {1})', freshName, phase))),
  });
  if (wait.outcome === 'cancelled') return cancelled(2);
  if (wait.outcome === 'gaveUp') {
    log.info(`it did not boot (${wait.phase}); the old one is kept.`);
    return kept(d, move, { why: l10n.t('the new instance {0} did not boot (it is {1})', freshName, wait.phase), actions: ['destroyNew'] });
  }
  if (wait.outcome === 'timedOut') {
    log.info(`it did not run in time (${wait.phase ?? 'unknown'}); the old one is kept.`);
    const minutes = Math.round((d.bootTimeoutMs ?? BOOT_TIMEOUT_MS) / 60_000);
    return kept(d, move, {
      why: l10n.t('the new instance {0} did not run within {1} min (it is {2})', freshName, minutes, wait.phase ?? 'unknown'),
      actions: ['retryCopy', 'destroyNew'],
    });
  }
  const dst = wait.instance;
  const dstName = instanceName(dst);
  report(step(2, l10n.t('waiting for SSH on {0}', dstName)));
  try {
    await (d.waitForSsh ?? bannerProbe)(dst, signal);
  } catch (error) {
    if (signal.aborted) return cancelled(2);
    log.info(`its SSH did not answer (${errorText(error)}).`);
    return kept(d, move, {
      why: l10n.t('{0} runs, but its SSH did not answer ({1})', dstName, errorText(error)),
      actions: ['retryCopy', 'destroyNew'],
    });
  }
  const target = await d.sshTarget(dst);
  const made = await runOn(d, target, mkdirScript(folders.paths), dstName);
  if (made) return kept(d, move, { why: made, actions: ['retryCopy', 'destroyNew'] });
  log.info(`it runs and answers over SSH.`);

  // 3. The service's copy of each folder, from the stopped old instance.
  for (const path of folders.paths) {
    if (signal.aborted) return cancelled(3);
    const copied = await copyFolder(d, old, dst, path, report, signal);
    if (copied === 'cancelled') return cancelled(3);
    if (copied) {
      log.info(`the copy of ${path} did not finish: ${copied}; both instances are kept.`);
      return kept(d, move, { why: copied, actions: ['retryCopy', 'destroyNew'] });
    }
    log.info(`copied ${path}.`);
  }

  // 4. The job's folder, and the checkpoint it resumes from, on the new instance: the copy holds what
  // the old disk held at the outbid, so the newest checkpoint is read there, and the one the last
  // listing named is checked against it, measured the same way (outbidVerify.ts).
  if (signal.aborted) return cancelled(4);
  report(step(4, l10n.t('checking the copy on {0}', dstName)));
  const resumeFrom = new Map<string, CheckpointInfo | undefined>();
  for (const job of jobs) {
    let judged: VerifyJudgement | undefined;
    const result = await runOn(d, target, verifyScript(job), dstName, (stdout) => {
      judged = judgeVerify(job, readVerify(stdout), dstName, old);
      return 'problem' in judged ? judged.problem : undefined;
    });
    if (result || !judged || 'problem' in judged) {
      const why = result ?? l10n.t('the copy on {0} could not be checked', dstName);
      log.info(`the check of job ${job.jobId} failed: ${why}; both instances are kept.`);
      return kept(d, move, { why, actions: ['retryCopy', 'destroyNew'] });
    }
    resumeFrom.set(job.jobId, judged.resumeFrom);
  }
  log.info(
    `verified ${jobs
      .map((j) => {
        const from = resumeFrom.get(j.jobId);
        return `${j.jobId}: ${from ? `resumes from ${JSON.stringify(from.name)} (${from.files} files, ${from.bytes} bytes)` : 'no checkpoint'}`;
      })
      .join('; ')}.`,
  );

  // 5. The job resumes on the new instance, from exactly the checkpoint checked.
  if (signal.aborted) return cancelled(5);
  for (const job of jobs) {
    report(step(5, l10n.t('resuming {0} on {1}', jobNames([job]), dstName)));
    const checkpoint = resumeFrom.get(job.jobId)?.name;
    try {
      await d.jobs.resume(dst.id, job.jobId, { movedFrom: old.id, ...(checkpoint !== undefined ? { checkpoint } : {}) });
    } catch (error) {
      log.info(`job ${job.jobId} did not resume: ${errorText(error)}; both instances are kept.`);
      return kept(d, move, {
        why: l10n.t('the copy is verified, but {0} did not resume on {1}: {2}', jobNames([job]), dstName, errorText(error)),
        actions: ['retryCopy', 'destroyNew'],
      });
    }
    log.info(`job ${job.jobId} resumed.`);
  }

  // 6. Only now the old instance goes, its outcome checked. No Cancel any more: the job runs on the new one.
  report(step(6, l10n.t('destroying {0}', instanceName(old))));
  const destroyed = await destroyOne(d, old);
  log.info(`destroying the old one: ${destroyed.kind}: ${destroyed.message}`);
  void d.poller.refresh();
  // The new instance carries the old one's label: named by id and machine here, so the two read apart.
  const runs = l10n.t(
    '{0} runs now on {1} at {2}/h, resumed from {3}',
    jobNames(jobs),
    `#${dst.id} (${gpuSummary(dst)})`,
    formatDollars(fresh.perHour),
    resumedFrom([...resumeFrom.values()]),
  );
  const notice: Notice<OutbidAction> =
    destroyed.kind === 'done'
      ? { severity: 'info', text: l10n.t('GPU Rental: {0}; the outbid instance #{1} was destroyed.', runs, old.id) }
      : { severity: 'warning', text: l10n.t('GPU Rental: {0}, but {1}', runs, destroyed.message) };
  return { kind: 'acted', notice };
}

/** "its newest checkpoint checkpoint-12", or "the start (it had no checkpoint)". */
function resumedFrom(checkpoints: readonly (CheckpointInfo | undefined)[]): string {
  const names = checkpoints.flatMap((c) => (c ? [visibleText(c.name, 120)] : []));
  return names.length === 0
    ? l10n.t('the start (it had no checkpoint)')
    : names.length === 1
      ? l10n.t('its newest checkpoint {0}', names[0]!)
      : l10n.t('their newest checkpoints {0}', names.join(', '));
}

/** The sshd probe on the instance's SSH address. */
async function bannerProbe(instance: Instance, signal: AbortSignal): Promise<void> {
  const endpoint = sshEndpoint(instance);
  if (!endpoint) throw new Error(l10n.t('the service gives no SSH address for it'));
  await waitForSshBanner(endpoint.host, endpoint.port, { timeoutMs: SSH_TIMEOUT_MS, signal });
}

/** Runs a script on the new instance: undefined when it did what `judge` wants (exit 0 by default), else why not. */
async function runOn(
  d: OutbidPolicyDeps,
  target: SshTarget,
  script: string,
  dstName: string,
  judge?: (stdout: string) => string | undefined,
): Promise<string | undefined> {
  try {
    const result = await d.run(target, script, VERIFY_TIMEOUT_MS);
    if (result.code === 255) return l10n.t('ssh did not reach {0} ({1})', dstName, lastErrorLine(result.stderr));
    if (judge) return judge(result.stdout);
    return result.code === 0
      ? undefined
      : l10n.t('a command on {0} failed ({1})', dstName, lastErrorLine(result.stderr) || `exit ${result.code}`);
  } catch (error) {
    return l10n.t('ssh did not reach {0} ({1})', dstName, errorText(error));
  }
}

/** Step 3 for one folder: undefined when the service said it finished, 'cancelled', or why it did not. */
async function copyFolder(
  d: OutbidPolicyDeps,
  old: Instance,
  dst: Instance,
  path: string,
  report: Report,
  signal: AbortSignal,
): Promise<string | 'cancelled' | undefined> {
  report(step(3, l10n.t('copying {0} from #{1} to #{2}', path, old.id, dst.id)));
  const before = (await d.instances.show(dst.id).catch(() => dst)).status_msg;
  try {
    // Trailing slashes: what the folder holds goes into the same folder on the new instance.
    await d.copy.copyBetweenInstances({ srcId: old.id, dstId: dst.id, srcPath: `${path}/`, dstPath: `${path}/` });
  } catch (error) {
    if (outcomeUnseen(error) || (isApiError(error) && error.outcomeUnknown))
      return l10n.t(
        "the copy of {0} may have started, but the service's answer was lost ({1}); check the status of #{2} before retrying",
        path,
        errorText(error),
        dst.id,
      );
    return l10n.t('the service refused to copy {0}: {1}', path, errorText(error));
  }
  d.logger.info(`Move from #${old.id} to #${dst.id}: started the copy of ${path}.`);
  const end = await (d.follow ?? followTransfer)(d.poller, dst.id, {
    before,
    signal,
    onProgress: (r) => report(step(3, l10n.t('copying {0}: {1}', path, visibleText(r.message, 200)))),
  });
  switch (end.outcome) {
    case 'done':
      return undefined;
    case 'failed':
      return l10n.t('the copy of {0} failed: {1}', path, visibleText(end.message, 300));
    case 'interrupted':
      return l10n.t('#{0} is {1} and the copy of {2} did not say it finished', dst.id, end.phase, path);
    case 'quiet':
      return l10n.t('no news of the copy of {0} for 10 minutes; whether it finished is not known', path);
    case 'cancelled':
      try {
        await d.copy.cancelCopy(dst.id);
        d.logger.info(`Move from #${old.id} to #${dst.id}: cancelled the copy of ${path}.`);
      } catch (error) {
        d.logger.warn(`Move from #${old.id} to #${dst.id}: cancelling the copy of ${path}: ${errorText(error)}`);
      }
      return 'cancelled';
  }
}
