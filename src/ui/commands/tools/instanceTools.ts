import { realpath } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  destroyConfirmation,
  runJobConfirmation,
  startConfirmation,
  stopConfirmation,
  uploadConfirmation,
} from '../../../core/agent/confirm';
import { declinedText, ToolError, toolErrors } from '../../../core/agent/errors';
import { readInstanceInput, readRunJobInput, readUploadInput } from '../../../core/agent/inputs';
import type { Instance } from '../../../core/api/instances';
import { COMMANDS } from '../../../core/ids';
import { destroyFlow, instanceActionLabel, startFlow, stopFlow, type InstanceNotice } from '../../../core/instances/flows';
import { instanceName } from '../../../core/instances/names';
import { instancePhase, type InstancePhase } from '../../../core/instances/phase';
import { l10n } from '../../../core/l10n';
import { visibleText } from '../../../core/text';
import { flowDeps } from '../instances';
import { runJob } from '../jobs';
import { uploadFolder } from '../transfer';
import { notify } from '../../pickers/notify';
import type { AgentDeps } from './tools';
import { ensureSession, instanceById, type ToolBody } from './toolKit';

/** The instance, refused unless it is in one of `phases` (what the palette offers the command for). */
async function instanceIn(s: AgentDeps, raw: unknown, phases: readonly InstancePhase[], signal: AbortSignal): Promise<Instance> {
  const { instanceId } = readInstanceInput(raw);
  ensureSession(s.session);
  const instance = await instanceById(s, instanceId, signal);
  const phase = instancePhase(instance);
  if (!phases.includes(phase)) {
    if (phases.includes('running')) throw toolErrors.notRunning(instanceName(instance), phase);
    throw new ToolError(l10n.t('{0} is {1}; this can only be done when it is {2}.', instanceName(instance), phase, phases.join(', ')));
  }
  return instance;
}

/** Shows the flow's notice as the command does (Refresh refreshes the view), and hands its text to the model. */
function told(notice: InstanceNotice): string {
  void notify(notice, instanceActionLabel).then((action) => {
    if (action === 'refresh') void vscode.commands.executeCommand(COMMANDS.refresh);
  });
  // The notice says an outcome it did not see is unknown, and to check.
  return notice.text;
}

const STOPPABLE: readonly InstancePhase[] = ['running', 'loading', 'provisioning', 'rebooting', 'starting'];

export function stopInstanceTool(s: AgentDeps): ToolBody {
  return {
    async prepare(raw, signal) {
      const i = await instanceIn(s, raw, STOPPABLE, signal);
      return { message: l10n.t('Stopping {0}…', instanceName(i)), confirmation: stopConfirmation(i) };
    },
    async invoke(raw, signal) {
      const i = await instanceIn(s, raw, STOPPABLE, signal);
      return told(await stopFlow(flowDeps(s.instances), i));
    },
  };
}

export function startInstanceTool(s: AgentDeps): ToolBody {
  return {
    async prepare(raw, signal) {
      const i = await instanceIn(s, raw, ['stopped'], signal);
      return { message: l10n.t('Starting {0}…', instanceName(i)), confirmation: startConfirmation(i) };
    },
    async invoke(raw, signal) {
      const i = await instanceIn(s, raw, ['stopped'], signal);
      const notice = await startFlow(flowDeps(s.instances), i);
      if (!notice)
        throw new ToolError(
          l10n.t(
            'Not started: it would take the account over its spend limit (gpuRental.maxHourlySpend). Ask the person to raise the limit, or stop another instance first.',
          ),
        );
      return told(notice);
    },
  };
}

/** Destroy: the palette's confirmation (what goes, Download First), then the destroy; a declined one destroys nothing. */
export function destroyInstanceTool(s: AgentDeps): ToolBody {
  const any: readonly InstancePhase[] = [
    'running',
    'loading',
    'provisioning',
    'rebooting',
    'starting',
    'stopping',
    'stopped',
    'failed',
    'unreadable',
  ];
  return {
    async prepare(raw, signal) {
      const i = await instanceIn(s, raw, any, signal);
      return { message: l10n.t('Destroying {0}…', instanceName(i)), confirmation: destroyConfirmation(i) };
    },
    async invoke(raw, signal) {
      const i = await instanceIn(s, raw, any, signal);
      const end = await destroyFlow(flowDeps(s.instances), i);
      if (end.kind === 'declined') return declinedText();
      const text = told(end.notice);
      if (!end.destroyed) throw toolErrors.refused(text);
      return text;
    },
  };
}

/**
 * The folder an upload may send: a workspace folder or one inside it, never a path elsewhere on
 * this machine (a model must not send ~/.ssh). Links are followed before the check.
 */
async function workspaceFolder(given: string | undefined): Promise<string> {
  const roots = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  if (roots.length === 0)
    throw new ToolError(l10n.t('No folder is open in this window, so there is nothing to upload. Ask the person to open one.'));
  const wanted = given === undefined ? roots[0]! : path.resolve(roots[0]!, given);
  const real = await realpath(wanted).catch(() => {
    throw new ToolError(l10n.t('The folder {0} does not exist. Name a folder of the workspace.', visibleText(wanted, 200)));
  });
  for (const root of roots) {
    const inside = path.relative(await realpath(root).catch(() => root), real);
    if (inside === '' || (!inside.startsWith('..') && !path.isAbsolute(inside))) return real;
  }
  throw new ToolError(l10n.t('Only a workspace folder or a folder inside one can be uploaded; {0} is outside.', visibleText(wanted, 200)));
}

/** Upload Folder: the command's flow (its progress, its Retry) to the instance's transfer folder. */
export function uploadFolderTool(s: AgentDeps): ToolBody {
  return {
    async prepare(raw, signal) {
      const input = readUploadInput(raw);
      const folder = await workspaceFolder(input.folder);
      const i = await instanceIn(s, raw, ['running'], signal);
      return { message: l10n.t('Uploading {0}…', visibleText(folder, 100)), confirmation: uploadConfirmation(i, folder) };
    },
    async invoke(raw, signal) {
      const input = readUploadInput(raw);
      const folder = await workspaceFolder(input.folder);
      const i = await instanceIn(s, raw, ['running'], signal);
      const remote = await uploadFolder(s.transfer, i.id, { localDir: folder });
      if (remote === undefined)
        throw new ToolError(
          l10n.t('The upload to {0} did not complete; GPU Rental told the person why. Try again once they agree.', instanceName(i)),
        );
      return l10n.t('Uploaded {0} to {1}: it is in {2} there.', visibleText(folder, 200), instanceName(i), visibleText(remote, 200));
    },
  };
}

/** Run on Instance: the command's flow with the command and its answers given (what is not given is asked). */
export function runJobTool(s: AgentDeps): ToolBody {
  return {
    async prepare(raw, signal) {
      const input = readRunJobInput(raw);
      const i = await instanceIn(s, raw, ['running'], signal);
      return { message: l10n.t('Starting a job on {0}…', instanceName(i)), confirmation: runJobConfirmation(i, input) };
    },
    async invoke(raw, signal) {
      const input = readRunJobInput(raw);
      const i = await instanceIn(s, raw, ['running'], signal);
      const started = await runJob(s.jobCommands, i.id, {
        command: input.command,
        uploadFirst: input.uploadFirst,
        stopAtEnd: input.stopAtEnd,
      });
      if (!started) return declinedText();
      return l10n.t(
        'Started job {0} on {1}. Read its status and output with gpuRental_jobOutput (instanceId {2}, jobId {0}).',
        visibleText(started.jobId, 60),
        instanceName(i),
        i.id,
      );
    },
  };
}
