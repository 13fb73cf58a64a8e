/**
 * Download from Instance, decided: which remote path (browsed folder by folder, or typed), which
 * local folder, whether an existing copy is replaced, and what the end says; and, for Destroy, how
 * much the transfer folder holds and its download first. How the files go (rsync, else tar) is
 * decided by runner.ts's `download`. The UI hands in the folder dialog, the browser's quick pick
 * and the progress notification, and shows the outcome.
 */
import { basename, join } from 'node:path';
import type { Instance } from '../api/instances';
import { instanceName } from '../instances/names';
import { l10n } from '../l10n';
import type { Logger } from '../log';
import type { Progress } from '../progress';
import type { Ask } from '../prompts';
import type { SshTarget } from '../ssh/remote';
import { TransferError } from './errors';
import { errorText, failedTransfer, type TransferFailed, type TransferNotice } from './notices';
import { formatBytes, reportTransfer } from './progress';
import { checkRemotePath, remoteParent, type RemoteListing } from './remotePath';
import { download, listRemote, remoteSize, type DownloadResult } from './runner';
import { remotePathProblem } from './upload';

/** What the remote browser's quick pick answers: this folder, a folder to open (`..` included), a file, or "type a path". */
export type BrowsePick = { action: 'here' | 'open' | 'file'; path: string } | { action: 'type' };

/** What Download asks through and runs with. */
export interface DownloadFlowDeps {
  readonly ask: Ask;
  readonly logger: Logger;
  sshTarget(instance: Instance): Promise<SshTarget>;
  /** The transfer's progress, whose Cancel stops it (UI: a notification). */
  readonly progress: Progress;
  /** The local folder to download into: a folder dialog (UI). */
  pickDownloadFolder(): Promise<string | undefined>;
  /** The remote browser's quick pick over one listing (UI); undefined when dismissed. */
  pickRemote(view: {
    dir: string;
    parent: string | undefined;
    listing: RemoteListing;
    instance: Instance;
  }): Promise<BrowsePick | undefined>;
  /** Shows a notification and goes on. */
  notify(notice: TransferNotice<never>): void;
  /** The folder the browser starts in (the setting). */
  readonly transferFolder: string;
  /** runner.ts's download and listRemote; a test hands fakes. */
  readonly download?: typeof download;
  readonly listRemote?: typeof listRemote;
}

export interface DownloadArgs {
  remotePath?: string;
  localDir?: string;
}

export type DownloadOutcome =
  { readonly kind: 'downloaded'; readonly localPath: string; readonly notice: TransferNotice<'reveal'> } | TransferFailed<DownloadOutcome>;

/** Asks what is missing of `args` and downloads from the running `instance`. Undefined when the user dismissed a question. */
export async function downloadFlow(d: DownloadFlowDeps, instance: Instance, args: DownloadArgs): Promise<DownloadOutcome | undefined> {
  const target = await d.sshTarget(instance);
  const remotePath = args.remotePath ?? (await browseRemote(d, target, instance));
  if (remotePath === undefined) return undefined;
  return downloadInto(d, instance, target, remotePath, args.localDir);
}

/**
 * Downloads `remotePath` into a local folder (asked for when not given), asking before an existing
 * copy is replaced. Undefined when the user dismissed a question.
 */
export async function downloadInto(
  d: DownloadFlowDeps,
  instance: Instance,
  target: SshTarget,
  remotePath: string,
  localDir?: string,
): Promise<DownloadOutcome | undefined> {
  const into = localDir ?? (await d.pickDownloadFolder());
  if (!into) return undefined;
  const run = async (replace: boolean): Promise<DownloadOutcome | undefined> => {
    try {
      const result = await d.progress(l10n.t('downloading {0} from {1}', remotePath, instanceName(instance)), (task) =>
        (d.download ?? download)(target, { remotePath, localDir: into, replace }, reportTransfer(task)),
      );
      return downloaded(d, instance, remotePath, result);
    } catch (error) {
      if (error instanceof TransferError && error.fault === 'targetExists') {
        const ok = await d.ask.confirm(
          l10n.t('{0} exists already.', join(into, basename(remotePath))),
          l10n.t('Replace it with the download? The old copy is removed only once the new one has arrived completely.'),
          l10n.t('Replace'),
        );
        return ok ? run(true) : undefined;
      }
      return failedTransfer(d.logger, error, () => run(replace));
    }
  };
  return run(false);
}

function downloaded(d: DownloadFlowDeps, instance: Instance, remotePath: string, result: DownloadResult): DownloadOutcome {
  d.logger.info(
    `Downloaded ${remotePath} from #${instance.id} to ${result.localPath} (${formatBytes(result.bytesSent)}, ${result.method})`,
  );
  const message = result.notice
    ? l10n.t('GPU Rental: downloaded {0} from {1} to {2} ({3}).', remotePath, instanceName(instance), result.localPath, result.notice)
    : l10n.t('GPU Rental: downloaded {0} from {1} to {2}.', remotePath, instanceName(instance), result.localPath);
  return { kind: 'downloaded', localPath: result.localPath, notice: { severity: 'info', text: message, actions: ['reveal'] } };
}

/**
 * A folder browser over ssh, starting in the transfer folder: a folder opens, `..` goes up, a file
 * is picked, "Download this folder" picks the folder shown, "Type a path…" asks for one. A start
 * folder that does not exist is said, and the home folder shown instead.
 */
export async function browseRemote(d: DownloadFlowDeps, target: SshTarget, instance: Instance): Promise<string | undefined> {
  let dir = checkRemotePath(d.transferFolder);
  for (;;) {
    let listing: RemoteListing;
    try {
      listing = await (d.listRemote ?? listRemote)(target, dir);
    } catch (error) {
      if (!(error instanceof TransferError && error.fault === 'remoteMissing' && dir !== '.')) throw error;
      d.notify({
        severity: 'warning',
        text: l10n.t('GPU Rental: {0} does not exist on {1}; showing its home folder.', dir, instanceName(instance)),
        actions: [],
      });
      dir = '.';
      continue;
    }
    dir = listing.path || dir;
    const picked = await d.pickRemote({ dir, parent: dir !== '/' ? remoteParent(dir) : undefined, listing, instance });
    if (!picked) return undefined;
    if (picked.action === 'type') {
      return d.ask.input({
        title: l10n.t('GPU Rental: Download from {0}', instanceName(instance)),
        prompt: l10n.t('A file or folder on the instance'),
        value: dir,
        validate: remotePathProblem,
      });
    }
    if (picked.action !== 'open') return picked.path;
    dir = picked.path;
  }
}

/** What measuring before a destroy needs. */
export interface MeasureDeps {
  readonly logger: Logger;
  sshTarget(instance: Instance): Promise<SshTarget>;
  /** Whether this machine has an SSH key: without one, preparing the SSH entry would offer to make one. */
  hasLocalKey(): Promise<boolean>;
  readonly transferFolder: string;
  /** runner.ts's remoteSize; a test hands a fake. */
  readonly remoteSize?: typeof remoteSize;
}

/**
 * Bytes in the instance's transfer folder, for the destroy confirmation: asked over ssh, given up
 * after `timeoutMs` so a silent instance never holds up a destroy. Undefined when it could not be
 * asked; `bytes` undefined when the folder does not exist.
 */
export async function measureBeforeDestroy(
  d: MeasureDeps,
  instance: Instance,
  timeoutMs = 5_000,
): Promise<{ folder: string; bytes: number | undefined } | undefined> {
  const folder = checkRemotePath(d.transferFolder);
  // Without a local key, preparing the SSH entry would offer to create one: not a question for a destroy.
  if (!(await d.hasLocalKey())) return undefined;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    const asked = (async () => {
      const target = await d.sshTarget(instance);
      return { folder, bytes: await (d.remoteSize ?? remoteSize)(target, folder, timeoutMs, { signal: abort.signal }) };
    })();
    const gaveUp = new Promise<undefined>((resolve) => abort.signal.addEventListener('abort', () => resolve(undefined), { once: true }));
    return await Promise.race([asked, gaveUp]);
  } catch (error) {
    d.logger.warn(`Could not measure ${folder} on #${instance.id} before destroying: ${errorText(error)}`);
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

/** Downloads the instance's folder before a destroy (asking where to); undefined when the user dismissed the question. */
export async function downloadBeforeDestroy(d: DownloadFlowDeps, instance: Instance, folder: string): Promise<DownloadOutcome | undefined> {
  return downloadInto(d, instance, await d.sshTarget(instance), folder);
}
