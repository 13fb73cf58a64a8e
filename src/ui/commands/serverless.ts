import * as vscode from 'vscode';
import type { Endpoint, EndpointFields, ServerlessWorker, WorkerGroup, WorkerGroupFields } from '../../core/api/serverless';
import { COMMANDS } from '../../core/ids';
import type { AccountAreaDeps } from './accountDeps';
import { workerSummary } from '../../core/account/present';
import { serverlessFieldBox } from '../../core/account/serverless';
import { boxProblem, boxValue, decimalText } from '../../core/numbers';
import { EndpointItem, WorkerGroupItem } from '../views/account/serverlessItems';
import { command, type CommandDefinition } from './registry';

/** The autoscaling settings shared by endpoints and worker groups, as the user edits them. */
const SCALING_FIELDS = [
  { key: 'cold_workers', label: vscode.l10n.t('Minimum workers (kept warm)') },
  { key: 'max_workers', label: vscode.l10n.t('Maximum workers') },
  { key: 'target_util', label: vscode.l10n.t('Target utilisation (0-1)') },
  { key: 'min_load', label: vscode.l10n.t('Minimum load') },
  { key: 'cold_mult', label: vscode.l10n.t('Cold multiplier') },
] as const;
const ENDPOINT_FIELDS = [
  ...SCALING_FIELDS,
  { key: 'max_queue_time', label: vscode.l10n.t('Maximum queue time (s)') },
  { key: 'target_queue_time', label: vscode.l10n.t('Target queue time (s)') },
  { key: 'inactivity_timeout', label: vscode.l10n.t('Inactivity timeout (s)') },
] as const;
const GROUP_FIELDS = [
  ...SCALING_FIELDS,
  { key: 'gpu_ram', label: vscode.l10n.t('GPU RAM (GB)') },
  { key: 'test_workers', label: vscode.l10n.t('Test workers') },
] as const;

/** Serverless endpoints and their worker groups: create, update the autoscaling fields, delete (confirmed); their workers and logs. */
export function serverlessCommands(s: AccountAreaDeps): CommandDefinition[] {
  return [
    command(COMMANDS.createEndpoint, (fields?: EndpointFields) => createEndpoint(s, fields)),
    command(COMMANDS.updateEndpoint, (t?: EndpointItem | number, fields?: Partial<EndpointFields>) => updateEndpoint(s, t, fields)),
    command(COMMANDS.deleteEndpoint, (t?: EndpointItem | number) => deleteEndpoint(s, t)),
    command(COMMANDS.createWorkerGroup, (t?: EndpointItem | number, fields?: WorkerGroupFields) => createWorkerGroup(s, t, fields)),
    command(COMMANDS.updateWorkerGroup, (t?: WorkerGroupItem | number, fields?: Partial<WorkerGroupFields>) =>
      updateWorkerGroup(s, t, fields),
    ),
    command(COMMANDS.deleteWorkerGroup, (t?: WorkerGroupItem | number) => deleteWorkerGroup(s, t)),
    command(COMMANDS.showServerlessWorkers, (t?: ServerlessTarget) => showWorkers(s, t)),
    command(COMMANDS.showServerlessLogs, (t?: ServerlessTarget, tail?: number) => showLogs(s, t, tail)),
  ];
}

/** Asks which field to change and its new number; undefined when cancelled. */
async function askField(
  title: string,
  fields: ReadonlyArray<{ key: string; label: string }>,
  current: Record<string, unknown>,
): Promise<Record<string, number> | undefined> {
  const field = await vscode.window.showQuickPick(
    fields.map((f) => ({ label: f.label, description: String(current[f.key] ?? ''), key: f.key })),
    { title },
  );
  if (!field) return undefined;
  const box = serverlessFieldBox(field.key);
  const now = current[field.key];
  const value = await vscode.window.showInputBox({
    title: `${title}: ${field.label}`,
    value: typeof now === 'number' ? decimalText(now) : '',
    validateInput: (v) => boxProblem(v, box),
  });
  return value === undefined ? undefined : { [field.key]: boxValue(value, box) };
}

async function pickEndpoint(s: AccountAreaDeps, t: EndpointItem | number | undefined, title: string) {
  const endpoints = await s.session.client.serverless.listEndpoints();
  if (t instanceof EndpointItem) return t.endpoint;
  if (typeof t === 'number') return endpoints.find((e) => e.id === t);
  return (
    await vscode.window.showQuickPick(
      endpoints.map((e) => ({ label: e.endpoint_name, description: `id ${e.id}`, e })),
      { title },
    )
  )?.e;
}

async function pickGroup(s: AccountAreaDeps, t: WorkerGroupItem | number | undefined, title: string) {
  const groups = await s.session.client.serverless.listWorkerGroups();
  if (t instanceof WorkerGroupItem) return t.group;
  if (typeof t === 'number') return groups.find((g) => g.id === t);
  return (
    await vscode.window.showQuickPick(
      groups.map((g) => ({ label: vscode.l10n.t('worker group {0}', g.id), description: g.endpoint_name ?? '', g })),
      { title },
    )
  )?.g;
}

async function createEndpoint(s: AccountAreaDeps, given: EndpointFields | undefined): Promise<number | undefined> {
  let fields = given;
  if (!fields) {
    const name = (
      await vscode.window.showInputBox({
        title: vscode.l10n.t('GPU Rental: New serverless endpoint'),
        prompt: vscode.l10n.t('Endpoint name'),
        validateInput: (v) => (/^[\w.-]+$/.test(v.trim()) ? undefined : vscode.l10n.t('Letters, digits, dot, dash and underscore.')),
      })
    )?.trim();
    if (!name) return undefined;
    const maxBox = serverlessFieldBox('max_workers');
    const max = await vscode.window.showInputBox({
      title: vscode.l10n.t('GPU Rental: {0}: maximum workers', name),
      value: '3',
      validateInput: (v) => boxProblem(v, maxBox),
    });
    if (max === undefined) return undefined;
    fields = { endpoint_name: name, max_workers: boxValue(max, maxBox), cold_workers: 0, target_util: 0.9, min_load: 1, cold_mult: 2.5 };
  }
  const id = await s.session.client.serverless.createEndpoint(fields);
  s.accountView.refresh();
  void vscode.window.showInformationMessage(
    vscode.l10n.t(
      'GPU Rental: created endpoint "{0}". Add a worker group to give it workers; workers bill like instances.',
      fields.endpoint_name,
    ),
  );
  return id;
}

async function updateEndpoint(
  s: AccountAreaDeps,
  t: EndpointItem | number | undefined,
  given: Partial<EndpointFields> | undefined,
): Promise<boolean> {
  const endpoint = await pickEndpoint(s, t, vscode.l10n.t('GPU Rental: Update which endpoint?'));
  if (!endpoint) return false;
  const fields = given ?? (await askField(vscode.l10n.t('GPU Rental: {0}', endpoint.endpoint_name), ENDPOINT_FIELDS, endpoint));
  if (!fields) return false;
  await s.session.client.serverless.updateEndpoint(endpoint.id, fields);
  s.accountView.refresh();
  return true;
}

async function deleteEndpoint(s: AccountAreaDeps, t: EndpointItem | number | undefined): Promise<boolean> {
  const endpoint = await pickEndpoint(s, t, vscode.l10n.t('GPU Rental: Delete which endpoint?'));
  if (!endpoint) return false;
  const ok = await s
    .prompts()
    .confirm(
      vscode.l10n.t('Delete endpoint "{0}"?', endpoint.endpoint_name),
      vscode.l10n.t('Its worker groups are deleted with it and its workers stop. Requests to it fail from now on.'),
      vscode.l10n.t('Delete Endpoint'),
    );
  if (!ok) return false;
  await s.session.client.serverless.deleteEndpoint(endpoint.id);
  s.accountView.refresh();
  return true;
}

async function createWorkerGroup(
  s: AccountAreaDeps,
  t: EndpointItem | number | undefined,
  given: WorkerGroupFields | undefined,
): Promise<number | undefined> {
  const endpoint = await pickEndpoint(s, t, vscode.l10n.t('GPU Rental: Add a worker group to which endpoint?'));
  if (!endpoint) return undefined;
  let fields = given;
  if (!fields) {
    const template = (
      await vscode.window.showInputBox({
        title: vscode.l10n.t('GPU Rental: {0}: worker template', endpoint.endpoint_name),
        prompt: vscode.l10n.t('The hash of the template its workers run (see Templates)'),
      })
    )?.trim();
    if (!template) return undefined;
    const query = await vscode.window.showInputBox({
      title: vscode.l10n.t('GPU Rental: {0}: which machines', endpoint.endpoint_name),
      prompt: vscode.l10n.t('An offer query, as in the offers search'),
      value: 'gpu_ram>=24 verified=true rentable=true',
    });
    if (query === undefined) return undefined;
    fields = { template_hash: template, search_params: query, test_workers: 1, cold_workers: 0, max_workers: endpoint.max_workers ?? 3 };
  }
  const id = await s.session.client.serverless.createWorkerGroup({
    ...fields,
    endpoint_id: endpoint.id,
    endpoint_name: endpoint.endpoint_name,
  });
  s.accountView.refresh();
  return id;
}

async function updateWorkerGroup(
  s: AccountAreaDeps,
  t: WorkerGroupItem | number | undefined,
  given: Partial<WorkerGroupFields> | undefined,
): Promise<boolean> {
  const group = await pickGroup(s, t, vscode.l10n.t('GPU Rental: Update which worker group?'));
  if (!group) return false;
  const fields = given ?? (await askField(vscode.l10n.t('GPU Rental: worker group {0}', group.id), GROUP_FIELDS, group));
  if (!fields) return false;
  await s.session.client.serverless.updateWorkerGroup(group.id, fields);
  s.accountView.refresh();
  return true;
}

async function deleteWorkerGroup(s: AccountAreaDeps, t: WorkerGroupItem | number | undefined): Promise<boolean> {
  const group = await pickGroup(s, t, vscode.l10n.t('GPU Rental: Delete which worker group?'));
  if (!group) return false;
  const ok = await s
    .prompts()
    .confirm(
      group.endpoint_name
        ? vscode.l10n.t('Delete worker group {0} of "{1}"?', group.id, group.endpoint_name)
        : vscode.l10n.t('Delete worker group {0}?', group.id),
      vscode.l10n.t('Its workers stop and the endpoint no longer scales onto these machines.'),
      vscode.l10n.t('Delete Worker Group'),
    );
  if (!ok) return false;
  await s.session.client.serverless.deleteWorkerGroup(group.id);
  s.accountView.refresh();
  return true;
}

/** An endpoint or a worker group, from the view, or by id for automation (`{ group: id }` for a group). */
type ServerlessTarget = EndpointItem | WorkerGroupItem | number | { group: number };
type Resolved = { kind: 'endpoint'; endpoint: Endpoint } | { kind: 'group'; group: WorkerGroup };

const LOG_LINES = 1000;

async function pickServerless(s: AccountAreaDeps, t: ServerlessTarget | undefined, title: string): Promise<Resolved | undefined> {
  if (t instanceof EndpointItem) return { kind: 'endpoint', endpoint: t.endpoint };
  if (t instanceof WorkerGroupItem) return { kind: 'group', group: t.group };
  if (typeof t === 'number') {
    const endpoint = await pickEndpoint(s, t, '');
    return endpoint && { kind: 'endpoint', endpoint };
  }
  if (t) {
    const group = await pickGroup(s, t.group, '');
    return group && { kind: 'group', group };
  }
  const client = s.session.client.serverless;
  const [endpoints, groups] = await Promise.all([client.listEndpoints(), client.listWorkerGroups()]);
  const items = [
    ...endpoints.map((e) => ({
      label: `$(cloud) ${e.endpoint_name}`,
      description: vscode.l10n.t('endpoint {0}', e.id),
      value: { kind: 'endpoint', endpoint: e } as Resolved,
    })),
    ...groups.map((g) => ({
      label: vscode.l10n.t('$(server-process) worker group {0}', g.id),
      description: g.endpoint_name ?? '',
      value: { kind: 'group', group: g } as Resolved,
    })),
  ];
  if (items.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('GPU Rental: there are no serverless endpoints yet. Create one first.'));
    return undefined;
  }
  return (await vscode.window.showQuickPick(items, { title }))?.value;
}

function nameOf(r: Resolved): string {
  return r.kind === 'endpoint' ? `endpoint "${r.endpoint.endpoint_name}"` : vscode.l10n.t('worker group {0}', r.group.id);
}

/** Lists the workers in a quick pick; picking one copies its URL. Resolves with the workers. */
async function showWorkers(s: AccountAreaDeps, t: ServerlessTarget | undefined): Promise<ServerlessWorker[] | undefined> {
  const target = await pickServerless(s, t, vscode.l10n.t('GPU Rental: Show the workers of…'));
  if (!target) return undefined;
  const client = s.session.client.serverless;
  const workers =
    target.kind === 'endpoint' ? await client.endpointWorkers(target.endpoint.id) : await client.workerGroupWorkers(target.group.id);
  // An id (not a tree item) comes from automation, which reads the result and needs no pick.
  if (t !== undefined && !(t instanceof vscode.TreeItem)) return workers;
  if (workers.length === 0) {
    void vscode.window.showInformationMessage(
      vscode.l10n.t('GPU Rental: {0} has no workers now; the autoscaler starts them as load needs.', nameOf(target)),
    );
    return workers;
  }
  const pick = await vscode.window.showQuickPick(
    workers.map((w) => ({ label: vscode.l10n.t('worker #{0}', w.id), description: workerSummary(w), detail: w.url ?? undefined, w })),
    {
      title: vscode.l10n.t('GPU Rental: workers of {0} ({1})', nameOf(target), workers.length),
      placeHolder: vscode.l10n.t('Pick one to copy its URL'),
    },
  );
  if (pick?.w.url) {
    await vscode.env.clipboard.writeText(pick.w.url);
    void vscode.window.showInformationMessage(vscode.l10n.t('GPU Rental: copied {0}.', pick.w.url));
  }
  return workers;
}

/** Opens the last lines of an endpoint's or a worker group's log in an editor (untitled, nothing saved). Resolves with the text. */
async function showLogs(s: AccountAreaDeps, t: ServerlessTarget | undefined, tail = LOG_LINES): Promise<string | undefined> {
  const target = await pickServerless(s, t, vscode.l10n.t('GPU Rental: Show the logs of…'));
  if (!target) return undefined;
  const client = s.session.client.serverless;
  const text = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: vscode.l10n.t('GPU Rental: reading the logs of {0}…', nameOf(target)) },
    () =>
      target.kind === 'endpoint'
        ? client.endpointLogs({ id: target.endpoint.id, name: target.endpoint.endpoint_name }, tail)
        : client.workerGroupLogs(target.group.id, tail),
  );
  const body = text.trim() ? text : vscode.l10n.t('(the log is empty so far)');
  const doc = await vscode.workspace.openTextDocument({
    language: 'log',
    content: `# ${nameOf(target)}: the last ${tail} lines, read ${new Date().toLocaleString()}\n${body}`,
  });
  await vscode.window.showTextDocument(doc, { preview: true });
  return text;
}
