import { readdir } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { COMMANDS } from '../../core/ids';
import type { JobMemory } from '../../core/jobs/memory';
import { onDemandGpuPerHour } from '../../core/rent/bid';
import { sameMachineOnDemand } from '../../core/rent/changeBid';
import type { Instance } from '../../core/api/instances';
import {
  lastJobText,
  planJob,
  rerunJob,
  runTarget,
  type RunJobDeps,
  type RunJobFacts,
  type RunJobGiven,
  type UploadRequest,
} from '../../core/jobs/run';
import { isRunningRow } from '../../core/jobs/rows';
import { stopJobAsked } from '../../core/jobs/stop';
import { changePolicyFlow } from '../../core/jobs/changePolicy';
import type { SshTarget } from '../../core/ssh/remote';
import type { InstancePoller } from '../../core/instances/poller';
import type { Session } from '../../core/session/session';
import { command, type CommandDefinition } from '../registry';
import { resolveTarget } from './instances';
import { config } from '../host/config';
import { checkRemotePath, remoteJoin } from '../../core/transfer/remotePath';
import { asker, type Prompts } from '../pickers/prompts';
import { InstanceItem } from '../views/instancesView';
import { JobItem, type Jobs } from '../views/jobItems';

export interface JobCommandDeps {
  readonly session: Session;
  readonly poller: InstancePoller;
  readonly jobs: Jobs;
  readonly memory: JobMemory;
  readonly prompts: () => Prompts;
  /** Upload Folder's flow, called directly (quietly: Run on Instance says what happened); resolves the remote folder. */
  readonly upload: (instanceId: number, request: UploadRequest) => Promise<string | undefined>;
  /** Download from Instance's flow, called directly, for Download Job Outputs; resolves the local path. */
  readonly download: (instanceId: number, args: { remotePath: string; localDir?: string }) => Promise<string | undefined>;
  /** Writes the instance's SSH entry and says how ssh reaches it. */
  readonly sshTarget: (instance: Instance) => Promise<SshTarget>;
  /** The account's Notify Me URL, which a job's end is sent to; undefined when none is set up here. */
  readonly notifyUrl?: () => Promise<string | undefined>;
}

/** Run on Instance, Run Last Job Again, Stop Job, Show Output and Download Outputs. */
export function jobCommands(s: JobCommandDeps): CommandDefinition[] {
  return [
    command(COMMANDS.runJob, (target?: InstanceItem | number | vscode.Uri, given: RunJobGiven = {}) => runJob(s, target, given)),
    command(COMMANDS.runLastJob, (target?: InstanceItem | number) => runLastJob(s, target)),
    command(COMMANDS.stopJob, async (given?: JobItem) => {
      const item = given instanceof JobItem ? given : await pickJob(s, vscode.l10n.t('Stop Job'), true);
      if (!item) return false;
      const instance = s.poller.snapshot?.instances.find((i) => i.id === item.instanceId);
      const outcome = await stopJobAsked({ ask: asker(s.prompts()), jobs: s.jobs }, item.row, instance);
      if (!outcome) return false;
      void vscode.window.showInformationMessage(outcome.message);
      return outcome.stopped;
    }),
    command(COMMANDS.showJobOutput, async (given?: JobItem) => {
      const item = given instanceof JobItem ? given : await pickJob(s, vscode.l10n.t('Show Job Output'), false);
      if (!item) return;
      s.jobs.showOutput(item.row);
    }),
    command(COMMANDS.changeOutbidPolicy, async (given?: JobItem) => {
      const item = given instanceof JobItem ? given : await pickJob(s, vscode.l10n.t('Change Outbid Policy'), false, true);
      if (!item) return false;
      const instance = s.poller.snapshot?.instances.find((i) => i.id === item.instanceId);
      if (!instance) throw new Error(vscode.l10n.t('Instance #{0} is not in the Instances view any more.', item.instanceId));
      const result = await changePolicyFlow(
        { ask: asker(s.prompts()), target: s.sshTarget, relist: (id) => s.jobs.list(id), choices: s.jobs.book.choices },
        instance,
        item.row,
      );
      if (result) void vscode.window.showInformationMessage(result.message);
      return result?.changed ?? false;
    }),
    command(COMMANDS.downloadJobOutputs, async (given?: JobItem, options: { localDir?: string } = {}) => {
      const item = given instanceof JobItem ? given : await pickJob(s, vscode.l10n.t('Download Job Outputs'), false);
      if (!item) return undefined;
      if (!item.cwd)
        throw new Error(
          vscode.l10n.t('The folder {0} ran in is not known yet. Refresh the Instances view, then try again.', String(item.label)),
        );
      return s.download(item.instanceId, { remotePath: item.cwd, ...options });
    }),
  ];
}

/** The jobs this window knows (listed or remembered), to pick one from the palette; `running` keeps only running ones. */
async function pickJob(s: JobCommandDeps, title: string, running: boolean, resumable = false): Promise<JobItem | undefined> {
  const rows = (s.poller.snapshot?.instances ?? [])
    .flatMap((i) => s.jobs.rows(i.id))
    .filter((r) => (!running || isRunningRow(r.row)) && (!resumable || r.row.resume !== undefined));
  if (rows.length === 0) {
    void vscode.window.showInformationMessage(
      running
        ? vscode.l10n.t(
            "GPU Rental: no running job is known in this window. Start one with Run on Instance, or open an instance's jobs in the Instances view.",
          )
        : vscode.l10n.t(
            "GPU Rental: no job is known in this window. Start one with Run on Instance, or open an instance's jobs in the Instances view.",
          ),
    );
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    rows.map((item) => ({ label: String(item.label), description: `#${item.instanceId} · ${String(item.description)}`, item })),
    { title: vscode.l10n.t('GPU Rental: {0}', title), placeHolder: vscode.l10n.t('Pick a job') },
  );
  return picked?.item;
}

export async function runJob(
  s: JobCommandDeps,
  target: InstanceItem | number | vscode.Uri | undefined,
  given: RunJobGiven,
): Promise<{ jobId: string } | undefined> {
  const file = target instanceof vscode.Uri ? target : undefined;
  const instance = await jobInstance(
    s,
    target instanceof InstanceItem || typeof target === 'number' ? target : undefined,
    vscode.l10n.t('Run on Instance'),
  );
  if (!instance) return undefined;
  const plan = await planJob(runDeps(s), instance, await editorFacts(file), given);
  if (!plan) return undefined;
  const { jobId } = await s.jobs.run(instance, { ...plan, baseUrl: s.session.baseUrl, notifyUrl: await s.notifyUrl?.() });
  return { jobId };
}

/** Run Last Job Again: the last job's answers on its instance (while it runs), asking nothing more; Run on Instance when there is none. */
async function runLastJob(s: JobCommandDeps, target: InstanceItem | number | undefined): Promise<{ jobId: string } | undefined> {
  const last = s.memory.lastJob();
  if (!last) return runJob(s, target, {});
  const instance = await jobInstance(s, target, vscode.l10n.t('Run Again: {0}', lastJobText(last)), last.instanceId);
  if (!instance) return undefined;
  const plan = await rerunJob(runDeps(s), instance, await editorFacts(undefined));
  if (!plan) return undefined;
  const { jobId } = await s.jobs.run(instance, { ...plan, baseUrl: s.session.baseUrl, notifyUrl: await s.notifyUrl?.() });
  return { jobId };
}

/** The instance a job runs on: the one given, else the preferred or only running one, else the user picks. */
async function jobInstance(
  s: JobCommandDeps,
  target: InstanceItem | number | undefined,
  title: string,
  preferredId?: number,
): Promise<Instance | undefined> {
  const known = target === undefined ? runTarget(s.poller.snapshot?.instances ?? [], preferredId) : undefined;
  return known ?? (await resolveTarget(s, target, title, ['running']));
}

function runDeps(s: JobCommandDeps): RunJobDeps {
  return {
    ask: asker(s.prompts()),
    memory: s.memory,
    jobs: s.jobs,
    upload: s.upload,
    uploadDestination: (localDir) => remoteJoin(checkRemotePath(config.transferFolder()), path.basename(localDir) || 'upload'),
    remoteFolder: config.remoteFolder(),
    onDemandPrice: (on) => onDemandPrice(s, on),
    folderExists: (on, cwd, dir) => s.jobs.folderExists(on, cwd, dir),
  };
}

/** The same machine's on-demand GPU price in $/h (what a resumable job's "saved" counts against); undefined when not listed or unreadable. */
async function onDemandPrice(s: JobCommandDeps, instance: Instance): Promise<number | undefined> {
  const request = sameMachineOnDemand(instance);
  if (!request) return undefined;
  try {
    const [offer] = await s.session.client.offers.search(request);
    return offer ? onDemandGpuPerHour(offer, false) : undefined;
  } catch {
    // Unknown: the job's history then says "saved: unknown".
    return undefined;
  }
}

/** The Python file to run (the one given, else the active editor's when it is Python on disk), the folder Upload sends and whether it is empty. */
async function editorFacts(file: vscode.Uri | undefined): Promise<RunJobFacts> {
  const editor = vscode.window.activeTextEditor?.document;
  const python = file ?? (editor?.languageId === 'python' && editor.uri.scheme === 'file' ? editor.uri : undefined);
  const folder = (file && vscode.workspace.getWorkspaceFolder(file)) ?? vscode.workspace.workspaceFolders?.[0];
  const workspaceDir = folder?.uri.fsPath;
  return {
    script: python && scriptPath(python),
    workspaceDir,
    workspaceEmpty: workspaceDir !== undefined && (await isEmpty(workspaceDir)),
  };
}

/** A folder with nothing to send: no entry but .git and .vscode (one that cannot be read is not called empty). */
async function isEmpty(dir: string): Promise<boolean> {
  try {
    return (await readdir(dir)).every((name) => name === '.git' || name === '.vscode');
  } catch {
    return false;
  }
}

/** The file relative to its workspace folder (the folder Upload sends), with `/`; a file outside every folder by its name. */
function scriptPath(file: vscode.Uri): string {
  const folder = vscode.workspace.getWorkspaceFolder(file);
  const relative = folder ? path.relative(folder.uri.fsPath, file.fsPath) : path.basename(file.fsPath);
  return relative.split(path.sep).join('/');
}
