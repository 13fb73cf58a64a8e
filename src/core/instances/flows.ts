import type { GpuRentalClient } from '../api/client';
import type { Instance } from '../api/instances';
import { formatBytes, formatDollars } from '../format';
import { l10n, sentences } from '../l10n';
import type { Logger } from '../log';
import type { Notice } from '../notice';
import type { Ask } from '../prompts';
import { destroyInstance, stopInstance, type ActionResult } from './actions';
import { instanceLabel, instanceName } from './names';
import { instancePhase } from './phase';
import { currentRate, startAddsPerHour } from './rates';
import { UnusableSshAddress, sshCommand, sshEndpoint } from './ssh';

/**
 * The actions on one instance (stop, start, reboot, destroy, label, copy its SSH command) as flows:
 * what is asked, what is refused and what the user is told is decided here; `src/ui` registers the
 * commands and shows the notice a flow returns.
 */

/** A button of an instance notice; `instanceActionLabel` says its label. */
export type InstanceAction = 'refresh';

export function instanceActionLabel(action: InstanceAction): string {
  switch (action) {
    case 'refresh':
      return l10n.t('Refresh');
  }
}

/** What the user is told after an action: a notification of `severity` with its buttons. */
export interface InstanceNotice extends Notice<InstanceAction> {
  readonly actions: readonly InstanceAction[];
}

/** Whether `addPerHour` more $/h fits under the spend cap; when not, it has said so itself. */
export type SpendCheck = (addPerHour: number, what: string) => Promise<boolean>;

/** What a change does to the instance list afterwards: followed while it boots, watched, forgotten, listed again. */
export interface AfterChange {
  track(id: number): void;
  watch(id: number): void;
  refresh(): Promise<void>;
  /** What this machine keeps for an instance (SSH entry, forwards) goes with it. */
  forget(id: number): Promise<void>;
}

/**
 * Destroy never loses work silently: how much the instance's folder holds, asked with a short
 * timeout, and a download of it offered first.
 */
export interface BeforeDestroy {
  /** The folder and its bytes (undefined when missing); undefined when the instance did not answer in time. */
  measure(instance: Instance): Promise<{ folder: string; bytes: number | undefined } | undefined>;
  /** Downloads the folder; true when it arrived completely. */
  download(instance: Instance, folder: string): Promise<boolean>;
}

export interface InstanceFlowDeps {
  readonly ask: Ask;
  readonly instances: Pick<GpuRentalClient['instances'], 'stop' | 'start' | 'destroy' | 'show' | 'reboot' | 'setLabel'>;
  readonly spend: SpendCheck;
  readonly after: AfterChange;
  readonly logger: Logger;
  readonly beforeDestroy?: BeforeDestroy;
  /** The instance this window is connected to through Remote-SSH, if any. */
  readonly windowInstance?: () => number | undefined;
}

/** Says what a stop or destroy did; an outcome that is not known is a warning that says to check. */
export function resultNotice(result: ActionResult, logger: Logger): InstanceNotice {
  const text = l10n.t('GPU Rental: {0}', result.message);
  if (result.kind === 'done') return { severity: 'info', text, actions: [] };
  logger.warn(text);
  return { severity: 'warning', text, actions: ['refresh'] };
}

export async function stopFlow(s: InstanceFlowDeps, i: Instance): Promise<InstanceNotice> {
  const result = await stopInstance(s.instances, i, instanceName(i));
  s.after.watch(i.id);
  await s.after.refresh();
  return resultNotice(result, s.logger);
}

/** Starting resumes GPU billing, so it only ever happens here, on the user's explicit command. Undefined: the cap refused. */
export async function startFlow(s: InstanceFlowDeps, i: Instance): Promise<InstanceNotice | undefined> {
  // The disk already bills; starting adds the rest of the instance's rate.
  const adds = startAddsPerHour(i);
  if (!(await s.spend(adds, l10n.t('started: {0} adds {1}/h', instanceName(i), formatDollars(adds))))) return undefined;
  await s.instances.start(i.id);
  s.after.track(i.id);
  await s.after.refresh();
  return {
    severity: 'info',
    text: i.dph_total
      ? l10n.t('GPU Rental: starting {0}. It bills {1}/h once running.', instanceName(i), formatDollars(i.dph_total))
      : l10n.t('GPU Rental: starting {0}.', instanceName(i)),
    actions: [],
  };
}

/** Reboots after the user confirms; true when it was asked of the service. */
export async function rebootFlow(s: InstanceFlowDeps, i: Instance): Promise<boolean> {
  const ok = await s.ask.confirm(
    l10n.t('Reboot {0}?', instanceName(i)),
    l10n.t('Every process on it is stopped and the container restarts. Files on its disk are kept.'),
    l10n.t('Reboot'),
  );
  if (!ok) return false;
  await s.instances.reboot(i.id);
  s.after.track(i.id);
  await s.after.refresh();
  return true;
}

/** What a destroy ended with: declined (nothing happened), or the result and what to tell the user. */
export type DestroyEnd = { kind: 'declined' } | { kind: 'acted'; destroyed: boolean; notice: InstanceNotice };

/**
 * Destroy after one confirmation that says what goes (the folder's size when the instance answers)
 * and, when the folder holds files, offers Download First; after a download, whatever it did, the
 * user is asked again: a failed download must not lead to a destroy.
 */
export async function destroyFlow(s: InstanceFlowDeps, i: Instance): Promise<DestroyEnd> {
  const rate = currentRate(i);
  const billing = rate ? l10n.t('Billing ({0}/h now) stops.', formatDollars(rate)) : l10n.t('Billing stops.');
  const title = l10n.t('Destroy {0}?', instanceName(i));
  for (;;) {
    const data = await whatGoes(s.beforeDestroy, i);
    // Destroying the machine this window runs on ends the window's connection too: said before it happens.
    const here = s.windowInstance?.() === i.id && l10n.t('This window is connected to it and loses its connection.');
    const detail = sentences(
      data.text,
      l10n.t('Its disk and every file on it are deleted for good.'),
      billing,
      here,
      l10n.t('This cannot be undone.'),
    );
    const destroy = l10n.t('Destroy');
    if (!data.folder || !s.beforeDestroy) {
      if (!(await s.ask.confirm(title, detail, destroy))) return { kind: 'declined' };
      break;
    }
    const downloadFirst = l10n.t('Download First');
    const choice = await s.ask.choose(title, detail, [downloadFirst, destroy]);
    if (choice === destroy) break;
    if (choice !== downloadFirst) return { kind: 'declined' };
    await s.beforeDestroy.download(i, data.folder);
  }
  const result = await destroyInstance(s.instances, i, instanceName(i));
  if (result.kind === 'done') await s.after.forget(i.id);
  await s.after.refresh();
  return { kind: 'acted', destroyed: result.kind === 'done', notice: resultNotice(result, s.logger) };
}

/**
 * What the confirmation says about the files that go with the instance: the size of its folder
 * when a running instance answers within seconds, else why it could not be checked.
 */
async function whatGoes(before: BeforeDestroy | undefined, i: Instance): Promise<{ text: string; folder?: string }> {
  if (!before) return { text: '' };
  const phase = instancePhase(i);
  if (phase !== 'running') {
    return { text: l10n.t('Its files could not be checked: the instance is {0}, so it has no address to ask.', phase) };
  }
  const measured = await before.measure(i);
  if (!measured)
    return { text: l10n.t('Its files could not be checked over SSH (no answer within 5 seconds, or no SSH key on this machine).') };
  if (measured.bytes === undefined) return { text: l10n.t('{0} does not exist on it.', measured.folder) };
  return {
    text: l10n.t('{0} holds {1} that goes with the instance.', measured.folder, formatBytes(measured.bytes)),
    folder: measured.folder,
  };
}

/** Sets the label: `given` when a string (automation), else asked with the current one filled in. True when set. */
export async function labelFlow(s: InstanceFlowDeps, i: Instance, given: unknown): Promise<boolean> {
  const value =
    typeof given === 'string'
      ? given
      : await s.ask.input({
          title: l10n.t('GPU Rental: Label {0}', instanceLabel(i)),
          value: i.label ?? '',
          prompt: l10n.t('A name to recognise the instance by. Leave empty to clear it.'),
          validate: (v) => (v.length > 1024 ? l10n.t('At most 1024 characters.') : undefined),
        });
  if (value === undefined) return false;
  await s.instances.setLabel(i.id, value.trim());
  await s.after.refresh();
  return true;
}

/**
 * The SSH command to copy, or why none is: the address comes from the service, so it is checked
 * and quoted before it reaches the clipboard (and from there a shell); a bad one is named instead.
 */
export function sshCommandToCopy(
  i: Instance,
): { command: string; notice: InstanceNotice } | { command: undefined; notice: InstanceNotice } {
  let command: string | undefined;
  try {
    const endpoint = sshEndpoint(i);
    command = endpoint && sshCommand(endpoint);
  } catch (error) {
    if (!(error instanceof UnusableSshAddress)) throw error;
    const text = l10n.t('GPU Rental: nothing was copied for {0}. {1}', instanceName(i), error.message);
    return { command: undefined, notice: { severity: 'error', text, actions: [] } };
  }
  if (command === undefined) {
    const text = l10n.t('GPU Rental: {0} has no SSH address yet. Wait until it is running.', instanceName(i));
    return { command: undefined, notice: { severity: 'warning', text, actions: [] } };
  }
  return { command, notice: { severity: 'info', text: l10n.t('GPU Rental: copied "{0}".', command), actions: [] } };
}
