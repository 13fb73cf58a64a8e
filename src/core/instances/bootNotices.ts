import type { Instance } from '../api/instances';
import { l10n } from '../l10n';
import type { Notice } from '../notice';
import type { Booting } from './boot';
import { gpuSummary, instanceLabel } from './names';
import { spokenDuration } from './present';

/*
 * What the boot watcher says: the status item read aloud, and the notices when an instance runs
 * or fails, with their buttons as ids. The ui (src/ui/status/bootStatus.ts) shows them and runs the
 * command each button names.
 */

/** A button of a boot notice; each is the command of the same name on the instance. */
export type BootButton = 'connect' | 'openSshTerminal' | 'copySshCommand' | 'destroyInstance' | 'showInstanceLogs';

/** A notice: its severity, text and buttons. */
export interface BootNotice extends Notice<BootButton> {
  readonly severity: 'info' | 'error';
  readonly actions: readonly BootButton[];
}

/** What a button says, in the display language. */
export function bootButtonLabel(button: BootButton): string {
  switch (button) {
    case 'connect':
      return l10n.t('Connect');
    case 'openSshTerminal':
      return l10n.t('Open SSH Terminal');
    case 'copySshCommand':
      return l10n.t('Copy SSH Command');
    case 'destroyInstance':
      return l10n.t('Destroy');
    case 'showInstanceLogs':
      return l10n.t('Show Instance Logs');
  }
}

/** The item as a sentence (its spinner and "1:20" clock read badly aloud): "booting: RTX 4090 loading for 1 minute 20 seconds". */
export function bootSpoken(booting: readonly Booting[], nowMs: number): string {
  const spoken = booting
    .map((b) => l10n.t('{0} {1} for {2}', b.instance.label || gpuSummary(b.instance), b.phase, spokenDuration((nowMs - b.since) / 1000)))
    .join('; ');
  return booting.length === 1
    ? l10n.t('GPU Rental: booting: {0}. Opens the Instances view.', spoken)
    : l10n.t('GPU Rental: {0} instances booting: {1}. Opens the Instances view.', booting.length, spoken);
}

/** The notice when an instance booted: it runs, with the ways in. */
export function runningNotice(instance: Instance): BootNotice {
  return {
    severity: 'info',
    text: l10n.t('GPU Rental: {0} is running.', instanceLabel(instance)),
    actions: ['connect', 'openSshTerminal', 'copySshCommand'],
  };
}

/** The notice when an instance failed: it never recovers and bills for its disk, so Destroy is offered. */
export function failedNotice(instance: Instance): BootNotice {
  return {
    severity: 'error',
    text: l10n.t(
      'GPU Rental: {0} failed ({1}). It will not recover, and its disk is billed until it is destroyed.',
      instanceLabel(instance),
      instance.actual_status ?? l10n.t('unknown'),
    ),
    actions: ['destroyInstance', 'showInstanceLogs'],
  };
}
