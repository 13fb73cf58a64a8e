import * as vscode from 'vscode';
import type { EndpointFields, WorkerGroupFields } from '../../core/api/serverless';
import {
  createEndpoint,
  createWorkerGroup,
  deleteEndpoint,
  deleteWorkerGroup,
  updateEndpoint,
  updateWorkerGroup,
  type ServerlessFlowDeps,
} from '../../core/account/serverlessFlows';
import { readServerlessLog, showWorkers, type ServerlessTarget } from '../../core/account/serverlessWorkers';
import { COMMANDS } from '../../core/ids';
import { asker } from '../pickers/prompts';
import { showProgress } from '../pickers/progress';
import { EndpointItem, WorkerGroupItem } from '../views/account/serverlessItems';
import { shownWith, type AccountAreaDeps } from './accountDeps';
import { notify } from '../pickers/notify';
import { command, type CommandDefinition } from '../registry';

type Row = EndpointItem | WorkerGroupItem;
const LOG_LINES = 1000;

/**
 * Serverless endpoints and their worker groups: create, update the autoscaling fields, delete
 * (confirmed); their workers and logs. Decided in core/account/serverlessFlows.ts and serverlessWorkers.ts.
 */
export function serverlessCommands(s: AccountAreaDeps): CommandDefinition[] {
  const deps = (): ServerlessFlowDeps => ({ ask: asker(s.prompts()), serverless: s.session.client.serverless });
  const shown = shownWith(s);
  const endpoint = (t?: EndpointItem | number) => (t instanceof EndpointItem ? t.endpoint : t);
  const group = (t?: WorkerGroupItem | number) => (t instanceof WorkerGroupItem ? t.group : t);
  return [
    command(COMMANDS.createEndpoint, (fields?: EndpointFields) => shown(createEndpoint(deps(), fields))),
    command(COMMANDS.updateEndpoint, (t?: EndpointItem | number, fields?: Partial<EndpointFields>) =>
      shown(updateEndpoint(deps(), endpoint(t), fields)),
    ),
    command(COMMANDS.deleteEndpoint, (t?: EndpointItem | number) => shown(deleteEndpoint(deps(), endpoint(t)))),
    command(COMMANDS.createWorkerGroup, (t?: EndpointItem | number, fields?: WorkerGroupFields) =>
      shown(createWorkerGroup(deps(), endpoint(t), fields)),
    ),
    command(COMMANDS.updateWorkerGroup, (t?: WorkerGroupItem | number, fields?: Partial<WorkerGroupFields>) =>
      shown(updateWorkerGroup(deps(), group(t), fields)),
    ),
    command(COMMANDS.deleteWorkerGroup, (t?: WorkerGroupItem | number) => shown(deleteWorkerGroup(deps(), group(t)))),
    command(COMMANDS.showServerlessWorkers, (t?: Row | number | { group: number }) => workers(deps(), target(t))),
    command(COMMANDS.showServerlessLogs, (t?: Row | number | { group: number }, tail?: number) => logs(deps(), target(t), tail)),
  ];
}

/** A row as the core's target; ids (automation) pass as they are. */
function target(t: Row | number | { group: number } | undefined): ServerlessTarget | undefined {
  if (t instanceof EndpointItem) return { kind: 'endpoint', endpoint: t.endpoint };
  if (t instanceof WorkerGroupItem) return { kind: 'group', group: t.group };
  return t;
}

/** Shows the workers; copies the URL of the one picked. Resolves with the workers. */
async function workers(d: ServerlessFlowDeps, t: ServerlessTarget | undefined) {
  const { value, notice } = await showWorkers(d, t);
  if (value?.copy) await vscode.env.clipboard.writeText(value.copy);
  void notify(notice);
  return value?.workers;
}

/** Opens the last lines of a log in an editor (untitled, nothing saved). Resolves with the text. */
async function logs(d: ServerlessFlowDeps, t: ServerlessTarget | undefined, tail = LOG_LINES): Promise<string | undefined> {
  const { value, notice } = await readServerlessLog(
    {
      ...d,
      progress: showProgress,
      readAt: () => new Date().toLocaleString(),
    },
    t,
    tail,
  );
  void notify(notice);
  if (!value) return undefined;
  const doc = await vscode.workspace.openTextDocument({ language: 'log', content: value.document });
  await vscode.window.showTextDocument(doc, { preview: true });
  return value.text;
}
