import { formatDollars } from '../format';
import { instancePhase } from '../instances/phase';
import type { InstancePoller, Timers } from '../instances/poller';
import { l10n } from '../l10n';
import type { Notice } from '../notice';
import { STOP_GRACE_SECONDS } from './scripts';

/** A button of a job's notification, as an id; ui labels it and hands the choice back. */
export type JobAction = 'showOutput';

/** What a job tells the user in a notification (ui shows it; `GPU Rental:` starts every message). */
export interface JobNotice extends Notice<JobAction> {
  readonly severity: 'info' | 'warning';
  readonly actions: readonly JobAction[];
  /** The job the buttons act on. */
  readonly job?: { readonly instanceId: number; readonly jobId: string; readonly label: string };
}

/** How long after a job's end its instance should be seen stopped, when the job was to stop it. */
export const STOP_SEEN_MS = 3 * 60_000;

export interface StopWatch {
  readonly poller: Pick<InstancePoller, 'watch' | 'onDidUpdate' | 'refresh'>;
  readonly timers: Pick<Timers, 'setTimeout' | 'clearTimeout'>;
  readonly notify: (notice: JobNotice) => void;
}

/** What the user is told once the poll shows the instance stopped (or gone) after its job's end. */
export function stopSeenNotice(instanceId: number, phase: 'stopped' | 'gone', diskPerHour: number | null | undefined): JobNotice {
  const message =
    phase === 'gone'
      ? l10n.t("GPU Rental: #{0} was stopped by the job's end; it is gone. Download the outputs before you destroy it.", instanceId)
      : diskPerHour
        ? l10n.t(
            "GPU Rental: #{0} was stopped by the job's end; its disk still bills {1}/h until you destroy it. Download the outputs before you destroy it.",
            instanceId,
            formatDollars(diskPerHour),
          )
        : l10n.t(
            "GPU Rental: #{0} was stopped by the job's end; its disk still bills until you destroy it. Download the outputs before you destroy it.",
            instanceId,
          );
  return { severity: 'info', text: message, actions: [] };
}

/** What the poll showed of instances that a job's end was to stop. */
export type StopsSeen =
  /** Every one seen stopped or gone in one poll: the stopped ones with their disk's rate (when the listing has it), and the gone ones. */
  | {
      readonly kind: 'seen';
      readonly stopped: readonly { readonly instanceId: number; readonly diskPerHour: number | null | undefined }[];
      readonly gone: readonly number[];
    }
  /** Not every one was seen stopped within STOP_SEEN_MS: the ones the last poll did not show stopped. */
  | { readonly kind: 'unseen'; readonly unseen: readonly number[] };

/**
 * The wrapper asks the service to stop each instance a moment after its job ended. Follows the poll
 * until it shows every one stopped (or gone) at once, or STOP_SEEN_MS passed, and tells which, once.
 * Returns what ends the watch early.
 */
export function watchStops(w: Omit<StopWatch, 'notify'>, instanceIds: readonly number[], told: (seen: StopsSeen) => void): () => void {
  for (const id of instanceIds) w.poller.watch(id);
  let unseen: readonly number[] = instanceIds;
  const done = () => {
    w.timers.clearTimeout(timer);
    w.timers.clearTimeout(poll);
    subscription.dispose();
  };
  const subscription = w.poller.onDidUpdate((snapshot) => {
    const nodes = instanceIds.map((id) => {
      const instance = snapshot.instances.find((i) => i.id === id);
      return { id, instance, phase: instance ? instancePhase(instance) : 'gone' };
    });
    unseen = nodes.filter((n) => n.phase !== 'stopped' && n.phase !== 'gone').map((n) => n.id);
    if (unseen.length > 0) return;
    done();
    told({
      kind: 'seen',
      stopped: nodes.filter((n) => n.phase === 'stopped').map((n) => ({ instanceId: n.id, diskPerHour: n.instance?.storage_total_cost })),
      gone: nodes.filter((n) => n.phase === 'gone').map((n) => n.id),
    });
  });
  const timer = w.timers.setTimeout(() => {
    done();
    told({ kind: 'unseen', unseen });
  }, STOP_SEEN_MS);
  // The wrapper waits STOP_GRACE_SECONDS before it asks: poll just after.
  const poll = w.timers.setTimeout(() => void w.poller.refresh(), (STOP_GRACE_SECONDS + 1) * 1000);
  return done;
}

/**
 * One instance's stop after its job's end: says so once the poll shows it stopped, with what the
 * disk still bills; when it is not seen stopped in three minutes, says it may still bill its full
 * rate, to check. Returns what ends the watch early.
 */
export function watchStop(w: StopWatch, instanceId: number): () => void {
  return watchStops(w, [instanceId], (seen) => {
    if (seen.kind === 'seen') {
      const stopped = seen.stopped[0];
      w.notify(stopSeenNotice(instanceId, stopped ? 'stopped' : 'gone', stopped?.diskPerHour));
      return;
    }
    w.notify({
      severity: 'warning',
      actions: [],
      text: l10n.t(
        'GPU Rental: the job on #{0} asked the service to stop the instance, but it is not seen stopped after {1} minutes, so it may still bill its full rate. Check it in the Instances view and stop it yourself if it runs.',
        instanceId,
        STOP_SEEN_MS / 60_000,
      ),
    });
  });
}

/** watchStop, whose early end is kept in `pending` (to be called at dispose) until it told `notify`. */
export function watchStopPending(
  w: Omit<StopWatch, 'notify'>,
  pending: Set<() => void>,
  instanceId: number,
  notify: (notice: JobNotice) => void,
): void {
  const stop = watchStop(
    {
      ...w,
      notify: (notice) => {
        pending.delete(done);
        notify(notice);
      },
    },
    instanceId,
  );
  const done = () => {
    stop();
    pending.delete(done);
  };
  pending.add(done);
}
