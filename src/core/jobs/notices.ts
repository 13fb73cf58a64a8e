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

/**
 * The wrapper asks the service to stop the instance a moment after the job ended. Says so once the
 * poll shows it stopped, with what the disk still bills; when it is not seen stopped in three
 * minutes, says it may still bill its full rate, to check. Returns what ends the watch early.
 */
export function watchStop(w: StopWatch, instanceId: number): () => void {
  w.poller.watch(instanceId);
  const done = () => {
    w.timers.clearTimeout(timer);
    w.timers.clearTimeout(poll);
    subscription.dispose();
  };
  const subscription = w.poller.onDidUpdate((snapshot) => {
    const instance = snapshot.instances.find((i) => i.id === instanceId);
    const phase = instance ? instancePhase(instance) : 'gone';
    if (phase !== 'stopped' && phase !== 'gone') return;
    done();
    w.notify(stopSeenNotice(instanceId, phase, instance?.storage_total_cost));
  });
  const timer = w.timers.setTimeout(() => {
    done();
    w.notify({
      severity: 'warning',
      actions: [],
      text: l10n.t(
        'GPU Rental: the job on #{0} asked the service to stop the instance, but it is not seen stopped after {1} minutes, so it may still bill its full rate. Check it in the Instances view and stop it yourself if it runs.',
        instanceId,
        STOP_SEEN_MS / 60_000,
      ),
    });
  }, STOP_SEEN_MS);
  // The wrapper waits STOP_GRACE_SECONDS before it asks: poll just after.
  const poll = w.timers.setTimeout(() => void w.poller.refresh(), (STOP_GRACE_SECONDS + 1) * 1000);
  return done;
}
