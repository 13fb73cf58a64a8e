/** Create Volume (size, then where at what monthly price, then name) and Delete Volume (refused while in use, else confirmed). */
import type { Volume, VolumeOffer, VolumesApi } from '../api/volumes';
import { formatDollars } from '../format';
import { l10n } from '../l10n';
import { boxProblem, boxValue, gigabytesBox } from '../numbers';
import type { Ask } from '../prompts';
import { info, refusal, type Outcome } from './notice';

export interface VolumeFlowDeps {
  readonly ask: Ask;
  readonly volumes: Pick<VolumesApi, 'search' | 'create' | 'list' | 'delete'>;
}

/** What automation (and the tests) may pass instead of answering the questions. */
export interface NewVolume {
  offerId: number;
  sizeGb: number;
  name?: string;
}

/** $/month for `gb` of an offer priced per GB per month. */
export function monthly(offer: Pick<VolumeOffer, 'storage_cost'>, gb: number): number {
  return (offer.storage_cost ?? 0) * gb;
}

/** Asks the size, the offer (with its monthly price) and the name; undefined when cancelled. */
async function askVolume(d: VolumeFlowDeps): Promise<NewVolume | undefined> {
  const box = gigabytesBox();
  const sizeText = await d.ask.input({
    title: l10n.t('GPU Rental: New Volume (1/3): size'),
    prompt: l10n.t('Size in GB'),
    value: '50',
    validate: (v) => boxProblem(v, box),
  });
  if (!sizeText) return undefined;
  const sizeGb = boxValue(sizeText, box);
  const offers = await d.volumes.search({
    filters: { disk_space: { gte: sizeGb } },
    order: [['storage_cost', 'asc']],
    limit: 50,
    allocatedStorage: sizeGb,
  });
  const offer = await d.ask.pick({
    title: l10n.t('GPU Rental: New Volume (2/3): where ({0} GB; it bills until deleted)', sizeGb),
    items: offers.map((o) => ({
      label: l10n.t('{0}/month', formatDollars(monthly(o, sizeGb))),
      description: l10n.t(
        '{0}/GB/month · {1} · machine {2} · reliability {3} %',
        formatDollars(o.storage_cost ?? 0),
        o.geolocation ?? '?',
        o.machine_id ?? '?',
        ((o.reliability2 ?? 0) * 100).toFixed(1),
      ),
      value: o,
    })),
  });
  if (!offer) return undefined;
  const name = await d.ask.input({
    title: l10n.t('GPU Rental: New Volume (3/3): name'),
    prompt: l10n.t('A name for the volume'),
    value: `volume-${sizeGb}gb`,
  });
  if (name === undefined) return undefined;
  return { offerId: offer.id, sizeGb, name: name.trim() || undefined };
}

/** Creates a volume (asked unless given); resolves with its name. */
export async function createVolume(d: VolumeFlowDeps, given?: NewVolume): Promise<Outcome<string | undefined>> {
  const request = given ?? (await askVolume(d));
  if (!request) return { value: undefined };
  const created = await d.volumes.create(request);
  return {
    value: created.volumeName,
    notice: info(
      l10n.t('GPU Rental: created volume {0} ({1} GB). It bills until you delete it.', created.volumeName ?? '', request.sizeGb),
    ),
  };
}

/** Deletes a volume (given, by id, or picked): refused while an instance uses it, else after a confirmation. */
export async function deleteVolume(d: VolumeFlowDeps, given?: Volume | number): Promise<Outcome<boolean>> {
  const volumes = typeof given === 'object' ? [] : await d.volumes.list();
  const volume =
    typeof given === 'object'
      ? given
      : given !== undefined
        ? volumes.find((v) => v.id === given)
        : await d.ask.pick({
            title: l10n.t('GPU Rental: Delete which volume?'),
            items: volumes.map((v) => ({
              label: v.label || l10n.t('volume {0}', v.id),
              description: l10n.t('{0} GB', v.disk_space ?? '?'),
              value: v,
            })),
          });
  if (!volume) return { value: false };
  const name = volume.label || volume.id;
  if (volume.instances?.length)
    return {
      value: false,
      notice: refusal(
        l10n.t(
          'GPU Rental: volume "{0}" is used by instance #{1}. Destroy those first, then delete it.',
          name,
          volume.instances.join(', #'),
        ),
      ),
    };
  const ok = await d.ask.confirm(
    l10n.t('Delete volume "{0}"?', name),
    l10n.t('Its {0} GB and every file on it are deleted for good. Billing for it stops. This cannot be undone.', volume.disk_space ?? '?'),
    l10n.t('Delete Volume'),
  );
  if (!ok) return { value: false };
  await d.volumes.delete(volume.id);
  return { value: true };
}
