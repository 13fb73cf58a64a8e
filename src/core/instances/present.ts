import { formatDuration } from '../format';
import type { Instance } from '../api/instances';
import { gpuSummary, instanceLabel } from './names';
import { instancePhase, isBooting, type InstancePhase } from './phase';
import { currentRate } from './rates';
import { isSshHost, launchedWithJupyter, proxySshPort } from './ssh';
import { bidOf, isInterruptible, isOutbid, minBidNow, outbidNote } from './outbid';
import { formatDollars } from '../format';
import { healthDescription, healthRows, healthSpoken, instanceHealth, type Health } from './health';
import { l10n } from '../l10n';

export interface InstanceIcon {
  /** A codicon id, `~spin` included where it spins. */
  id: string;
  /** A theme colour id, or undefined for the default. */
  color: string | undefined;
}

export interface InstancePresentation {
  label: string;
  description: string;
  /** Markdown, built when first read. */
  readonly tooltip: string;
  icon: InstanceIcon;
  /** `instance+<phase>` plus capability tags, read by the menus' `when` clauses. */
  contextValue: string;
  phase: InstancePhase;
  /** The row as a screen reader reads it, without icons: "RTX 4090 instance train, running, 41 cents per hour". */
  accessibilityLabel: string;
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
  unreadable: l10n.t('details unreadable'),
};

/** How a row names a phase ("running", "destroyed"): the same words on a cluster row's tooltip as on the node's own row. */
export function phaseText(phase: InstancePhase): string {
  return PHASE_TEXT[phase];
}

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

/** Seconds since the instance was created, from the service's start date. */
export function uptimeSeconds(instance: Instance, nowMs: number): number | undefined {
  return instance.start_date ? Math.max(0, nowMs / 1000 - instance.start_date) : undefined;
}

export interface PresentOptions {
  nowMs: number;
  /** Dollars billed so far, when known (from the billing endpoint). */
  costSoFar?: number;
  /** The SSH port answers (set by the readiness probe). */
  sshReady?: boolean;
  /** What the row shows beside its record, from elsewhere (a contract's price increase or end: core/contracts). */
  extra?: RowExtra;
}

/**
 * Text a row shows that its record does not hold: parts of the description, rows of the tooltip
 * and context tags. `key` changes whenever any of them does (the presentation cache compares it).
 */
export interface RowExtra {
  readonly key: string;
  readonly description: readonly string[];
  readonly tooltipRows: ReadonlyArray<readonly [string, string]>;
  readonly tags: readonly string[];
}

export function presentInstance(instance: Instance, options: PresentOptions): InstancePresentation {
  return presentWithParts(instance, options).p;
}

/**
 * What a row's description says from the record alone: the phase (or outbid) and the rate,
 * whether the uptime is shown, and the health. `describe` puts the uptime and the cost so far in:
 * the Instances view's rows (presentCache.ts) do that again as they move, the record unchanged.
 */
export interface DescriptionParts {
  /** The phase (or outbid) and the rate, joined. */
  lead: string;
  showsUptime: boolean;
  health: string | undefined;
}

/** A row's description: its parts from the record, the uptime now and the cost so far. */
export function describe(parts: DescriptionParts, instance: Instance, options: PresentOptions): string {
  const out = [parts.lead];
  const uptime = parts.showsUptime ? uptimeSeconds(instance, options.nowMs) : undefined;
  if (uptime !== undefined) out.push(`up ${formatDuration(uptime)}`);
  if (options.costSoFar !== undefined) out.push(l10n.t('{0} so far', formatDollars(options.costSoFar)));
  if (parts.health) out.push(parts.health);
  if (options.extra) out.push(...options.extra.description);
  return out.join(' · ');
}

/** presentInstance, with its description's parts (none for an unreadable record). */
export function presentWithParts(instance: Instance, options: PresentOptions): { p: InstancePresentation; parts?: DescriptionParts } {
  if (instance.unreadable) return { p: presentUnreadable(instance) };
  const phase = instancePhase(instance);
  const rate = currentRate(instance, phase);
  const outbid = isOutbid(instance);
  const lead = [outbid ? 'outbid' : PHASE_TEXT[phase]];
  if (rate !== undefined) lead.push(`${formatDollars(rate)}/h${phase === 'stopped' || phase === 'failed' ? ' disk' : ''}`);
  // Health only while it runs: a stopped instance's last readings would mislead.
  const health = phase === 'running' ? instanceHealth(instance) : undefined;
  const parts: DescriptionParts = {
    lead: lead.join(' · '),
    showsUptime: phase !== 'gone',
    health: (health && healthDescription(health)) || undefined,
  };

  const tags = ['instance', phase];
  if (phase === 'running') tags.push('canStop', 'canReboot');
  // An outbid instance does not start until its bid wins: Change Bid is its way back.
  if (phase === 'stopped' && !outbid) tags.push('canStart');
  if (phase !== 'gone') tags.push('canDestroy', 'canLabel', 'hasLogs');
  if (instance.ssh_host && instance.ssh_port && phase === 'running') tags.push('hasSsh');
  // Open Jupyter: a Jupyter launch runs a server once the instance runs.
  if (phase === 'running' && launchedWithJupyter(instance)) tags.push('jupyter');
  // Connect also starts a stopped instance (after asking) and waits for a booting one.
  if (phase === 'running' || phase === 'stopped' || isBooting(phase)) tags.push('canConnect');
  if (options.sshReady) tags.push('sshReady');
  // Change Bid: on every interruptible instance still there; `outbid` for the menus that offer the way out.
  if (isInterruptible(instance) && phase !== 'gone') tags.push('interruptible');
  if (outbid) tags.push('outbid');
  // Reserve (prepay): a running on-demand instance.
  if (phase === 'running' && !isInterruptible(instance)) tags.push('canReserve');
  if (options.extra) tags.push(...options.extra.tags);

  let tooltip: string | undefined;
  const p: InstancePresentation = {
    label: instanceLabel(instance),
    description: describe(parts, instance, options),
    // Built when first read (a hover), not for every row on every poll: most rows are never hovered.
    get tooltip() {
      return (tooltip ??= instanceTooltip(instance, phase, rate, health, options.extra));
    },
    icon: outbid ? { id: 'vm-outline', color: 'list.warningForeground' } : ICONS[phase],
    contextValue: tags.join('+'),
    phase,
    accessibilityLabel: spokenInstance(instance, outbid ? 'outbid' : PHASE_TEXT[phase], rate, phase, health),
  };
  return { p, parts };
}

/** The row's tooltip (Markdown) alone, as `presentInstance(...).tooltip` builds it. */
export function presentTooltip(instance: Instance, extra?: RowExtra): string {
  if (instance.unreadable) return presentUnreadable(instance).tooltip;
  const phase = instancePhase(instance);
  return instanceTooltip(instance, phase, currentRate(instance, phase), phase === 'running' ? instanceHealth(instance) : undefined, extra);
}

/** "1 minute 20 seconds", "2 hours 5 minutes": a duration as a screen reader says it (not "1:20"). */
export function spokenDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (s < 60) return unit(s, 'second');
  if (s < 3600) return s % 60 ? `${unit(Math.floor(s / 60), 'minute')} ${unit(s % 60, 'second')}` : unit(s / 60, 'minute');
  const m = Math.floor((s % 3600) / 60);
  return m ? `${unit(Math.floor(s / 3600), 'hour')} ${unit(m, 'minute')}` : unit(Math.floor(s / 3600), 'hour');
}

/** "41 cents per hour", "half a cent per hour", "$1.20 per hour": money as a screen reader says it well. */
export function spokenRate(perHour: number): string {
  const cents = perHour * 100;
  if (cents >= 100) return l10n.t('{0} per hour', formatDollars(perHour));
  if (cents >= 0.995) return Math.round(cents) === 1 ? l10n.t('1 cent per hour') : l10n.t('{0} cents per hour', Math.round(cents));
  if (cents <= 0) return l10n.t('nothing per hour');
  return l10n.t('{0} of a cent per hour', Number(cents.toFixed(1)));
}

function spokenInstance(
  instance: Instance,
  status: string,
  rate: number | undefined,
  phase: InstancePhase,
  health: Health | undefined,
): string {
  const name = instance.label
    ? `${gpuSummary(instance).replace(' ×', ' times ')} instance ${instance.label}`
    : l10n.t('{0} instance number {1}', gpuSummary(instance).replace(' ×', ' times '), instance.id);
  const parts = [name, status];
  if (rate !== undefined)
    parts.push(phase === 'stopped' || phase === 'failed' ? l10n.t('{0} for its disk', spokenRate(rate)) : spokenRate(rate));
  const spoken = health && healthSpoken(health);
  if (spoken) parts.push(spoken);
  return parts.join(', ');
}

/**
 * An instance the list could read only the id of: nothing about it is claimed, and Destroy (by id)
 * is the one action offered, since it may still bill.
 */
function presentUnreadable(instance: Instance): InstancePresentation {
  return {
    label: l10n.t('#{0} (details unreadable)', instance.id),
    accessibilityLabel: l10n.t('instance number {0}, details unreadable, status unknown, may still bill', instance.id),
    description: l10n.t('status unknown'),
    tooltip: l10n.t(
      "**Instance #{0}**\n\nThe service's record for this instance could not be read (Show Logs says which field). It may still be running and billing; Destroy works by its id.",
      instance.id,
    ),
    icon: { id: 'warning', color: 'list.warningForeground' },
    contextValue: 'instance+unreadable+canDestroy',
    phase: instancePhase(instance),
  };
}

function instanceTooltip(
  instance: Instance,
  phase: InstancePhase,
  rate: number | undefined,
  health: Health | undefined,
  extra: RowExtra | undefined,
): string {
  const disk = instance.disk_space === null || instance.disk_space === undefined ? undefined : `${Math.round(instance.disk_space)} GB`;
  const rows: Array<[string, string | undefined]> = [
    [l10n.t('Status'), `${PHASE_TEXT[phase]}${instance.actual_status ? ` (${instance.actual_status})` : ''}`],
    [l10n.t('Message'), instance.status_msg ?? undefined],
    [l10n.t('Price now'), rate === undefined ? undefined : `${formatDollars(rate)}/h`],
    ['GPU', `${gpuSummary(instance)}${instance.gpu_ram ? l10n.t(', {0} GB each', Math.round(instance.gpu_ram / 1024)) : ''}`],
    [l10n.t('Image'), instance.image_uuid ?? instance.template_name ?? undefined],
    [l10n.t('Disk'), disk],
    ...(health ? healthRows(health) : []),
    ['SSH', sshRow(instance)],
    [l10n.t('Location'), instance.geolocation ?? undefined],
    [l10n.t('Instance'), l10n.t('#{0} on machine {1}', instance.id, instance.machine_id ?? '?')],
  ];
  if (phase === 'failed') rows.push([l10n.t('Note'), l10n.t('a failed instance never recovers and its disk is still billed: destroy it')]);
  if (isOutbid(instance)) rows.push([l10n.t('Note'), outbidNote(instance)]);
  else if (isInterruptible(instance) && phase !== 'gone') rows.push([l10n.t('Bid'), bidRow(instance)]);
  if (extra) rows.push(...extra.tooltipRows.map(([k, v]): [string, string] => [k, v]));
  const lines = rows.filter((r): r is [string, string] => r[1] !== undefined).map(([k, v]) => `| ${k} | ${v.replace(/\|/g, '\\|')} |`);
  return [
    `**${instance.label ? `${instance.label} (${gpuSummary(instance)})` : gpuSummary(instance)}**`,
    '',
    '| | |',
    '|---|---|',
    ...lines,
  ].join('\n');
}

/** An interruptible instance's bid and the machine's minimum now. */
function bidRow(instance: Instance): string {
  const bid = bidOf(instance);
  const min = minBidNow(instance);
  if (bid === undefined)
    return min === undefined
      ? l10n.t('interruptible: stopped if someone bids more')
      : l10n.t('interruptible (minimum now {0}/h): stopped if someone bids more', formatDollars(min));
  return min === undefined
    ? l10n.t('{0}/h, interruptible: stopped if someone bids more', formatDollars(bid))
    : l10n.t('{0}/h, interruptible (minimum now {1}/h): stopped if someone bids more', formatDollars(bid), formatDollars(min));
}

/** The proxy address as the service sent it, when it is one: nothing else of it reaches the tooltip's Markdown. */
function sshRow(instance: Instance): string | undefined {
  if (!instance.ssh_host || !instance.ssh_port) return undefined;
  return isSshHost(instance.ssh_host) && Number.isInteger(instance.ssh_port)
    ? `${instance.ssh_host}:${proxySshPort(instance) ?? instance.ssh_port}`
    : l10n.t('(the service sent an unusable address)');
}
