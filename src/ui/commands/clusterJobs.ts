import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Instance } from '../../core/api/instances';
import { COMMANDS } from '../../core/ids';
import type { InstancePoller } from '../../core/instances/poller';
import type { ClusterJob } from '../../core/jobs/cluster/clusterJob';
import { ClusterJobs, type ClusterEditor } from '../../core/jobs/cluster/clusterFeature';
import type { RunClusterGiven } from '../../core/jobs/cluster/run';
import type { JobMemory } from '../../core/jobs/memory';
import type { UploadRequest } from '../../core/jobs/run';
import type { Logger } from '../../core/log';
import type { Session } from '../../core/session/session';
import type { SshTarget } from '../../core/ssh/remote';
import { uploadedFiles } from '../../core/transfer/runner';
import { suggestedRemoteDir } from '../../core/transfer/upload';
import { config } from '../host/config';
import { notify } from '../pickers/notify';
import { showProgress } from '../pickers/progress';
import { asker, type Prompts } from '../pickers/prompts';
import type { Jobs } from '../views/jobItems';
import { command, type CommandDefinition } from '../registry';

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

/**
 * Run on Cluster, Switch Rank and Check Cluster Network: each command gathers what the editor knows
 * and calls the feature (core/jobs/cluster/clusterFeature.ts), which decides the rest and shows it
 * through the prompts, a progress, a notification and a job's terminal answered here.
 */
export function clusterJobCommands(s: ClusterJobCommandDeps): CommandDefinition[] {
  const cluster = new ClusterJobs({
    ask: () => asker(s.prompts()),
    progress: showProgress,
    notify: (notice, label) => notify(notice, label),
    memory: s.memory,
    book: s.jobs.book,
    poller: s.poller,
    overlays: () => s.session.client.clusters.overlays(),
    baseUrl: () => s.session.baseUrl,
    upload: s.upload,
    sshTarget: s.sshTarget,
    logger: s.logger,
  });
  return [
    command(COMMANDS.runOnCluster, (target?: unknown, given: RunClusterGiven = {}) => cluster.run(target, editor(), given)),
    command(COMMANDS.switchClusterRank, (job?: ClusterJob, rank?: number) => cluster.switchRank(job, rank)),
    command(COMMANDS.checkCluster, (target?: unknown) => cluster.check(target)),
  ];
}

/** What Run on Cluster takes from the editor: the active Python file and its workspace folder, and the settings now. */
function editor(): ClusterEditor {
  const document = vscode.window.activeTextEditor?.document;
  const python = document?.languageId === 'python' && document.uri.scheme === 'file' ? document.uri : undefined;
  const folder = (python && vscode.workspace.getWorkspaceFolder(python)) ?? vscode.workspace.workspaceFolders?.[0];
  const script = python && folder ? path.relative(folder.uri.fsPath, python.fsPath).split(path.sep).join('/') : undefined;
  const [transferFolder, excludes] = [config.transferFolder(), config.syncExclude()];
  return {
    facts: { script, workspaceDir: folder?.uri.fsPath },
    remoteFolder: config.remoteFolder(),
    uploadDestination: (localDir) => suggestedRemoteDir(transferFolder, localDir),
    files: (localDir) => uploadedFiles(localDir, excludes),
  };
}
