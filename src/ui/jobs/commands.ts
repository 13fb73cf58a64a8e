import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Instance } from '../../core/api/instances';
import { COMMANDS } from '../../core/ids';
import { pythonCommand } from '../../core/jobs/scripts';
import { instanceName } from '../../core/instances/names';
import type { JobMemory } from '../../core/jobs/memory';
import type { InstancePoller } from '../../core/instances/poller';
import type { Session } from '../../core/session/session';
import { formatDollars } from '../../core/format';
import { command, type CommandDefinition } from '../commands/registry';
import { resolveTarget } from '../commands/instances';
import { config } from '../config';
import { checkRemotePath, remoteJoin } from '../../core/transfer/remotePath';
import { pickOf, type Prompts } from '../prompts';
import { InstanceItem } from '../views/instancesView';
import { JobItem, type Jobs } from './jobs';

/** Run on Instance uploads first through Upload Folder; Download Outputs goes through Download from Instance. */
const UPLOAD_FOLDER = COMMANDS.uploadFolder;
const DOWNLOAD_FROM_INSTANCE = COMMANDS.downloadFromInstance;

export interface JobCommandDeps {
  readonly session: Session;
  readonly poller: InstancePoller;
  readonly jobs: Jobs;
  readonly memory: JobMemory;
  readonly prompts: () => Prompts;
}

/**
 * What Run on Instance may be given instead of asking (tests, and other commands): each one given
 * is not asked.
 */
export interface RunJobOptions {
  command?: string;
  uploadFirst?: boolean;
  /** The local folder to upload first (default: the workspace folder of the file, else the first one). */
  localDir?: string;
  /** The folder on the instance to run in. */
  cwd?: string;
  stopAtEnd?: boolean;
}

/** `python3 <file relative to its workspace folder>` (the folder Upload sends); a file outside every folder by its name. */
export function pythonCommandFor(file: vscode.Uri): string {
  const folder = vscode.workspace.getWorkspaceFolder(file);
  const relative = folder ? path.relative(folder.uri.fsPath, file.fsPath) : path.basename(file.fsPath);
  return pythonCommand(relative.split(path.sep).join('/'));
}

async function commandRegistered(id: string): Promise<boolean> {
  return (await vscode.commands.getCommands(true)).includes(id);
}

/** Run on Instance, Stop Job, Show Output and Download Outputs. */
export function jobCommands(s: JobCommandDeps): CommandDefinition[] {
  return [
    command(COMMANDS.runJob, (target?: InstanceItem | number | vscode.Uri, options: RunJobOptions = {}) => runJob(s, target, options)),
    command(COMMANDS.stopJob, async (given?: JobItem) => {
      const item = given instanceof JobItem ? given : await pickJob(s, vscode.l10n.t('Stop Job'), true);
      if (!item) return false;
      const instance = s.poller.snapshot?.instances.find((i) => i.id === item.instanceId);
      const rate = instance?.dph_total ? formatDollars(instance.dph_total) : undefined;
      const ok = await s
        .prompts()
        .confirm(
          vscode.l10n.t('Stop {0} on #{1}?', String(item.label), item.instanceId),
          rate === undefined
            ? vscode.l10n.t(
                'Its command and everything it started are ended. The instance keeps running, even when the job was to stop it at its end: stop it yourself when you are done.',
              )
            : vscode.l10n.t(
                'Its command and everything it started are ended. The instance keeps running ({0}/h), even when the job was to stop it at its end: stop it yourself when you are done.',
                rate,
              ),
          vscode.l10n.t('Stop Job'),
        );
      if (!ok) return false;
      const stopped = await s.jobs.stop(item.instanceId, item.jobId, false);
      void vscode.window.showInformationMessage(
        !stopped
          ? vscode.l10n.t('GPU Rental: {0} had already ended.', String(item.label))
          : rate === undefined
            ? vscode.l10n.t(
                'GPU Rental: {0} was stopped. #{1} keeps running; stop or destroy it when you are done.',
                String(item.label),
                item.instanceId,
              )
            : vscode.l10n.t(
                'GPU Rental: {0} was stopped. #{1} keeps running ({2}/h); stop or destroy it when you are done.',
                String(item.label),
                item.instanceId,
                rate,
              ),
      );
      return stopped;
    }),
    command(COMMANDS.showJobOutput, async (given?: JobItem) => {
      const item = given instanceof JobItem ? given : await pickJob(s, vscode.l10n.t('Show Job Output'), false);
      if (!item) return;
      s.jobs.showOutput(item.instanceId, item.jobId, String(item.label));
    }),
    command(COMMANDS.downloadJobOutputs, async (given?: JobItem, options: { localDir?: string } = {}) => {
      const item = given instanceof JobItem ? given : await pickJob(s, vscode.l10n.t('Download Job Outputs'), false);
      if (!item) return undefined;
      if (!item.cwd)
        throw new Error(
          vscode.l10n.t('The folder {0} ran in is not known yet. Refresh the Instances view, then try again.', String(item.label)),
        );
      if (!(await commandRegistered(DOWNLOAD_FROM_INSTANCE))) {
        throw new Error(
          vscode.l10n.t('Download from Instance is not available in this window, so the outputs cannot be downloaded from here.'),
        );
      }
      return vscode.commands.executeCommand(DOWNLOAD_FROM_INSTANCE, item.instanceId, { remotePath: item.cwd, ...options });
    }),
  ];
}

/** The jobs this window knows (listed or remembered), to pick one from the palette; `running` keeps only running ones. */
async function pickJob(s: JobCommandDeps, title: string, running: boolean): Promise<JobItem | undefined> {
  const rows = (s.poller.snapshot?.instances ?? [])
    .flatMap((i) => s.jobs.rows(i.id))
    .filter((r) => !running || r.contextValue === 'job-running');
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

async function runJob(
  s: JobCommandDeps,
  target: InstanceItem | number | vscode.Uri | undefined,
  o: RunJobOptions,
): Promise<{ jobId: string } | undefined> {
  const file = target instanceof vscode.Uri ? target : undefined;
  const instance = await resolveTarget(
    s,
    target instanceof InstanceItem || typeof target === 'number' ? target : undefined,
    vscode.l10n.t('Run on Instance'),
    ['running'],
  );
  if (!instance) return undefined;

  const command = o.command ?? (await askCommand(s.memory, file, instance));
  if (command === undefined) return undefined;
  await s.memory.setLastCommand(command);

  let uploadFirst = o.uploadFirst;
  if (uploadFirst === undefined) {
    const remembered = s.memory.uploadFirst() ?? true;
    const items = [
      {
        label: vscode.l10n.t('Upload the workspace first'),
        detail: vscode.l10n.t('Only what changed is sent, then the job starts in the uploaded folder.'),
        value: true,
      },
      {
        label: vscode.l10n.t('Run without uploading'),
        detail: vscode.l10n.t('The job runs on what the instance already has.'),
        value: false,
      },
    ];
    uploadFirst = await pickOf(s.prompts())({
      title: vscode.l10n.t('GPU Rental: Upload before the job?'),
      items: remembered ? items : items.reverse(),
    });
    if (uploadFirst === undefined) return undefined;
    await s.memory.setUploadFirst(uploadFirst);
  }
  let cwd = o.cwd;
  if (uploadFirst) {
    if (!(await commandRegistered(UPLOAD_FOLDER))) {
      throw new Error(
        vscode.l10n.t('Upload Folder is not available in this window. Run the job without uploading, or upload the folder another way.'),
      );
    }
    // The folder of the file being run, else the first of the workspace, to <transfer folder>/<its name>, as Upload suggests.
    const localDir =
      o.localDir ?? ((file && vscode.workspace.getWorkspaceFolder(file)) ?? vscode.workspace.workspaceFolders?.[0])?.uri.fsPath;
    const remoteDir = localDir ? remoteJoin(checkRemotePath(config.transferFolder()), path.basename(localDir) || 'upload') : undefined;
    const uploaded = await vscode.commands.executeCommand<string | { remoteFolder: string } | undefined>(UPLOAD_FOLDER, instance.id, {
      quiet: true,
      ...(localDir ? { localDir, remoteDir } : {}),
    });
    if (!uploaded) return undefined;
    cwd ??= typeof uploaded === 'string' ? uploaded : uploaded.remoteFolder;
  }
  cwd ??= config.remoteFolder() || '~';

  let stopAtEnd = o.stopAtEnd;
  if (stopAtEnd === undefined) {
    await s.jobs.list(instance.id);
    const alone = !s.jobs.runsJobs(instance.id);
    const disk = instance.storage_total_cost
      ? vscode.l10n.t('its disk still bills {0}/h while it is stopped', formatDollars(instance.storage_total_cost))
      : vscode.l10n.t('its disk still bills while it is stopped');
    const items = [
      {
        label: vscode.l10n.t('Stop the instance when the job ends'),
        detail: vscode.l10n.t('Works with this window closed; {0}.', disk),
        value: true,
      },
      {
        label: vscode.l10n.t('Keep the instance running'),
        detail: alone ? vscode.l10n.t('It bills its full rate until you stop it.') : vscode.l10n.t('Another job of GPU Rental runs on it.'),
        value: false,
      },
    ];
    stopAtEnd = await pickOf(s.prompts())({
      title: vscode.l10n.t('GPU Rental: When the job on {0} ends', instanceName(instance)),
      items: alone ? items : items.reverse(),
    });
    if (stopAtEnd === undefined) return undefined;
  }
  const { jobId } = await s.jobs.run(instance, { command, cwd, stopAtEnd, baseUrl: s.session.baseUrl });
  return { jobId };
}

async function askCommand(memory: JobMemory, file: vscode.Uri | undefined, instance: Instance): Promise<string | undefined> {
  const editor = vscode.window.activeTextEditor?.document;
  const python = file ?? (editor?.languageId === 'python' && editor.uri.scheme === 'file' ? editor.uri : undefined);
  const value = (python && pythonCommandFor(python)) ?? memory.lastCommand() ?? '';
  const typed = await vscode.window.showInputBox({
    title: vscode.l10n.t('GPU Rental: Run on {0}', instanceName(instance)),
    prompt: vscode.l10n.t('The command to run on the instance, detached: it keeps running with this window closed.'),
    placeHolder: 'python3 train.py',
    value,
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() ? undefined : vscode.l10n.t('Type the command to run, e.g. python3 train.py')),
  });
  return typed?.trim() ? typed : undefined;
}
