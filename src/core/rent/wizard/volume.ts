import type { Offer } from '../../api/offers';
import type { VolumesApi } from '../../api/volumes';
import { formatDollars } from '../../format';
import { l10n } from '../../l10n';
import type { Logger } from '../../log';
import { boxProblem, boxValue, decimalText, gigabytesBox, readBox } from '../../numbers';
import type { ChosenVolume } from '../confirmation';
import { storagePerHour } from '../quote';
import { BACK, CANCEL, type PickItem, type StepContext, type StepResult, type Steps } from '../steps';

/** A volume the rent may attach: one of the account's, or a new one from a volume offer on the same machine. */
export interface VolumeChoice {
  label: string;
  description: string;
  /** An existing volume's id, or the volume offer's id for a new one. */
  volumeId: number;
  /** Set for a new volume: how big it may be and what a GB costs per month. */
  offer?: { maxGb: number; costPerGbMonth: number };
}

/**
 * Volumes a rent on `offer` can mount: the account's free volumes on the same machine, and new ones
 * from the machine's volume offers. A key that may not read volumes just gets none (logged).
 */
export async function volumeChoices(volumes: Pick<VolumesApi, 'list' | 'search'>, offer: Offer, logger: Logger): Promise<VolumeChoice[]> {
  // A key that may not read one of them just gets none of it; the log says why.
  const machine = offer.machine_id;
  if (machine === undefined || machine === null) return [];
  const [mine, offers] = await Promise.all([
    volumes.list().catch((error: unknown) => {
      logger.warn(`Could not read your volumes for the rent: ${String(error)}`);
      return [];
    }),
    volumes.search({ filters: { machine_id: { eq: machine } }, order: [['storage_cost', 'asc']], limit: 3 }).catch((error: unknown) => {
      logger.warn(`Could not read volume offers for the rent: ${String(error)}`);
      return [];
    }),
  ]);
  const existing: VolumeChoice[] = mine
    .filter((v) => v.machine_id === machine && !v.instances?.length)
    .map((v) => ({
      label: l10n.t('$(database) {0}', v.label || `V.${v.id}`),
      description: l10n.t('yours, {0} GB, free', v.disk_space ?? '?'),
      volumeId: v.id,
    }));
  const fresh: VolumeChoice[] = offers
    .filter((o) => o.machine_id === machine)
    .map((o) => ({
      label: l10n.t('$(add) New volume on this machine…'),
      description: l10n.t('up to {0} GB at {1}/GB/month', Math.floor(o.disk_space), formatDollars(o.storage_cost ?? 0)),
      volumeId: o.id,
      offer: { maxGb: Math.floor(o.disk_space), costPerGbMonth: o.storage_cost ?? 0 },
    }));
  return [...existing, ...fresh];
}

/**
 * The confirmation's volume row, picked: a volume (or none), then the size of a new one with its
 * price, then where to mount it. Resolves with the attachment and how to describe it, null for no
 * volume, or BACK/CANCEL.
 */
export async function volumeStep(
  steps: Steps,
  ctx: StepContext,
  options: readonly VolumeChoice[],
): Promise<StepResult<ChosenVolume | null>> {
  const picked = await steps.pick(ctx, {
    placeholder: l10n.t('A volume keeps its data after the instance is destroyed (it must be on the same machine)'),
    items: volumeItems(options),
  });
  if (picked === BACK || picked === CANCEL) return picked;
  if (picked === 'none') return null;
  const size = picked.offer ? await newVolumeSize(steps, ctx, picked.offer) : undefined;
  if (size === BACK || size === CANCEL) return size;
  const mount = await steps.input(ctx, {
    prompt: l10n.t('Where to mount it in the instance.'),
    value: '/data',
    validate: (v) =>
      /^\/[^\s]*$/.test(v.trim()) && v.trim() !== '/' ? undefined : l10n.t('An absolute path such as /data or /workspace.'),
  });
  if (mount === BACK || mount === CANCEL) return mount;
  const path = mount.trim();
  if (!picked.offer || size === undefined)
    return {
      attachment: { create_new: false, volume_id: picked.volumeId, mount_path: path },
      text: l10n.t('{0} at {1}', picked.label, path),
      perHour: 0,
    };
  const perHour = storagePerHour(size, picked.offer.costPerGbMonth);
  return {
    attachment: { create_new: true, volume_id: picked.volumeId, size, mount_path: path },
    text: l10n.t('new {0} GB volume at {1}, {2}/h until deleted', String(size), path, formatDollars(perHour)),
    perHour,
  };
}

function volumeItems(options: readonly VolumeChoice[]): PickItem<VolumeChoice | 'none'>[] {
  const items: PickItem<VolumeChoice | 'none'>[] = [
    { label: l10n.t('No volume'), description: l10n.t('only the instance disk, which goes when the instance is destroyed'), value: 'none' },
    ...options.map((c) => ({ label: c.label, description: c.description, value: c })),
  ];
  if (options.length === 0)
    items.push({
      label: l10n.t('No volume can be mounted here'),
      description: l10n.t('none of your volumes is on this machine, and it offers no volume storage'),
    });
  return items;
}

/** The size of a new volume, in GB up to what the offer has, with what it bills as the user types. */
async function newVolumeSize(steps: Steps, ctx: StepContext, offer: NonNullable<VolumeChoice['offer']>): Promise<StepResult<number>> {
  const box = gigabytesBox(offer.maxGb);
  const answer = await steps.input(ctx, {
    prompt: l10n.t('Size of the new volume in GB (up to {0}).', box.max),
    value: decimalText(Math.min(50, box.max)),
    validate: (v) => boxProblem(v, box),
    describe: (v) => {
      const gb = readBox(v, box).value;
      return gb === undefined
        ? ''
        : l10n.t(
            'It bills {0}/h until you delete it, also after the instance is destroyed.',
            formatDollars(storagePerHour(gb, offer.costPerGbMonth)),
          );
    },
  });
  if (answer === BACK || answer === CANCEL) return answer;
  return boxValue(answer, box);
}
