import { formatDollars } from '../format';
import { l10n } from '../l10n';
import type { ClusterGroup } from './cluster';
import { instanceName } from './names';
import { instancePhase, isBooting, isTransient, type InstancePhase } from './phase';
import { phaseText, spokenRate, type InstanceIcon } from './present';
import { currentRate } from './rates';

/** A cluster's row in the Instances view; its nodes are today's instance rows under it. */
export interface ClusterPresentation {
  label: string;
  /** "$1.60/h · 3 of 4 running". */
  description: string;
  /** Markdown: each node's phase and $/h, the missing ones, the network. */
  tooltip: string;
  icon: InstanceIcon;
  /**
   * `cluster` plus `clusterStop` (a node runs or boots), `clusterStart` (a node is stopped) and
   * `clusterDestroy` (always: a cluster without nodes still has its overlay network to delete).
   * Its own tags, so no menu of an instance row shows on it.
   */
  contextValue: string;
  accessibilityLabel: string;
}

/** "3 of 4 running": whole-sentence, for the row and the screen reader. */
export function runningText(c: Pick<ClusterGroup, 'running' | 'size'>): string {
  return l10n.t('{0} of {1} running', c.running, c.size);
}

function missingText(n: number): string {
  return n === 1 ? l10n.t('1 node missing') : l10n.t('{0} nodes missing', n);
}

function totalText(c: ClusterGroup): string {
  return c.priceUnknown ? l10n.t('at least {0}/h', formatDollars(c.perHour)) : `${formatDollars(c.perHour)}/h`;
}

export function presentCluster(c: ClusterGroup): ClusterPresentation {
  const phases = c.nodes.map(instancePhase);
  const parts = c.size === 0 ? [l10n.t('no nodes')] : [totalText(c), runningText(c)];
  if (c.missing.length) parts.push(missingText(c.missing.length));

  const tags = ['cluster'];
  if (phases.some((p) => p === 'running' || isBooting(p))) tags.push('clusterStop');
  if (phases.some((p) => p === 'stopped')) tags.push('clusterStart');
  tags.push('clusterDestroy');

  const spoken =
    c.size === 0
      ? l10n.t('cluster {0}, no nodes', c.label)
      : l10n.t('cluster {0}, {1} of {2} nodes running, {3}', c.label, c.running, c.size, spokenRate(c.perHour));
  return {
    label: c.label,
    description: parts.join(' · '),
    tooltip: clusterTooltip(c),
    icon: clusterIcon(c, phases),
    contextValue: tags.join('+'),
    accessibilityLabel: c.missing.length ? `${spoken}, ${missingText(c.missing.length)}` : spoken,
  };
}

function clusterIcon(c: ClusterGroup, phases: readonly InstancePhase[]): InstanceIcon {
  if (c.missing.length || phases.includes('failed') || phases.includes('unreadable'))
    return { id: 'warning', color: 'list.warningForeground' };
  if (phases.some(isTransient)) return { id: 'loading~spin', color: undefined };
  if (c.size > 0 && c.running === c.size) return { id: 'server-environment', color: 'charts.green' };
  if (c.running === 0) return { id: 'server-environment', color: 'disabledForeground' };
  return { id: 'server-environment', color: 'charts.yellow' };
}

/** Markdown text the service sent (labels, names) shows as text, never as a link, a table cell's end or emphasis. */
function md(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+!|<>]/g, (ch) => `\\${ch}`);
}

function nodeState(i: ClusterGroup['nodes'][number]): string {
  const phase = instancePhase(i);
  const rate = currentRate(i, phase);
  if (rate === undefined) return l10n.t('{0}, price unknown', phaseText(phase));
  return phase === 'stopped' || phase === 'failed'
    ? l10n.t('{0}, {1}/h for its disk', phaseText(phase), formatDollars(rate))
    : l10n.t('{0}, {1}/h', phaseText(phase), formatDollars(rate));
}

function clusterTooltip(c: ClusterGroup): string {
  const rows: Array<[string, string]> = [];
  if (c.size > 0) rows.push([l10n.t('Nodes'), runningText(c)], [l10n.t('Price now'), totalText(c)]);
  c.nodes.forEach((i, rank) => rows.push([l10n.t('Node {0}', rank), l10n.t('{0}: {1}', instanceName(i), nodeState(i))]));
  for (const id of c.missing)
    rows.push([l10n.t('Missing'), l10n.t("#{0}: listed in the overlay network, but not among your account's instances", id)]);
  rows.push([l10n.t('Network'), c.subnet ? l10n.t('overlay network {0}, {1}', c.label, c.subnet) : l10n.t('overlay network {0}', c.label)]);
  if (c.clusterId !== undefined) rows.push([l10n.t('Cluster'), l10n.t('cluster {0} of the marketplace', c.clusterId)]);
  if (c.size === 0) rows.push([l10n.t('Note'), l10n.t('no instance is in this network any more: Destroy deletes the network')]);
  return [`**${md(l10n.t('Cluster {0}', c.label))}**`, '', '| | |', '|---|---|', ...rows.map(([k, v]) => `| ${md(k)} | ${md(v)} |`)].join(
    '\n',
  );
}
