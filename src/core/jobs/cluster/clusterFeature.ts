/**
 * Run on Cluster, Switch Rank and Check Cluster Network as one feature, behind the ports ui answers
 * (the prompts, a progress, a notification, a job's terminal): the cluster picked, the network check
 * before the first job on a cluster (and whether it passed, in this window), the run (run.ts), the
 * watch of every cluster job started or remembered (clusterJobStore.ts), and a rank's output shown.
 * ui's commands gather what the editor knows (the selection, the workspace folder, the settings)
 * and call one method each; the tests drive the same methods with scripted ports.
 */

import { randomInt } from 'node:crypto';
import type { Overlay } from '../../api/clusters';
import type { Instance } from '../../api/instances';
import { groupClusters } from '../../instances/cluster';
import { instanceName } from '../../instances/names';
import type { InstancePoller } from '../../instances/poller';
import { l10n } from '../../l10n';
import type { Logger } from '../../log';
import { info, type Notice } from '../../notice';
import type { Progress } from '../../progress';
import type { Ask } from '../../prompts';
import type { SshTarget } from '../../ssh/remote';
import type { JobBook } from '../book';
import type { JobMemory } from '../memory';
import { clusterStateText, type ClusterJob, type ClusterJobAction, type ClusterJobBook, type ClusterJobNotice } from './clusterJob';
import { ClusterJobWatches, type ClusterJobWatchesDeps } from './clusterJobStore';
import { checkCluster, gateOn, PREFLIGHT_PORT, type PreflightVerdict } from './preflight';
import { runOnCluster, type ClusterTarget, type RunClusterFacts, type RunClusterGiven } from './run';
import { clusterRunDeps, nodeShell, type ClusterRunWiring } from './wiring';

/** What the feature is built with: the window's long-lived objects and ui's ports. */
export interface ClusterFeaturePorts {
  /** The prompts as they are now (integration tests replace them at run time). */
  ask(): Ask;
  /** A cancellable progress (ui: a notification titled "GPU Rental: …"). */
  readonly progress: Progress;
  /** Shows a notice with its buttons worded by `label`; resolves the button pressed. */
  notify<A extends string>(notice: Notice<A>, label?: (action: A) => string): Promise<A | undefined>;
  readonly memory: Pick<JobMemory, 'uploadFirst' | 'setUploadFirst' | 'clusterRecords' | 'setClusterRecords' | 'job'>;
  /** The job book: each node's job starts, stops and is listed there; a rank's output opens in its terminal. */
  readonly book: ClusterJobBook & Pick<JobBook, 'run' | 'stop' | 'showOutput'>;
  readonly poller: Pick<InstancePoller, 'snapshot' | 'refresh'> & ClusterJobWatchesDeps['poller'];
  /** The account's overlays (the clusters the palette offers). */
  overlays(): Promise<readonly Overlay[]>;
  /** The API base URL a node's wrapper stops its instance through, as the session has it now. */
  baseUrl(): string;
  /** Upload Folder's flow for one node, quiet; resolves the folder on the node. */
  readonly upload: ClusterRunWiring['upload'];
  readonly sshTarget: (instance: Instance) => Promise<SshTarget>;
  readonly logger: Logger;
}

/** What the editor knows when Run on Cluster is run: the file and folder, and the settings read now. */
export interface ClusterEditor {
  readonly facts: RunClusterFacts;
  /** The remote folder setting (empty: the home folder). */
  readonly remoteFolder: string;
  /** The folder on a node that a local folder is uploaded to (the transfer folder setting). */
  uploadDestination(localDir: string): string;
  /** The files an upload of `localDir` sends (the exclude setting). */
  files(localDir: string): Promise<readonly string[]>;
}

export function clusterJobActionLabel(action: ClusterJobAction): string {
  switch (action) {
    case 'switchRank':
      return l10n.t('Switch Rank…');
    case 'showOutput':
      return l10n.t('Show Output');
  }
}

/** A cluster as the set of its nodes: the same nodes are the same network. */
const clusterKey = (cluster: ClusterTarget) => cluster.nodes.map((n) => n.id).join(',');

/** A port from 29400 to 29499 (below torchrun's 29500), another each time, so a probe still ending on a node holds none we need. */
const checkPort = () => PREFLIGHT_PORT + randomInt(100);

/** A cluster handed in by a tree item or a test: anything with a label and its nodes in rank order. */
export function asCluster(target: unknown): ClusterTarget | undefined {
  if (typeof target !== 'object' || target === null) return undefined;
  const t = target as { label?: unknown; nodes?: unknown; cluster?: unknown };
  const c = (t.cluster && typeof t.cluster === 'object' ? t.cluster : t) as { label?: unknown; nodes?: unknown };
  if (!Array.isArray(c.nodes)) return undefined;
  const label = typeof c.label === 'string' ? c.label : typeof t.label === 'string' ? t.label : l10n.t('cluster');
  return { label, nodes: c.nodes as Instance[] };
}

export class ClusterJobs {
  /** The cluster jobs started in this window or remembered by the workspace, oldest first. */
  private readonly watches: ClusterJobWatches;
  /** The clusters (their node ids) whose network passed the check, or the user ran on anyway, in this window. */
  private readonly checked = new Set<string>();

  constructor(private readonly p: ClusterFeaturePorts) {
    this.watches = new ClusterJobWatches({
      book: p.book,
      notify: (n) => void this.tell(n),
      logger: p.logger,
      memory: p.memory,
      poller: p.poller,
    });
    // After a reload: the failure watch, the state and Switch Rank of the cluster jobs still running.
    this.watches.restore();
  }

  /**
   * Run on Cluster: the cluster handed in (or picked), the questions, the network check before its
   * first job, the run; the outcome told. Resolves the new job's id, or undefined when nothing started.
   */
  async run(target: unknown, editor: ClusterEditor, given: RunClusterGiven = {}): Promise<{ jobId: string } | undefined> {
    const ask = this.p.ask();
    const cluster = asCluster(target) ?? (await this.pickCluster(ask, 'run'));
    if (!cluster) return undefined;
    const deps = clusterRunDeps({
      ask,
      memory: this.p.memory,
      upload: this.p.upload,
      uploadDestination: (localDir) => editor.uploadDestination(localDir),
      remoteFolder: editor.remoteFolder,
      sshTarget: this.p.sshTarget,
      jobs: this.p.book,
      baseUrl: this.p.baseUrl(),
      logger: this.p.logger,
      progress: this.p.progress,
      fanout: { files: (localDir) => editor.files(localDir) },
    });
    const outcome = await runOnCluster({ ...deps, preflight: (c) => this.gate(ask, c) }, cluster, editor.facts, given);
    if (!outcome) return undefined;
    if (outcome.kind !== 'started') {
      void this.p.notify(outcome.notice);
      return undefined;
    }
    this.watches.start(outcome.job);
    void this.p
      .notify(outcome.notice, clusterJobActionLabel)
      .then((action) => (action === 'switchRank' ? this.switchRank(outcome.job) : undefined));
    return { jobId: outcome.job.jobId };
  }

  /** Check Cluster Network: the check under its progress, its verdict told; a fast cluster needs no check before its jobs. */
  async check(target: unknown): Promise<{ verdict: PreflightVerdict; lines: readonly string[] } | undefined> {
    const cluster = asCluster(target) ?? (await this.pickCluster(this.p.ask(), 'check'));
    if (!cluster) return undefined;
    const outcome = await this.checkNetwork(cluster);
    if (!outcome) return undefined;
    if (outcome.verdict === 'fast') this.checked.add(clusterKey(cluster));
    void this.p.notify(outcome.notice);
    return { verdict: outcome.verdict, lines: outcome.lines };
  }

  /** Switch Rank: a cluster job (the newest when none is given, else picked) and a rank (picked when not given); its output shown. */
  async switchRank(given?: ClusterJob, rank?: number): Promise<void> {
    const ask = this.p.ask();
    const watches = this.watches.all;
    let job = given;
    if (!job) {
      if (watches.length === 0) {
        void this.p.notify(info(l10n.t('GPU Rental: this workspace has no cluster job to show. Start one with Run on Cluster.')));
        return;
      }
      job =
        watches.length === 1
          ? watches[0]!.job
          : await ask.pick({
              title: l10n.t('GPU Rental: Switch Rank'),
              placeholder: l10n.t('Pick a cluster job'),
              items: [...watches]
                .reverse()
                .map((w) => ({ label: w.job.label, description: `${w.job.cluster} · ${clusterStateText(w.state())}`, value: w.job })),
            });
      if (!job) return;
    }
    const chosen = job;
    if (rank !== undefined) return this.showRank(chosen, rank);
    const watch = watches.find((w) => w.job.jobId === chosen.jobId);
    const listed = (id: number) => this.p.book.statusesOf(id).some((st) => st.jobId === chosen.jobId);
    const picked = await ask.pick({
      title: watch
        ? l10n.t('GPU Rental: {0} on {1}: {2}', chosen.label, chosen.cluster, clusterStateText(watch.state()))
        : l10n.t('GPU Rental: {0} on {1}', chosen.label, chosen.cluster),
      placeholder: l10n.t('Pick the rank whose output to show'),
      items: chosen.nodes.map((id, r) => ({
        label: l10n.t('Rank {0}', r),
        description: `#${id}`,
        detail: listed(id) ? undefined : l10n.t('not listed yet'),
        value: r,
      })),
    });
    if (picked !== undefined) this.showRank(chosen, picked);
  }

  dispose(): void {
    this.watches.dispose();
  }

  /** A cluster job's notice: Show Output opens the rank's terminal, Switch Rank asks for one. */
  private async tell(notice: ClusterJobNotice): Promise<void> {
    const action = await this.p.notify(notice, clusterJobActionLabel);
    if (action === 'showOutput') this.showRank(notice.job, notice.rank ?? 0);
    if (action === 'switchRank') await this.switchRank(notice.job);
  }

  private showRank(job: ClusterJob, rank: number): void {
    const instanceId = job.nodes[rank];
    if (instanceId === undefined) return;
    this.p.book.showOutput({ instanceId, jobId: job.jobId, label: job.label });
  }

  /** The check before a cluster's first job in this window: once it passed (or the user ran anyway), it is not run again. */
  private async gate(ask: Ask, cluster: ClusterTarget): Promise<'go' | undefined> {
    if (this.checked.has(clusterKey(cluster))) return 'go';
    const gate = await gateOn(ask, await this.checkNetwork(cluster));
    if (gate === 'go') this.checked.add(clusterKey(cluster));
    return gate;
  }

  private checkNetwork(cluster: ClusterTarget) {
    return checkCluster({ shell: nodeShell(this.p.sshTarget), logger: this.p.logger, progress: this.p.progress }, cluster, {
      port: checkPort(),
    });
  }

  /** The palette: the account's clusters (instances grouped by overlay), one picked; one alone is offered too. */
  private async pickCluster(ask: Ask, purpose: 'run' | 'check'): Promise<ClusterTarget | undefined> {
    if (!this.p.poller.snapshot) await this.p.poller.refresh();
    const instances = this.p.poller.snapshot?.instances ?? [];
    const clusters = groupClusters(instances, await this.p.overlays()).clusters.filter((c) => c.nodes.length > 0);
    if (clusters.length === 0) {
      void this.p.notify(
        info(
          purpose === 'run'
            ? l10n.t('GPU Rental: this account has no cluster to run on. Rent one with Rent Cluster, then run the job on it.')
            : l10n.t('GPU Rental: this account has no cluster to check. Rent one with Rent Cluster, then check its network.'),
        ),
      );
      return undefined;
    }
    return ask.pick({
      title: purpose === 'run' ? l10n.t('GPU Rental: Run on Cluster') : l10n.t('GPU Rental: Check Cluster Network'),
      placeholder: l10n.t('Pick a cluster'),
      items: clusters.map((c) => ({
        label: c.label,
        description: l10n.t('{0} of {1} nodes running', c.running, c.size),
        detail: c.nodes.map((n) => instanceName(n)).join(' · '),
        value: { label: c.label, nodes: c.nodes },
      })),
    });
  }
}
