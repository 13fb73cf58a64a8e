import { randomInt } from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Instance } from '../../core/api/instances';
import { COMMANDS } from '../../core/ids';
import { groupClusters } from '../../core/instances/cluster';
import { instanceName } from '../../core/instances/names';
import type { InstancePoller } from '../../core/instances/poller';
import { checkCluster, gateOn, PREFLIGHT_PORT, type PreflightDeps } from '../../core/jobs/cluster/preflight';
import {
  clusterStateText,
  type ClusterJob,
  type ClusterJobAction,
  type ClusterJobNotice,
  type ClusterJobWatch,
} from '../../core/jobs/cluster/clusterJob';
import { ClusterJobWatches } from '../../core/jobs/cluster/clusterJobStore';
import { runOnCluster, type ClusterTarget, type RunClusterDeps, type RunClusterGiven } from '../../core/jobs/cluster/run';
import type { JobMemory } from '../../core/jobs/memory';
import { bashCommand } from '../../core/jobs/remoteJobs';
import type { UploadRequest } from '../../core/jobs/run';
import type { FanoutProgress } from '../../core/jobs/cluster/fanout';
import { clusterRunDeps } from '../../core/jobs/cluster/wiring';
import type { Logger } from '../../core/log';
import type { Session } from '../../core/session/session';
import { lastErrorLine, runRemote, type SshTarget } from '../../core/ssh/remote';
import { uploadedFiles } from '../../core/transfer/runner';
import { suggestedRemoteDir } from '../../core/transfer/upload';
import { config } from '../host/config';
import { notify } from '../pickers/notify';
import { asker, type Prompts } from '../pickers/prompts';
import type { Jobs } from '../views/jobItems';
import { command, type CommandDefinition } from './registry';

export interface ClusterJobCommandDeps {
  readonly session: Session;
  readonly poller: InstancePoller;
  readonly jobs: Jobs;
  readonly memory: JobMemory;
  readonly prompts: () => Prompts;
  readonly sshTarget: (instance: Instance) => Promise<SshTarget>;
  readonly logger: Logger;
  /** Upload Folder's flow, called directly and quietly for each node (its own progress); resolves the remote folder. */
  readonly upload: (instanceId: number, request: UploadRequest) => Promise<string | undefined>;
}

function actionLabel(action: ClusterJobAction): string {
  switch (action) {
    case 'switchRank':
      return vscode.l10n.t('Switch Rank…');
    case 'showOutput':
      return vscode.l10n.t('Show Output');
  }
}

/**
 * Run on Cluster, Switch Rank and Check Cluster Network. What is asked, refused and started is decided in
 * core/jobs/cluster/run.ts; the cluster job's state and the stop of the others after a failure in
 * clusterJob.ts. Rank 0's output opens in the job's terminal; Switch Rank opens another rank's.
 */
export function clusterJobCommands(s: ClusterJobCommandDeps): CommandDefinition[] {
  /** The cluster jobs started in this window or remembered by the workspace (restored below), oldest first. */
  const watches = new ClusterJobWatches({
    book: s.jobs.book,
    notify: (n) => void tell(n),
    logger: s.logger,
    memory: s.memory,
    poller: s.poller,
  });
  /** The clusters (their node ids) whose network passed the check, or the user ran on anyway, in this window. */
  const checked = new Set<string>();
  const switchRank = (job?: ClusterJob, rank?: number) => pickRank(s, watches.all, job, rank);
  const tell = async (notice: ClusterJobNotice) => {
    const action = await notify(notice, actionLabel);
    if (action === 'showOutput') showRank(s, notice.job, notice.rank ?? 0);
    if (action === 'switchRank') await switchRank(notice.job);
  };
  // After a reload: the failure watch, the state and Switch Rank of the cluster jobs still running.
  watches.restore();
  return [
    command(COMMANDS.runOnCluster, async (target?: unknown, given: RunClusterGiven = {}) => {
      const cluster = asCluster(target) ?? (await pickCluster(s, 'run'));
      if (!cluster) return undefined;
      const preflight = async (c: ClusterTarget) => {
        if (checked.has(clusterKey(c))) return 'go' as const;
        const gate = await gateOn(asker(s.prompts()), await withCheckProgress(c, (d) => checkCluster(d, c, { port: checkPort() }), s));
        if (gate === 'go') checked.add(clusterKey(c));
        return gate;
      };
      const outcome = await runOnCluster({ ...deps(s), preflight }, cluster, editorFacts(), given);
      if (!outcome) return undefined;
      if (outcome.kind !== 'started') {
        void notify(outcome.notice);
        return undefined;
      }
      watches.start(outcome.job);
      void notify(outcome.notice, actionLabel).then((action) => (action === 'switchRank' ? switchRank(outcome.job) : undefined));
      return { jobId: outcome.job.jobId };
    }),
    command(COMMANDS.switchClusterRank, (job?: ClusterJob, rank?: number) => switchRank(job, rank)),
    command(COMMANDS.checkCluster, async (target?: unknown) => {
      const cluster = asCluster(target) ?? (await pickCluster(s, 'check'));
      if (!cluster) return undefined;
      const outcome = await withCheckProgress(cluster, (d) => checkCluster(d, cluster, { port: checkPort() }), s);
      if (!outcome) return undefined;
      if (outcome.verdict === 'fast') checked.add(clusterKey(cluster));
      void notify(outcome.notice);
      return { verdict: outcome.verdict, lines: outcome.lines };
    }),
  ];
}

/** A cluster as the set of its nodes: the same nodes are the same network. */
const clusterKey = (cluster: ClusterTarget) => cluster.nodes.map((n) => n.id).join(',');

/** A port from 29400 to 29499 (below torchrun's 29500), another each time, so a probe still ending on a node holds none we need. */
const checkPort = () => PREFLIGHT_PORT + randomInt(100);

/** Runs the check under a cancellable progress notification; its Cancel aborts what runs on the nodes. */
function withCheckProgress<T>(cluster: ClusterTarget, work: (deps: PreflightDeps) => Promise<T>, s: ClusterJobCommandDeps): Thenable<T> {
  return vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: vscode.l10n.t('GPU Rental: checking the network of {0}', cluster.label),
      cancellable: true,
    },
    async (progress, token) => {
      const controller = new AbortController();
      const cancel = token.onCancellationRequested(() => controller.abort());
      try {
        return await work({
          shell: async (instance, script, o) => {
            const result = await runRemote(await s.sshTarget(instance), bashCommand(script), o);
            if (result.code !== 0) throw new Error(lastErrorLine(result.stderr) || vscode.l10n.t('exit code {0}', result.code));
            return result.stdout;
          },
          logger: s.logger,
          progress: (message) => progress.report({ message }),
          signal: controller.signal,
        });
      } finally {
        cancel.dispose();
      }
    },
  );
}

function deps(s: ClusterJobCommandDeps): RunClusterDeps {
  return clusterRunDeps({
    ask: asker(s.prompts()),
    memory: s.memory,
    upload: s.upload,
    uploadDestination: (localDir) => suggestedRemoteDir(config.transferFolder(), localDir),
    remoteFolder: config.remoteFolder(),
    sshTarget: s.sshTarget,
    jobs: s.jobs,
    baseUrl: s.session.baseUrl,
    logger: s.logger,
    fanout: {
      files: (localDir) => uploadedFiles(localDir, config.syncExclude()),
      progress: withFanoutProgress,
    },
  });
}

/** Runs the copy from rank 0 to the other nodes under a cancellable notification; its Cancel stops every copy. */
function withFanoutProgress<T>(title: string, work: (p: FanoutProgress) => Promise<T>): Promise<T> {
  return Promise.resolve(
    vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (progress, token) => {
      const controller = new AbortController();
      const cancel = token.onCancellationRequested(() => controller.abort());
      try {
        return await work({ report: (message, increment) => progress.report({ message, increment }), signal: controller.signal });
      } finally {
        cancel.dispose();
      }
    }),
  );
}

/** A cluster handed in by a tree item or a test: anything with a label and its nodes in rank order. */
function asCluster(target: unknown): ClusterTarget | undefined {
  if (typeof target !== 'object' || target === null) return undefined;
  const t = target as { label?: unknown; nodes?: unknown; cluster?: unknown };
  const c = (t.cluster && typeof t.cluster === 'object' ? t.cluster : t) as { label?: unknown; nodes?: unknown };
  if (!Array.isArray(c.nodes)) return undefined;
  const label = typeof c.label === 'string' ? c.label : typeof t.label === 'string' ? t.label : vscode.l10n.t('cluster');
  return { label, nodes: c.nodes as Instance[] };
}

/** The palette: the account's clusters (instances grouped by overlay), one picked; one alone is taken. */
async function pickCluster(s: ClusterJobCommandDeps, purpose: 'run' | 'check'): Promise<ClusterTarget | undefined> {
  if (!s.poller.snapshot) await s.poller.refresh();
  const instances = s.poller.snapshot?.instances ?? [];
  const overlays = await s.session.client.clusters.overlays();
  const clusters = groupClusters(instances, overlays).clusters.filter((c) => c.nodes.length > 0);
  if (clusters.length === 0) {
    void vscode.window.showInformationMessage(
      purpose === 'run'
        ? vscode.l10n.t('GPU Rental: this account has no cluster to run on. Rent one with Rent Cluster, then run the job on it.')
        : vscode.l10n.t('GPU Rental: this account has no cluster to check. Rent one with Rent Cluster, then check its network.'),
    );
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    clusters.map((c) => ({
      label: c.label,
      description: vscode.l10n.t('{0} of {1} nodes running', c.running, c.size),
      detail: c.nodes.map((n) => instanceName(n)).join(' · '),
      cluster: { label: c.label, nodes: c.nodes },
    })),
    {
      title: purpose === 'run' ? vscode.l10n.t('GPU Rental: Run on Cluster') : vscode.l10n.t('GPU Rental: Check Cluster Network'),
      placeHolder: vscode.l10n.t('Pick a cluster'),
    },
  );
  return picked?.cluster;
}

/** Picks a rank of a cluster job (the newest when none is given) and shows its output. */
async function pickRank(s: ClusterJobCommandDeps, watches: readonly ClusterJobWatch[], given?: ClusterJob, rank?: number): Promise<void> {
  let job = given;
  if (!job) {
    if (watches.length === 0) {
      void vscode.window.showInformationMessage(
        vscode.l10n.t('GPU Rental: this workspace has no cluster job to show. Start one with Run on Cluster.'),
      );
      return;
    }
    job =
      watches.length === 1
        ? watches[0]!.job
        : (
            await vscode.window.showQuickPick(
              [...watches]
                .reverse()
                .map((w) => ({ label: w.job.label, description: `${w.job.cluster} · ${clusterStateText(w.state())}`, job: w.job })),
              { title: vscode.l10n.t('GPU Rental: Switch Rank'), placeHolder: vscode.l10n.t('Pick a cluster job') },
            )
          )?.job;
    if (!job) return;
  }
  const chosen = job;
  if (rank !== undefined) return showRank(s, chosen, rank);
  const watch = watches.find((w) => w.job.jobId === chosen.jobId);
  const statuses = new Map(chosen.nodes.map((id) => [id, s.jobs.book.statusesOf(id).find((st) => st.jobId === chosen.jobId)]));
  const picked = await vscode.window.showQuickPick(
    chosen.nodes.map((id, r) => ({
      label: vscode.l10n.t('Rank {0}', r),
      description: `#${id}`,
      detail: statuses.get(id) ? undefined : vscode.l10n.t('not listed yet'),
      rank: r,
    })),
    {
      title: watch
        ? vscode.l10n.t('GPU Rental: {0} on {1}: {2}', chosen.label, chosen.cluster, clusterStateText(watch.state()))
        : vscode.l10n.t('GPU Rental: {0} on {1}', chosen.label, chosen.cluster),
      placeHolder: vscode.l10n.t('Pick the rank whose output to show'),
    },
  );
  if (picked) showRank(s, chosen, picked.rank);
}

function showRank(s: ClusterJobCommandDeps, job: ClusterJob, rank: number): void {
  const instanceId = job.nodes[rank];
  if (instanceId === undefined) return;
  s.jobs.showOutput({ instanceId, jobId: job.jobId, label: job.label });
}

/** The active Python file, relative to its workspace folder, and that folder (what Upload sends). */
function editorFacts(): { script?: string; workspaceDir?: string } {
  const editor = vscode.window.activeTextEditor?.document;
  const python = editor?.languageId === 'python' && editor.uri.scheme === 'file' ? editor.uri : undefined;
  const folder = (python && vscode.workspace.getWorkspaceFolder(python)) ?? vscode.workspace.workspaceFolders?.[0];
  const script = python && folder ? path.relative(folder.uri.fsPath, python.fsPath).split(path.sep).join('/') : undefined;
  return { script, workspaceDir: folder?.uri.fsPath };
}
