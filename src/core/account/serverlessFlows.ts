/**
 * Serverless endpoints and their worker groups as core flows: create, update one autoscaling field,
 * delete after a confirmation. What the user is asked, in what order, and what each box takes.
 */
import type { Endpoint, EndpointFields, ServerlessApi, WorkerGroup, WorkerGroupFields } from '../api/serverless';
import { l10n } from '../l10n';
import { boxProblem, boxValue, decimalText } from '../numbers';
import type { Ask } from '../prompts';
import { info, type Outcome } from './notice';
import { serverlessFieldBox } from './serverless';

export interface ServerlessFlowDeps {
  readonly ask: Ask;
  readonly serverless: Pick<
    ServerlessApi,
    | 'listEndpoints'
    | 'createEndpoint'
    | 'updateEndpoint'
    | 'deleteEndpoint'
    | 'listWorkerGroups'
    | 'createWorkerGroup'
    | 'updateWorkerGroup'
    | 'deleteWorkerGroup'
    | 'endpointWorkers'
    | 'workerGroupWorkers'
    | 'endpointLogs'
    | 'workerGroupLogs'
  >;
}

interface Field {
  key: string;
  label: string;
}

/** The autoscaling settings shared by endpoints and worker groups, as the user edits them. */
const scalingFields = (): Field[] => [
  { key: 'cold_workers', label: l10n.t('Minimum workers (kept warm)') },
  { key: 'max_workers', label: l10n.t('Maximum workers') },
  { key: 'target_util', label: l10n.t('Target utilisation (0-1)') },
  { key: 'min_load', label: l10n.t('Minimum load') },
  { key: 'cold_mult', label: l10n.t('Cold multiplier') },
];
const endpointFields = (): Field[] => [
  ...scalingFields(),
  { key: 'max_queue_time', label: l10n.t('Maximum queue time (s)') },
  { key: 'target_queue_time', label: l10n.t('Target queue time (s)') },
  { key: 'inactivity_timeout', label: l10n.t('Inactivity timeout (s)') },
];
const groupFields = (): Field[] => [
  ...scalingFields(),
  { key: 'gpu_ram', label: l10n.t('GPU RAM (GB)') },
  { key: 'test_workers', label: l10n.t('Test workers') },
];

/** Asks which field to change, then its new number (in that field's box); undefined when cancelled. */
async function askField(ask: Ask, title: string, fields: readonly Field[], current: object): Promise<Record<string, number> | undefined> {
  const values = current as Record<string, unknown>;
  const field = await ask.pick({
    title,
    items: fields.map((f) => ({ label: f.label, description: String(values[f.key] ?? ''), value: f })),
  });
  if (!field) return undefined;
  const box = serverlessFieldBox(field.key);
  const now = values[field.key];
  const value = await ask.input({
    title: `${title}: ${field.label}`,
    prompt: '',
    value: typeof now === 'number' ? decimalText(now) : '',
    validate: (v) => boxProblem(v, box),
  });
  if (value === undefined || boxProblem(value, box)) return undefined;
  return { [field.key]: boxValue(value, box) };
}

/** The endpoint given (a row's), by id, or picked from the account's. */
export async function endpointOf(
  d: ServerlessFlowDeps,
  given: Endpoint | number | undefined,
  title: string,
): Promise<Endpoint | undefined> {
  if (typeof given === 'object') return given;
  const endpoints = await d.serverless.listEndpoints();
  if (typeof given === 'number') return endpoints.find((e) => e.id === given);
  return d.ask.pick({ title, items: endpoints.map((e) => ({ label: e.endpoint_name, description: l10n.t('id {0}', e.id), value: e })) });
}

/** The worker group given (a row's), by id, or picked from the account's. */
export async function groupOf(
  d: ServerlessFlowDeps,
  given: WorkerGroup | number | undefined,
  title: string,
): Promise<WorkerGroup | undefined> {
  if (typeof given === 'object') return given;
  const groups = await d.serverless.listWorkerGroups();
  if (typeof given === 'number') return groups.find((g) => g.id === given);
  return d.ask.pick({
    title,
    items: groups.map((g) => ({ label: l10n.t('worker group {0}', g.id), description: g.endpoint_name ?? '', value: g })),
  });
}

/** Creates an endpoint (its name, then its maximum workers, unless given); resolves with its id. */
export async function createEndpoint(d: ServerlessFlowDeps, given?: EndpointFields): Promise<Outcome<number | undefined>> {
  const fields = given ?? (await askEndpoint(d.ask));
  if (!fields) return { value: undefined };
  const id = await d.serverless.createEndpoint(fields);
  return {
    value: id,
    notice: info(
      l10n.t(
        'GPU Rental: created endpoint "{0}". Add a worker group to give it workers; workers bill like instances.',
        fields.endpoint_name,
      ),
    ),
  };
}

async function askEndpoint(ask: Ask): Promise<EndpointFields | undefined> {
  const valid = (v: string) => /^[\w.-]+$/.test(v.trim());
  const typed = await ask.input({
    title: l10n.t('GPU Rental: New serverless endpoint'),
    prompt: l10n.t('Endpoint name'),
    validate: (v) => (valid(v) ? undefined : l10n.t('Letters, digits, dot, dash and underscore.')),
  });
  const name = typed?.trim();
  if (!name || !valid(name)) return undefined;
  const maxBox = serverlessFieldBox('max_workers');
  const max = await ask.input({
    title: l10n.t('GPU Rental: {0}: maximum workers', name),
    prompt: '',
    value: '3',
    validate: (v) => boxProblem(v, maxBox),
  });
  if (max === undefined || boxProblem(max, maxBox)) return undefined;
  return { endpoint_name: name, max_workers: boxValue(max, maxBox), cold_workers: 0, target_util: 0.9, min_load: 1, cold_mult: 2.5 };
}

/** Changes an endpoint's fields (given, or one picked and typed); resolves true when updated. */
export async function updateEndpoint(
  d: ServerlessFlowDeps,
  given?: Endpoint | number,
  fields?: Partial<EndpointFields>,
): Promise<Outcome<boolean>> {
  const endpoint = await endpointOf(d, given, l10n.t('GPU Rental: Update which endpoint?'));
  if (!endpoint) return { value: false };
  const changes = fields ?? (await askField(d.ask, l10n.t('GPU Rental: {0}', endpoint.endpoint_name), endpointFields(), endpoint));
  if (!changes) return { value: false };
  await d.serverless.updateEndpoint(endpoint.id, changes);
  return { value: true };
}

/** Deletes an endpoint after a confirmation; resolves true when deleted. */
export async function deleteEndpoint(d: ServerlessFlowDeps, given?: Endpoint | number): Promise<Outcome<boolean>> {
  const endpoint = await endpointOf(d, given, l10n.t('GPU Rental: Delete which endpoint?'));
  if (!endpoint) return { value: false };
  const ok = await d.ask.confirm(
    l10n.t('Delete endpoint "{0}"?', endpoint.endpoint_name),
    l10n.t('Its worker groups are deleted with it and its workers stop. Requests to it fail from now on.'),
    l10n.t('Delete Endpoint'),
  );
  if (!ok) return { value: false };
  await d.serverless.deleteEndpoint(endpoint.id);
  return { value: true };
}

/** Adds a worker group to an endpoint (its template, then its machines, unless given); resolves with its id. */
export async function createWorkerGroup(
  d: ServerlessFlowDeps,
  given?: Endpoint | number,
  fields?: WorkerGroupFields,
): Promise<Outcome<number | undefined>> {
  const endpoint = await endpointOf(d, given, l10n.t('GPU Rental: Add a worker group to which endpoint?'));
  if (!endpoint) return { value: undefined };
  const chosen = fields ?? (await askWorkerGroup(d.ask, endpoint));
  if (!chosen) return { value: undefined };
  const id = await d.serverless.createWorkerGroup({ ...chosen, endpoint_id: endpoint.id, endpoint_name: endpoint.endpoint_name });
  return { value: id };
}

async function askWorkerGroup(ask: Ask, endpoint: Endpoint): Promise<WorkerGroupFields | undefined> {
  const template = (
    await ask.input({
      title: l10n.t('GPU Rental: {0}: worker template', endpoint.endpoint_name),
      prompt: l10n.t('The hash of the template its workers run (see Templates)'),
    })
  )?.trim();
  if (!template) return undefined;
  const query = await ask.input({
    title: l10n.t('GPU Rental: {0}: which machines', endpoint.endpoint_name),
    prompt: l10n.t('An offer query, as in the offers search'),
    value: 'gpu_ram>=24 verified=true rentable=true',
  });
  if (query === undefined) return undefined;
  return { template_hash: template, search_params: query, test_workers: 1, cold_workers: 0, max_workers: endpoint.max_workers ?? 3 };
}

/** Changes a worker group's fields (given, or one picked and typed); resolves true when updated. */
export async function updateWorkerGroup(
  d: ServerlessFlowDeps,
  given?: WorkerGroup | number,
  fields?: Partial<WorkerGroupFields>,
): Promise<Outcome<boolean>> {
  const group = await groupOf(d, given, l10n.t('GPU Rental: Update which worker group?'));
  if (!group) return { value: false };
  const changes = fields ?? (await askField(d.ask, l10n.t('GPU Rental: worker group {0}', group.id), groupFields(), group));
  if (!changes) return { value: false };
  await d.serverless.updateWorkerGroup(group.id, changes);
  return { value: true };
}

/** Deletes a worker group after a confirmation; resolves true when deleted. */
export async function deleteWorkerGroup(d: ServerlessFlowDeps, given?: WorkerGroup | number): Promise<Outcome<boolean>> {
  const group = await groupOf(d, given, l10n.t('GPU Rental: Delete which worker group?'));
  if (!group) return { value: false };
  const ok = await d.ask.confirm(
    group.endpoint_name
      ? l10n.t('Delete worker group {0} of "{1}"?', group.id, group.endpoint_name)
      : l10n.t('Delete worker group {0}?', group.id),
    l10n.t('Its workers stop and the endpoint no longer scales onto these machines.'),
    l10n.t('Delete Worker Group'),
  );
  if (!ok) return { value: false };
  await d.serverless.deleteWorkerGroup(group.id);
  return { value: true };
}
