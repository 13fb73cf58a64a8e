/**
 * Sync with Cloud Storage, decided: which way, which of the account's cloud connections (none: say
 * where to add one), the two paths, then the service's sync started and followed (serviceCopy.ts).
 * The UI picks the instance and shows the result.
 */
import type { CloudConnection, CloudDirection } from '../api/copy';
import type { Instance } from '../api/instances';
import { instanceName } from '../instances/names';
import { l10n } from '../l10n';
import {
  askInstancePath,
  bucketPathProblem,
  instancePathProblem,
  startAndFollow,
  statusBefore,
  type ServiceCopyDeps,
  type ServiceCopyResult,
} from './serviceCopy';

export interface CloudSyncArgs {
  direction?: CloudDirection;
  connectionId?: number;
  src?: string;
  dst?: string;
}

/**
 * Asks what `args` leaves out and syncs the running `instance` with cloud storage. Undefined when
 * the user dismissed a question. Throws when automation names a connection the account lacks.
 */
export async function cloudSyncFlow(d: ServiceCopyDeps, instance: Instance, args: CloudSyncArgs): Promise<ServiceCopyResult | undefined> {
  const direction = args.direction ?? (await pickDirection(d, instance));
  if (!direction) return undefined;
  const connections = await d.copy.cloudConnections();
  if (connections.length === 0) return noConnection(d, instance);
  const connection =
    args.connectionId !== undefined ? connections.find((c) => c.id === args.connectionId) : await pickConnection(d, connections);
  if (!connection) {
    if (args.connectionId !== undefined)
      throw new Error(l10n.t('The account has no cloud connection {0}; pick one of its connections.', args.connectionId));
    return undefined;
  }
  const paths = await syncPaths(d, instance, direction, connectionName(connection), args);
  if (!paths) return undefined;
  const { src, dst, bucket, toCloud } = paths;
  const what = toCloud
    ? l10n.t('the sync of {0} on {1} to {2} in {3}', src, instanceName(instance), dst, bucket)
    : l10n.t('the sync of {0} in {1} to {2} on {3}', src, bucket, dst, instanceName(instance));
  return startAndFollow(d, {
    title: toCloud ? l10n.t('sending {0} to {1}', src, bucket) : l10n.t('fetching {0} from {1}', src, bucket),
    what,
    dst: instance,
    before: await statusBefore(d, instance),
    start: () => d.copy.cloudSync({ instanceId: instance.id, connectionId: connection.id, direction, src, dst }),
    cancel: () => d.copy.cancelCloudSync(instance.id),
  });
}

/** The source and the destination, each on the instance or in the bucket as the direction says; undefined when dismissed. */
async function syncPaths(
  d: ServiceCopyDeps,
  instance: Instance,
  direction: CloudDirection,
  bucket: string,
  args: CloudSyncArgs,
): Promise<{ src: string; dst: string; bucket: string; toCloud: boolean } | undefined> {
  const toCloud = direction === 'Instance To Cloud';
  const title = l10n.t('GPU Rental: sync with {0}', bucket);
  const onInstance = (value: string | undefined, prompt: () => string) =>
    value !== undefined ? checked(value, instancePathProblem) : askInstancePath(d, title, prompt());
  const inBucket = (value: string | undefined, prompt: () => string) =>
    value !== undefined ? checked(value, bucketPathProblem) : askBucketPath(d, title, prompt());
  const src = await (toCloud
    ? onInstance(args.src, () => l10n.t('The folder on {0} to send.', instanceName(instance)))
    : inBucket(args.src, () => l10n.t('The folder in {0} to fetch.', bucket)));
  if (src === undefined) return undefined;
  const dst = await (toCloud
    ? inBucket(args.dst, () => l10n.t('Where in {0} to put it.', bucket))
    : onInstance(args.dst, () => l10n.t('Where on {0} to put it.', instanceName(instance))));
  return dst === undefined ? undefined : { src, dst, bucket, toCloud };
}

function checked(value: string, problem: (v: string) => string | undefined): Promise<string | undefined> {
  return Promise.resolve(problem(value) ? undefined : value.trim());
}

async function askBucketPath(d: ServiceCopyDeps, title: string, prompt: string): Promise<string | undefined> {
  const value = await d.ask.input({ title, prompt, placeholder: 'folder/in/storage/', validate: bucketPathProblem });
  return value === undefined || bucketPathProblem(value) ? undefined : value.trim();
}

async function pickDirection(d: ServiceCopyDeps, instance: Instance): Promise<CloudDirection | undefined> {
  return d.ask.pick<CloudDirection>({
    title: l10n.t('GPU Rental: sync with cloud storage'),
    placeholder: l10n.t('Which way'),
    items: [
      {
        label: l10n.t('Instance → Cloud'),
        description: l10n.t('send a folder of {0} to cloud storage', instanceName(instance)),
        value: 'Instance To Cloud',
      },
      {
        label: l10n.t('Cloud → Instance'),
        description: l10n.t('fetch a folder from cloud storage onto {0}', instanceName(instance)),
        value: 'Cloud To Instance',
      },
    ],
  });
}

/** A connection's name, or its number when it has none. */
export function connectionName(c: CloudConnection): string {
  return c.name?.trim() || l10n.t('cloud connection {0}', c.id);
}

/** The only connection, or the one the user picks. */
async function pickConnection(d: ServiceCopyDeps, connections: readonly CloudConnection[]): Promise<CloudConnection | undefined> {
  if (connections.length === 1) return connections[0];
  return d.ask.pick({
    title: l10n.t('GPU Rental: sync with which cloud connection?'),
    placeholder: l10n.t("The account's cloud connections"),
    items: connections.map((c) => ({
      label: connectionName(c),
      description: [c.cloud_type, `#${c.id}`].filter(Boolean).join(' · '),
      value: c,
    })),
  });
}

/** No connection yet: they are added in the service's console, whose address is the session's base URL. */
function noConnection(d: ServiceCopyDeps, instance: Instance): ServiceCopyResult {
  const consoleUrl = d.baseUrl && URL.canParse(d.baseUrl) ? new URL('/account/', d.baseUrl).toString() : undefined;
  const message = l10n.t(
    'GPU Rental: the account has no cloud connection. Add one in the web console under Account → Cloud Connections, then sync again.',
  );
  return {
    outcome: 'noConnection',
    notice: { severity: 'info', text: message, actions: consoleUrl ? ['openConsole'] : [] },
    instanceId: instance.id,
    ...(consoleUrl ? { consoleUrl } : {}),
  };
}
