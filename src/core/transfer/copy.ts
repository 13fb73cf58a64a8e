/**
 * Copy Folder to Another Instance, decided: the source path, the destination (another running
 * instance of the account, with its price), the destination path, then the service's copy started
 * and followed (serviceCopy.ts). The UI picks the source instance and shows the result.
 */
import type { Instance } from '../api/instances';
import { formatDollars } from '../format';
import { instanceLabel, instanceName } from '../instances/names';
import { instancePhase } from '../instances/phase';
import { currentRate } from '../instances/rates';
import { l10n } from '../l10n';
import type { TransferNotice } from './notices';
import {
  askInstancePath,
  instancePathProblem,
  startAndFollow,
  statusBefore,
  type ServiceCopyDeps,
  type ServiceCopyResult,
} from './serviceCopy';

/** Given by automation and tests instead of asking; anything left out is asked for. */
export interface CopyArgs {
  srcPath?: string;
  dstId?: number;
  dstPath?: string;
}

/** Where no other instance runs: nothing to copy to, and what to do. */
export interface NoDestination {
  readonly outcome: 'noDestination';
  readonly notice: TransferNotice<never> & { readonly severity: 'info' };
}

/**
 * Asks what `args` leaves out and copies from the running `src` to another instance. Undefined when
 * the user dismissed a question. Throws when the destination is the source.
 */
export async function copyFlow(d: ServiceCopyDeps, src: Instance, args: CopyArgs): Promise<ServiceCopyResult | NoDestination | undefined> {
  const srcPath = await given(args.srcPath, () =>
    askInstancePath(
      d,
      l10n.t('GPU Rental: copy from {0}', instanceName(src)),
      l10n.t('The folder (or file) to copy. Ending in / copies what the folder holds; without it, the folder itself.'),
    ),
  );
  if (srcPath === undefined) return undefined;
  const dst = args.dstId !== undefined ? await instanceById(d, args.dstId) : await pickDestination(d, src);
  if (dst === undefined || 'outcome' in dst) return dst;
  if (dst.id === src.id)
    throw new Error(l10n.t('Pick another instance to copy to than {0}: a copy goes from one instance to another.', instanceName(src)));
  const dstPath = await given(args.dstPath, () =>
    askInstancePath(
      d,
      l10n.t('GPU Rental: copy {0} to {1}', srcPath, instanceName(dst)),
      l10n.t('Where on {0} to put it.', instanceName(dst)),
    ),
  );
  if (dstPath === undefined) return undefined;
  const what = l10n.t('the copy of {0} from {1} to {2} on {3}', srcPath, instanceName(src), dstPath, instanceName(dst));
  return startAndFollow(d, {
    title: l10n.t('copying {0} to {1}', srcPath, instanceName(dst)),
    what,
    dst,
    before: await statusBefore(d, dst),
    start: () => d.copy.copyBetweenInstances({ srcId: src.id, dstId: dst.id, srcPath, dstPath }),
    cancel: () => d.copy.cancelCopy(dst.id),
  });
}

/** A path automation gave (trimmed; undefined when unusable), or the user's answer. */
async function given(value: string | undefined, ask: () => Promise<string | undefined>): Promise<string | undefined> {
  if (value === undefined) return ask();
  return instancePathProblem(value) ? undefined : value.trim();
}

async function instanceById(d: ServiceCopyDeps, id: number): Promise<Instance> {
  return d.poller.snapshot?.instances.find((i) => i.id === id) ?? (await d.instances.show(id));
}

/** The account's other running instances, each with its label and price; said when there is none. */
async function pickDestination(d: ServiceCopyDeps, src: Instance): Promise<Instance | NoDestination | undefined> {
  await d.poller.refresh();
  const others = (d.poller.snapshot?.instances ?? []).filter((i) => i.id !== src.id && instancePhase(i) === 'running');
  if (others.length === 0) {
    const message = l10n.t(
      'GPU Rental: no other running instance to copy to. Start or rent one, then copy from {0} again.',
      instanceName(src),
    );
    return { outcome: 'noDestination', notice: { severity: 'info', text: message, actions: [] } };
  }
  return d.ask.pick({
    title: l10n.t('GPU Rental: copy from {0} to which instance?', instanceName(src)),
    placeholder: l10n.t('The instance to copy to'),
    items: others.map((instance) => {
      const rate = currentRate(instance);
      const description = [`#${instance.id}`, rate !== undefined ? `${formatDollars(rate)}/h` : undefined].filter(Boolean).join(' · ');
      return { label: instanceLabel(instance), description, value: instance };
    }),
  });
}
