import * as vscode from 'vscode';
import type { Instance } from '../../core/api/instances';
import { COMMANDS } from '../../core/ids';
import { bulkFlow } from '../../core/instances/bulk';
import { groupClusters, type ClusterGroup } from '../../core/instances/cluster';
import { clusterFlow } from '../../core/instances/clusterFlow';
import {
  destroyFlow,
  instanceActionLabel,
  labelFlow,
  rebootFlow,
  sshCommandToCopy,
  startFlow,
  stopFlow,
  type BeforeDestroy,
  type InstanceFlowDeps,
  type InstanceNotice,
} from '../../core/instances/flows';
import type { BulkAction, BulkOutcome } from '../../core/instances/many';
import type { InstancePhase } from '../../core/instances/phase';
import { instanceName } from '../../core/instances/names';
import { targetChoice } from '../../core/instances/target';
import type { InstancePoller } from '../../core/instances/poller';
import type { Logger } from '../../core/log';
import type { Session } from '../../core/session/session';
import type { InstanceCleanup } from '../../core/ssh/instanceCleanup';
import type { BootStatus } from '../status/bootStatus';
import { notify } from '../pickers/notify';
import type { InstanceLogChannels } from '../output/instanceLogs';
import { asker, type Prompts } from '../pickers/prompts';
import { showProgress } from '../pickers/progress';
import type { SpendGuard } from '../guards/spendGuard';
import { command, type CommandDefinition } from '../registry';
import { ClusterItem, InstanceItem } from '../views/instancesView';

export type { BeforeDestroy } from '../../core/instances/flows';

/** What a command was invoked with: a tree item, an instance id (automation, notifications) or nothing (palette). */
export type Target = InstanceItem | number | undefined;

/** What Stop, Start and Destroy also take: a cluster row, which acts on all its nodes. */
type LifecycleTarget = Target | ClusterItem;

/** What resolving a command's instance needs: the last list, or the service. */
export interface TargetDeps {
  readonly session: Pick<Session, 'client'>;
  readonly poller: Pick<InstancePoller, 'snapshot' | 'refresh'>;
}

/** What the instance commands use. */
export interface InstanceDeps extends TargetDeps {
  readonly poller: InstancePoller;
  readonly boots: Pick<BootStatus, 'track'>;
  readonly spend: Pick<SpendGuard, 'allows'>;
  readonly cleanup: Pick<InstanceCleanup, 'forgetInstance'>;
  /** A getter: integration tests replace the prompts at run time. */
  readonly prompts: () => Prompts;
  readonly logger: Logger;
  readonly logChannels: InstanceLogChannels;
  /** What the destroy confirmation asks the instance before it deletes its disk (ui/commands/transfer.ts). */
  readonly beforeDestroy?: BeforeDestroy;
  /** The instance this window is connected to through Remote-SSH, if any (src/ui/status/remoteWindow.ts). */
  readonly windowInstance?: () => number | undefined;
}

/**
 * Stop, start, reboot, destroy, label, logs and SSH command: each from the tree or the palette.
 * What each asks and says is decided in core (core/instances/flows.ts, bulk.ts); these adapt.
 */
export function instanceCommands(s: InstanceDeps): CommandDefinition[] {
  const flow = (): InstanceFlowDeps => flowDeps(s);
  return [
    command(COMMANDS.stopInstance, (t?: LifecycleTarget, selected?: unknown) =>
      t instanceof ClusterItem
        ? cluster(s, 'stop', t.cluster)
        : several(t, selected)
          ? bulk(s, 'stop', several(t, selected)!)
          : withTarget(
              s,
              t,
              vscode.l10n.t('Stop which instance?'),
              ['running', 'loading', 'provisioning', 'rebooting', 'starting'],
              async (i) => show(await stopFlow(flow(), i)),
            ),
    ),
    command(COMMANDS.startInstance, (t?: LifecycleTarget, selected?: unknown) =>
      t instanceof ClusterItem
        ? cluster(s, 'start', t.cluster)
        : several(t, selected)
          ? bulk(s, 'start', several(t, selected)!)
          : withTarget(s, t, vscode.l10n.t('Start which instance?'), ['stopped'], async (i) => show(await startFlow(flow(), i))),
    ),
    // A cluster row's own titles; the instance commands take a cluster row too.
    command(COMMANDS.startCluster, (t?: unknown) => (t instanceof ClusterItem ? cluster(s, 'start', t.cluster) : undefined)),
    command(COMMANDS.stopCluster, (t?: unknown) => (t instanceof ClusterItem ? cluster(s, 'stop', t.cluster) : undefined)),
    command(COMMANDS.destroyCluster, (t?: unknown) => (t instanceof ClusterItem ? cluster(s, 'destroy', t.cluster) : undefined)),
    command(COMMANDS.rebootInstance, (t?: Target) =>
      withTarget(s, t, vscode.l10n.t('Reboot which instance?'), ['running'], async (i) => void (await rebootFlow(flow(), i))),
    ),
    command(COMMANDS.destroyInstance, (t?: LifecycleTarget, selected?: unknown) =>
      t instanceof ClusterItem
        ? cluster(s, 'destroy', t.cluster)
        : several(t, selected)
          ? bulk(s, 'destroy', several(t, selected)!)
          : withTarget(s, t, vscode.l10n.t('Destroy which instance?'), undefined, async (i) => {
              const end = await destroyFlow(flow(), i);
              if (end.kind === 'declined') return false;
              show(end.notice);
              return end.destroyed;
            }),
    ),
    command(COMMANDS.labelInstance, (t?: Target, label?: unknown) =>
      withTarget(s, t, vscode.l10n.t('Label which instance?'), undefined, async (i) => void (await labelFlow(flow(), i, label))),
    ),
    command(COMMANDS.showInstanceLogs, (t?: Target) =>
      withTarget(s, t, vscode.l10n.t('Show the logs of which instance?'), undefined, (i) => showLogs(s, i)),
    ),
    command(COMMANDS.copySshCommand, (t?: Target) =>
      withTarget(s, t, vscode.l10n.t('Copy the SSH command of which instance?'), ['running'], (i) => copySsh(i)),
    ),
  ];
}

/** The core flows' deps, built at each run: integration tests replace the prompts between runs. */
export function flowDeps(s: InstanceDeps): InstanceFlowDeps {
  return {
    ask: asker(s.prompts()),
    instances: s.session.client.instances,
    spend: (adds, what) => s.spend.allows(s.poller, adds, what),
    after: {
      track: (id) => s.boots.track(id),
      watch: (id) => s.poller.watch(id),
      refresh: () => s.poller.refresh(),
      forget: (id) => s.cleanup.forgetInstance(id),
    },
    logger: s.logger,
    beforeDestroy: s.beforeDestroy,
    windowInstance: s.windowInstance,
  };
}

/** Shows a flow's notice; its Refresh button refreshes the Instances view. */
function show(notice: InstanceNotice | undefined): void {
  void notify(notice, instanceActionLabel).then((action) => {
    if (action === 'refresh') void vscode.commands.executeCommand(COMMANDS.refresh);
  });
}

/**
 * The instances of a multi-selection, when the command came from the tree with several selected
 * (VS Code passes the clicked item and the selection). A click outside the selection acts on the
 * clicked item alone, as does a selection of one; job rows in the selection are not instances.
 */
function several(target: Target, selected: unknown): Instance[] | undefined {
  if (!(target instanceof InstanceItem) || !Array.isArray(selected)) return undefined;
  const items = selected.filter((x): x is InstanceItem => x instanceof InstanceItem);
  if (items.length < 2 || !items.some((x) => x.instance.id === target.instance.id)) return undefined;
  return items.map((x) => x.instance);
}

/** Stop, Start or Destroy on several instances (core/instances/bulk.ts decides); resolves each one's outcome. */
async function bulk(s: InstanceDeps, action: BulkAction, selected: readonly Instance[]): Promise<BulkOutcome[]> {
  // The rows may be a poll old: the latest list says what each bills now.
  const latest = selected.map((i) => s.poller.snapshot?.instances.find((x) => x.id === i.id) ?? i);
  const end = await bulkFlow(flowDeps(s), action, latest);
  if (end.kind === 'declined') return [];
  show(end.notice);
  return end.kind === 'acted' ? end.outcomes : [];
}

/**
 * Stop, Start or Destroy on a cluster row (core/instances/clusterFlow.ts decides). The row may be a
 * poll old: its nodes are taken from the latest list, its membership from the row.
 */
async function cluster(s: InstanceDeps, action: BulkAction, row: ClusterGroup): Promise<BulkOutcome[]> {
  const snapshot = s.poller.snapshot?.instances;
  const members = { overlay_id: row.overlayId, name: row.name, instances: [...row.nodes.map((i) => i.id), ...row.missing] };
  const regrouped = snapshot && groupClusters(snapshot, [members]).clusters[0];
  const latest: ClusterGroup = regrouped ? { ...regrouped, label: row.label, subnet: row.subnet, clusterId: row.clusterId } : row;
  const end = await clusterFlow({ ...flowDeps(s), overlays: s.session.client.clusters }, action, latest);
  if (end.kind === 'declined') return [];
  show(end.notice);
  return end.kind === 'acted' ? end.outcomes : [];
}

/**
 * Resolves the instance a command acts on, then acts. From the palette, a quick pick offers only
 * instances in a phase the command applies to. Errors escape to the command guard.
 */
async function withTarget<T>(
  s: TargetDeps,
  target: Target,
  title: string,
  phases: readonly InstancePhase[] | undefined,
  act: (instance: Instance) => Promise<T>,
): Promise<T | undefined> {
  const instance = await resolveTarget(s, target, title, phases);
  return instance ? await act(instance) : undefined;
}

export async function resolveTarget(
  s: TargetDeps,
  target: Target,
  title: string,
  phases: readonly InstancePhase[] | undefined,
): Promise<Instance | undefined> {
  if (target instanceof InstanceItem) return target.instance;
  if (typeof target === 'number') {
    return s.poller.snapshot?.instances.find((i) => i.id === target) ?? (await s.session.client.instances.show(target));
  }
  await s.poller.refresh();
  const choice = targetChoice(s.poller.snapshot?.instances ?? [], title, phases, Date.now());
  if (choice.kind === 'none') {
    void vscode.window.showInformationMessage(choice.message);
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(choice.items, { title: choice.title, placeHolder: choice.placeholder });
  return picked?.instance;
}

async function showLogs(s: InstanceDeps, i: Instance): Promise<string> {
  const text = await showProgress(vscode.l10n.t('fetching the log of {0}…', instanceName(i)), (task) =>
    s.session.client.instances.logs(i.id, { tail: 1000 }, { signal: task.signal }),
  );
  const channel = s.logChannels.for(i.id);
  channel.replace(text || vscode.l10n.t('(the log is empty)'));
  channel.show(true);
  return text;
}

async function copySsh(i: Instance): Promise<string | undefined> {
  const copy = sshCommandToCopy(i);
  if (copy.command !== undefined) await vscode.env.clipboard.writeText(copy.command);
  show(copy.notice);
  return copy.command;
}
