import type { Instance } from '../api/instances';
import { formatDollars } from '../offers/present';
import { instancePhase, isBooting, type InstancePhase } from './phase';
import { isSshHost, proxySshPort } from './ssh';

export interface InstanceIcon {
  /** A codicon id, `~spin` included where it spins. */
  id: string;
  /** A theme colour id, or undefined for the default. */
  color: string | undefined;
}

export interface InstancePresentation {
  label: string;
  description: string;
  /** Markdown. */
  tooltip: string;
  icon: InstanceIcon;
  /** `instance+<phase>` plus capability tags, read by the menus' `when` clauses. */
  contextValue: string;
  phase: InstancePhase;
}

const PHASE_TEXT: Record<InstancePhase, string> = {
  provisioning: 'provisioning',
  loading: 'loading',
  running: 'running',
  stopping: 'stopping',
  starting: 'starting',
  rebooting: 'rebooting',
  stopped: 'stopped',
  failed: 'failed',
  gone: 'destroyed',
  unreadable: 'details unreadable',
};

const ICONS: Record<InstancePhase, InstanceIcon> = {
  provisioning: { id: 'loading~spin', color: undefined },
  loading: { id: 'loading~spin', color: undefined },
  starting: { id: 'loading~spin', color: undefined },
  rebooting: { id: 'loading~spin', color: undefined },
  stopping: { id: 'loading~spin', color: 'charts.yellow' },
  running: { id: 'vm-running', color: 'charts.green' },
  stopped: { id: 'vm-outline', color: 'disabledForeground' },
  failed: { id: 'error', color: 'errorForeground' },
  gone: { id: 'trash', color: 'disabledForeground' },
  unreadable: { id: 'warning', color: 'problemsWarningIcon.foreground' },
};

export function gpuSummary(instance: Pick<Instance, 'gpu_name' | 'num_gpus'>): string {
  const name = instance.gpu_name ?? 'GPU';
  const count = instance.num_gpus ?? 1;
  return count > 1 ? `${name} ×${count}` : name;
}

/** What the instance costs per hour in its current phase: everything while it runs, storage while it does not. */
export function currentRate(instance: Instance, phase = instancePhase(instance)): number | undefined {
  if (phase === 'gone') return 0;
  if (phase === 'stopped' || phase === 'failed') return instance.storage_total_cost ?? undefined;
  return instance.dph_total ?? undefined;
}

/** Seconds since the instance was created, from the service's own clock fields. */
export function uptimeSeconds(instance: Instance, nowMs: number): number | undefined {
  if (instance.start_date) return Math.max(0, nowMs / 1000 - instance.start_date);
  if (instance.duration !== null && instance.duration !== undefined) return instance.duration;
  return undefined;
}

export interface PresentOptions {
  nowMs: number;
  /** Dollars billed so far, when known (from the billing endpoint). */
  costSoFar?: number;
  /** The SSH port answers (set by the readiness probe). */
  sshReady?: boolean;
}

export function presentInstance(instance: Instance, options: PresentOptions): InstancePresentation {
  if (instance.unreadable) return presentUnreadable(instance);
  const phase = instancePhase(instance);
  const gpus = gpuSummary(instance);
  const rate = currentRate(instance, phase);
  const uptime = uptimeSeconds(instance, options.nowMs);
  const parts = [PHASE_TEXT[phase]];
  if (rate !== undefined) parts.push(`${formatDollars(rate)}/h${phase === 'stopped' || phase === 'failed' ? ' disk' : ''}`);
  if (uptime !== undefined && phase !== 'gone') parts.push(`up ${formatDuration(uptime)}`);
  if (options.costSoFar !== undefined) parts.push(`${formatDollars(options.costSoFar)} so far`);
  if (phase === 'running' && instance.gpu_util !== null && instance.gpu_util !== undefined)
    parts.push(`GPU ${Math.round(instance.gpu_util)}%`);

  const tags = ['instance', phase];
  if (phase === 'running') tags.push('canStop', 'canReboot');
  if (phase === 'stopped') tags.push('canStart');
  if (phase !== 'gone') tags.push('canDestroy', 'canLabel', 'hasLogs');
  if (instance.ssh_host && instance.ssh_port && phase === 'running') tags.push('hasSsh');
  // Connect also starts a stopped instance (after asking) and waits for a booting one.
  if (phase === 'running' || phase === 'stopped' || isBooting(phase)) tags.push('canConnect');
  if (options.sshReady) tags.push('sshReady');

  return {
    label: instance.label ? instance.label : `${gpus} #${instance.id}`,
    description: parts.join(' · '),
    tooltip: instanceTooltip(instance, phase, rate),
    icon: ICONS[phase],
    contextValue: tags.join('+'),
    phase,
  };
}

/**
 * An instance the list could read only the id of: nothing about it is claimed, and Destroy (by id)
 * is the one action offered, since it may still bill.
 */
function presentUnreadable(instance: Instance): InstancePresentation {
  return {
    label: `#${instance.id} (details unreadable)`,
    description: 'status unknown',
    tooltip: `**Instance #${instance.id}**\n\nThe service's record for this instance could not be read (Show Logs says which field). It may still be running and billing; Destroy works by its id.`,
    icon: { id: 'warning', color: 'list.warningForeground' },
    contextValue: 'instance+unreadable+canDestroy',
    phase: instancePhase(instance),
  };
}

function instanceTooltip(instance: Instance, phase: InstancePhase, rate: number | undefined): string {
  const disk = instance.disk_space === null || instance.disk_space === undefined ? undefined : `${Math.round(instance.disk_space)} GB`;
  const rows: Array<[string, string | undefined]> = [
    ['Status', `${PHASE_TEXT[phase]}${instance.actual_status ? ` (${instance.actual_status})` : ''}`],
    ['Message', instance.status_msg ?? undefined],
    ['Price now', rate === undefined ? undefined : `${formatDollars(rate)}/h`],
    ['GPU', `${gpuSummary(instance)}${instance.gpu_ram ? `, ${Math.round(instance.gpu_ram / 1024)} GB each` : ''}`],
    ['Image', instance.image_uuid ?? instance.template_name ?? undefined],
    ['Disk', disk],
    ['SSH', sshRow(instance)],
    ['Location', instance.geolocation ?? undefined],
    ['Instance', `#${instance.id} on machine ${instance.machine_id ?? '?'}`],
  ];
  if (phase === 'failed') rows.push(['Note', 'a failed instance never recovers and its disk is still billed: destroy it']);
  const lines = rows.filter((r): r is [string, string] => r[1] !== undefined).map(([k, v]) => `| ${k} | ${v.replace(/\|/g, '\\|')} |`);
  return [
    `**${instance.label ? `${instance.label} (${gpuSummary(instance)})` : gpuSummary(instance)}**`,
    '',
    '| | |',
    '|---|---|',
    ...lines,
  ].join('\n');
}

/** The proxy address as the service sent it, when it is one: nothing else of it reaches the tooltip's Markdown. */
function sshRow(instance: Instance): string | undefined {
  if (!instance.ssh_host || !instance.ssh_port) return undefined;
  return isSshHost(instance.ssh_host) && Number.isInteger(instance.ssh_port)
    ? `${instance.ssh_host}:${proxySshPort(instance) ?? instance.ssh_port}`
    : '(the service sent an unusable address)';
}

/** 75 → "1m 15s", 4000 → "1h 06m", 90000 → "1d 01h". */
export function formatDuration(seconds: number): string {
  const s = Math.floor(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  return `${Math.floor(s / 86_400)}d ${String(Math.floor((s % 86_400) / 3600)).padStart(2, '0')}h`;
}

/** 80 → "1:20", 3725 → "1:02:05": the status bar's boot clock. */
export function formatClock(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}
