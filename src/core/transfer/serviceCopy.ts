/**
 * What a copy between instances (copy.ts) and a cloud sync (cloudSync.ts) share once the service
 * has been asked to start one: the paths they accept, the destination's status before, the start
 * whose answer was lost ("unknown", never "nothing happened"), following the destination's status
 * message to the end, and Cancel, which cancels the transfer itself.
 */
import type { CopyApi } from '../api/copy';
import { isApiError } from '../api/errors';
import type { Instance, InstancesApi } from '../api/instances';
import { followTransfer, type TransferEnd } from '../instances/copyProgress';
import { instanceName } from '../instances/names';
import type { InstancePoller } from '../instances/poller';
import { l10n } from '../l10n';
import type { Logger } from '../log';
import type { Progress } from '../progress';
import type { Ask } from '../prompts';
import { errorText, type TransferNotice } from './notices';

/** How a copy or sync ended: what the service's status message said, or why it is not known. */
export type ServiceCopyOutcome = TransferEnd['outcome'] | 'unknown' | 'noConnection';

/** What the flow hands the UI: how it ended (for automation), and what to show, Show Instance Logs opening `instanceId`'s log. */
export interface ServiceCopyResult {
  readonly outcome: ServiceCopyOutcome;
  readonly notice: TransferNotice<'showLogs' | 'openConsole'>;
  readonly instanceId: number;
  /** The console page Open Console opens (no connection yet). */
  readonly consoleUrl?: string;
}

/** What copies and syncs ask through and run with. */
export interface ServiceCopyDeps {
  readonly ask: Ask;
  readonly logger: Logger;
  readonly copy: Pick<CopyApi, 'copyBetweenInstances' | 'cancelCopy' | 'cloudConnections' | 'cloudSync' | 'cancelCloudSync'>;
  readonly instances: Pick<InstancesApi, 'show'>;
  readonly poller: Pick<InstancePoller, 'snapshot' | 'refresh' | 'onDidUpdate' | 'setInterest'>;
  /** The follow's progress, whose Cancel cancels the transfer itself (UI: a notification). */
  readonly progress: Progress;
  /** The remote folder setting: what the path boxes start with (or /workspace/). */
  readonly remoteFolder: string;
  /** The service's base URL, for the console's address. */
  readonly baseUrl: string | undefined;
  /** core/instances/copyProgress.ts's followTransfer; a test hands a fake. */
  readonly follow?: typeof followTransfer;
}

/** A path on an instance: absolute, one line. It travels to the service, which runs the copy there. */
export function instancePathProblem(value: string): string | undefined {
  const v = value.trim();
  if (!v.startsWith('/')) return l10n.t('Enter an absolute path on the instance, such as /workspace/data/.');
  if (/[\0\r\n]/.test(v)) return l10n.t('A path is one line.');
  return undefined;
}

/** A path in a cloud connection's storage: not empty, one line. */
export function bucketPathProblem(value: string): string | undefined {
  const v = value.trim();
  if (v === '') return l10n.t('Enter a path in the cloud storage, such as datasets/run1/.');
  if (/[\0\r\n]/.test(v)) return l10n.t('A path is one line.');
  return undefined;
}

/** Asks for a path on an instance; undefined when dismissed. */
export async function askInstancePath(d: ServiceCopyDeps, title: string, prompt: string): Promise<string | undefined> {
  const value = await d.ask.input({ title, prompt, value: d.remoteFolder || '/workspace/', validate: instancePathProblem });
  return value === undefined || instancePathProblem(value) ? undefined : value.trim();
}

/** The destination's status message now, to tell this transfer's news from an older one's. */
export async function statusBefore(d: ServiceCopyDeps, instance: Instance): Promise<string | null | undefined> {
  const fresh = await d.instances.show(instance.id).catch(() => instance);
  return fresh.status_msg;
}

/** What a started transfer is, for the messages and the cancel. */
export interface Started {
  /** The progress's title (the UI puts the extension's name in front). */
  readonly title: string;
  /** "the copy of … from … to … on …", inside the messages. */
  readonly what: string;
  /** The instance whose status message tells the news. */
  readonly dst: Instance;
  readonly before: string | null | undefined;
  readonly start: () => Promise<unknown>;
  readonly cancel: () => Promise<void>;
}

/**
 * Starts the transfer and follows it to its end. A start whose answer was lost is "unknown": it
 * may be running, so it is said so and never started again here.
 */
export async function startAndFollow(d: ServiceCopyDeps, s: Started): Promise<ServiceCopyResult> {
  try {
    await s.start();
  } catch (error) {
    if (isApiError(error) && error.outcomeUnknown) return unknownStart(d, s, error);
    throw error;
  }
  d.logger.info(`Started ${s.what}.`);
  const end = await d.progress(s.title, (task) => {
    let shown = 0;
    task.report({ message: l10n.t('started; the service reports progress with some delay') });
    return (d.follow ?? followTransfer)(d.poller, s.dst.id, {
      before: s.before,
      signal: task.signal,
      onProgress: (r) => {
        const percent = r.kind === 'progress' ? r.percent : undefined;
        const increment = percent !== undefined && percent > shown ? percent - shown : undefined;
        if (percent !== undefined && increment !== undefined) shown = percent;
        task.report({ message: r.message, ...(increment !== undefined ? { increment } : {}) });
      },
    });
  });
  if (end.outcome === 'cancelled') return { outcome: 'cancelled', notice: await cancelled(d, s), instanceId: s.dst.id };
  return { outcome: end.outcome, notice: ended(d, s, end), instanceId: s.dst.id };
}

function unknownStart(d: ServiceCopyDeps, s: Started, error: Error): ServiceCopyResult {
  d.logger.warn(`${s.what}: the answer to the start was not seen (${error.message})`);
  const message = l10n.t(
    "GPU Rental: {0} may have started: the service's answer was lost. Check {1}'s status and logs before starting it again.",
    s.what,
    instanceName(s.dst),
  );
  return { outcome: 'unknown', notice: { severity: 'warning', text: message, actions: ['showLogs'] }, instanceId: s.dst.id };
}

/** What the end of the wait says (all but a cancel). */
function ended(d: ServiceCopyDeps, s: Started, end: Exclude<TransferEnd, { outcome: 'cancelled' }>): TransferNotice<'showLogs'> {
  const name = instanceName(s.dst);
  switch (end.outcome) {
    case 'done':
      d.logger.info(`${s.what}: ${end.message}`);
      return { severity: 'info', text: l10n.t('GPU Rental: {0} finished ({1}).', s.what, end.message), actions: [] };
    case 'failed':
      d.logger.warn(`${s.what}: ${end.message}`);
      return {
        severity: 'error',
        text: l10n.t("GPU Rental: {0} failed: {1}. Check the paths and {2}'s logs, then try again.", s.what, end.message, name),
        actions: ['showLogs'],
      };
    case 'interrupted':
      return {
        severity: 'warning',
        text: l10n.t(
          'GPU Rental: {0} is {1} and {2} did not say it finished. Check the files once {3} runs again.',
          name,
          end.phase,
          s.what,
          name,
        ),
        actions: ['showLogs'],
      };
    case 'quiet':
      return {
        severity: 'warning',
        text: end.lastMessage
          ? l10n.t(
              "GPU Rental: no news of {0} for 10 minutes (last: {1}); whether it finished is not known. Check {2}'s status and logs.",
              s.what,
              end.lastMessage,
              name,
            )
          : l10n.t(
              "GPU Rental: no news of {0} for 10 minutes; whether it finished is not known. Check {1}'s status and logs.",
              s.what,
              name,
            ),
        actions: ['showLogs'],
      };
  }
}

/** The user cancelled the wait: the transfer itself is cancelled, and a cancel without an answer is said to be unknown. */
async function cancelled(d: ServiceCopyDeps, s: Started): Promise<TransferNotice<never>> {
  const name = instanceName(s.dst);
  try {
    await s.cancel();
    d.logger.info(`Cancelled ${s.what}.`);
    return {
      severity: 'info',
      text: l10n.t('GPU Rental: cancelled {0}. What was copied so far stays on {1}; check it before using it.', s.what, name),
      actions: [],
    };
  } catch (error) {
    d.logger.warn(`Cancelling ${s.what}: ${errorText(error)}`);
    const message =
      isApiError(error) && error.outcomeUnknown
        ? l10n.t(
            "GPU Rental: the cancel of {0} got no answer; it may still be running. Check {1}'s status, and cancel again if it is.",
            s.what,
            name,
          )
        : l10n.t("GPU Rental: could not cancel {0}: {1}. It may still be running; check {2}'s status.", s.what, errorText(error), name);
    return { severity: 'warning', text: message, actions: [] };
  }
}
