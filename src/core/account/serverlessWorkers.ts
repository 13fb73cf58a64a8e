/**
 * The workers and the logs of a serverless endpoint or worker group, as core flows: which one (a
 * row's, by id for automation, or picked from both lists), the rows of its workers, and the text of
 * its log as the editor shows it.
 */
import type { Endpoint, ServerlessWorker, WorkerGroup } from '../api/serverless';
import { l10n } from '../l10n';
import type { Progress } from '../progress';
import { info, type Outcome } from './notice';
import { workerSummary } from './present';
import { endpointOf, groupOf, type ServerlessFlowDeps } from './serverlessFlows';

/** An endpoint or a worker group, resolved. */
export type ServerlessPick = { kind: 'endpoint'; endpoint: Endpoint } | { kind: 'group'; group: WorkerGroup };
/** A row's (resolved), or by id for automation: a number is an endpoint, `{ group: id }` a worker group. */
export type ServerlessTarget = ServerlessPick | number | { group: number };

const isPick = (t: ServerlessTarget): t is ServerlessPick => typeof t === 'object' && 'kind' in t;

/** The one named, or picked from the endpoints and worker groups; a notice when the account has neither. */
export async function serverlessTarget(
  d: ServerlessFlowDeps,
  given: ServerlessTarget | undefined,
  title: string,
): Promise<Outcome<ServerlessPick | undefined>> {
  if (given !== undefined && isPick(given)) return { value: given };
  if (typeof given === 'number') {
    const endpoint = await endpointOf(d, given, '');
    return { value: endpoint && { kind: 'endpoint', endpoint } };
  }
  if (given) {
    const group = await groupOf(d, given.group, '');
    return { value: group && { kind: 'group', group } };
  }
  const [endpoints, groups] = await Promise.all([d.serverless.listEndpoints(), d.serverless.listWorkerGroups()]);
  const items = [
    ...endpoints.map((e) => ({
      label: `$(cloud) ${e.endpoint_name}`,
      description: l10n.t('endpoint {0}', e.id),
      value: { kind: 'endpoint', endpoint: e } as ServerlessPick,
    })),
    ...groups.map((g) => ({
      label: l10n.t('$(server-process) worker group {0}', g.id),
      description: g.endpoint_name ?? '',
      value: { kind: 'group', group: g } as ServerlessPick,
    })),
  ];
  if (items.length === 0)
    return { value: undefined, notice: info(l10n.t('GPU Rental: there are no serverless endpoints yet. Create one first.')) };
  return { value: await d.ask.pick({ title, items }) };
}

/** The first line of the log's editor: what it is, how many lines, when it was read. */
function heading(r: ServerlessPick, tail: number, readAt: string): string {
  return r.kind === 'endpoint'
    ? l10n.t('# endpoint "{0}": the last {1} lines, read {2}', r.endpoint.endpoint_name, tail, readAt)
    : l10n.t('# worker group {0}: the last {1} lines, read {2}', r.group.id, tail, readAt);
}

/** What the user picked, and the URL to copy when they picked a worker that has one. */
export interface WorkersShown {
  workers: ServerlessWorker[];
  copy?: string;
}

/**
 * The workers of an endpoint or group. Automation (an id) gets them without a pick; otherwise they
 * are offered in a pick, and the one picked has its URL copied (the notice says so).
 */
export async function showWorkers(d: ServerlessFlowDeps, given?: ServerlessTarget): Promise<Outcome<WorkersShown | undefined>> {
  const target = await serverlessTarget(d, given, l10n.t('GPU Rental: Show the workers of…'));
  const r = target.value;
  if (!r) return { value: undefined, notice: target.notice };
  const workers =
    r.kind === 'endpoint' ? await d.serverless.endpointWorkers(r.endpoint.id) : await d.serverless.workerGroupWorkers(r.group.id);
  if (given !== undefined && !isPick(given)) return { value: { workers } };
  if (workers.length === 0) return { value: { workers }, notice: info(noWorkers(r)) };
  const picked = await d.ask.pick({
    title:
      r.kind === 'endpoint'
        ? l10n.t('GPU Rental: workers of endpoint "{0}" ({1})', r.endpoint.endpoint_name, workers.length)
        : l10n.t('GPU Rental: workers of worker group {0} ({1})', r.group.id, workers.length),
    placeholder: l10n.t('Pick one to copy its URL'),
    items: workers.map((w) => ({
      label: l10n.t('worker #{0}', w.id),
      description: workerSummary(w),
      detail: w.url ?? undefined,
      value: w,
    })),
  });
  if (!picked?.url) return { value: { workers } };
  return { value: { workers, copy: picked.url }, notice: info(l10n.t('GPU Rental: copied {0}.', picked.url)) };
}

function noWorkers(r: ServerlessPick): string {
  return r.kind === 'endpoint'
    ? l10n.t('GPU Rental: endpoint "{0}" has no workers now; the autoscaler starts them as load needs.', r.endpoint.endpoint_name)
    : l10n.t('GPU Rental: worker group {0} has no workers now; the autoscaler starts them as load needs.', r.group.id);
}

export interface ServerlessLogDeps extends ServerlessFlowDeps {
  /** Shows the read's progress, quietly (it cannot be cancelled). */
  readonly progress: Progress;
  /** When the log is read, as the heading shows it (local time). */
  readonly readAt: () => string;
}

/** A log read: the service's text, and the whole document the editor opens (a heading, then the text). */
export interface LogShown {
  text: string;
  document: string;
}

/** Reads the last `tail` lines of an endpoint's or a worker group's log. */
export async function readServerlessLog(
  d: ServerlessLogDeps,
  given: ServerlessTarget | undefined,
  tail: number,
): Promise<Outcome<LogShown | undefined>> {
  const target = await serverlessTarget(d, given, l10n.t('GPU Rental: Show the logs of…'));
  const r = target.value;
  if (!r) return { value: undefined, notice: target.notice };
  const text =
    r.kind === 'endpoint'
      ? await d.progress(
          l10n.t('reading the logs of endpoint "{0}"…', r.endpoint.endpoint_name),
          () => d.serverless.endpointLogs({ id: r.endpoint.id, name: r.endpoint.endpoint_name }, tail),
          { cancellable: false, quiet: true },
        )
      : await d.progress(
          l10n.t('reading the logs of worker group {0}…', r.group.id),
          () => d.serverless.workerGroupLogs(r.group.id, tail),
          {
            cancellable: false,
            quiet: true,
          },
        );
  const body = text.trim() ? text : l10n.t('(the log is empty so far)');
  return { value: { text, document: `${heading(r, tail, d.readAt())}\n${body}` } };
}
