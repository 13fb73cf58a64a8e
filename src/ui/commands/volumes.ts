import * as vscode from 'vscode';
import type { VolumeOffer } from '../../core/api/volumes';
import { COMMANDS } from '../../core/ids';
import { boxProblem, boxValue, gigabytesBox } from '../../core/numbers';
import type { AccountAreaDeps } from './accountDeps';
import { VolumeItem } from '../views/account/volumeItems';
import { command, type CommandDefinition } from './registry';
import { formatDollars } from '../../core/format';

/** What automation (and the tests) may pass instead of answering the pickers. */
interface NewVolume {
  offerId: number;
  sizeGb: number;
  name?: string;
}

/** Volumes: create from a volume offer (with its price), delete after a confirmation. */
export function volumeCommands(s: AccountAreaDeps): CommandDefinition[] {
  return [
    command(COMMANDS.createVolume, (spec?: NewVolume) => createVolume(s, spec)),
    command(COMMANDS.deleteVolume, (t?: VolumeItem | number) => deleteVolume(s, t)),
  ];
}

/** $/month for `gb` of an offer priced per GB per month. */
export function monthly(offer: Pick<VolumeOffer, 'storage_cost'>, gb: number): number {
  return (offer.storage_cost ?? 0) * gb;
}

async function createVolume(s: AccountAreaDeps, spec: NewVolume | undefined): Promise<string | undefined> {
  let request = spec;
  if (!request) {
    const box = gigabytesBox();
    const sizeText = await vscode.window.showInputBox({
      title: vscode.l10n.t('GPU Rental: New Volume (1/3): size'),
      prompt: vscode.l10n.t('Size in GB'),
      value: '50',
      validateInput: (v) => boxProblem(v, box),
    });
    if (!sizeText) return undefined;
    const sizeGb = boxValue(sizeText, box);
    const offers = await s.session.client.volumes.search({
      filters: { disk_space: { gte: sizeGb } },
      order: [['storage_cost', 'asc']],
      limit: 50,
      allocatedStorage: sizeGb,
    });
    const picked = await vscode.window.showQuickPick(
      offers.map((o) => ({
        label: `${formatDollars(monthly(o, sizeGb))}/month`,
        description: vscode.l10n.t(
          '{0}/GB/month · {1} · machine {2} · reliability {3} %',
          formatDollars(o.storage_cost ?? 0),
          o.geolocation ?? '?',
          o.machine_id ?? '?',
          ((o.reliability2 ?? 0) * 100).toFixed(1),
        ),
        o,
      })),
      { title: vscode.l10n.t('GPU Rental: New Volume (2/3): where ({0} GB; it bills until deleted)', sizeGb), matchOnDescription: true },
    );
    if (!picked) return undefined;
    const name = await vscode.window.showInputBox({
      title: vscode.l10n.t('GPU Rental: New Volume (3/3): name'),
      value: `volume-${sizeGb}gb`,
    });
    if (name === undefined) return undefined;
    request = { offerId: picked.o.id, sizeGb, name: name.trim() || undefined };
  }
  const created = await s.session.client.volumes.create(request);
  s.accountView.refresh();
  void vscode.window.showInformationMessage(
    vscode.l10n.t('GPU Rental: created volume {0} ({1} GB). It bills until you delete it.', created.volumeName ?? '', request.sizeGb),
  );
  return created.volumeName;
}

async function deleteVolume(s: AccountAreaDeps, t: VolumeItem | number | undefined): Promise<boolean> {
  const volumes = await s.session.client.volumes.list();
  const volume =
    t instanceof VolumeItem
      ? t.volume
      : typeof t === 'number'
        ? volumes.find((v) => v.id === t)
        : (
            await vscode.window.showQuickPick(
              volumes.map((v) => ({ label: v.label || `volume ${v.id}`, description: `${v.disk_space ?? '?'} GB`, v })),
              { title: vscode.l10n.t('GPU Rental: Delete which volume?') },
            )
          )?.v;
  if (!volume) return false;
  if (volume.instances?.length) {
    void vscode.window.showErrorMessage(
      vscode.l10n.t(
        'GPU Rental: volume "{0}" is used by instance #{1}. Destroy those first, then delete it.',
        volume.label || volume.id,
        volume.instances.join(', #'),
      ),
    );
    return false;
  }
  const ok = await s
    .prompts()
    .confirm(
      vscode.l10n.t('Delete volume "{0}"?', volume.label || volume.id),
      vscode.l10n.t(
        'Its {0} GB and every file on it are deleted for good. Billing for it stops. This cannot be undone.',
        volume.disk_space ?? '?',
      ),
      vscode.l10n.t('Delete Volume'),
    );
  if (!ok) return false;
  await s.session.client.volumes.delete(volume.id);
  s.accountView.refresh();
  return true;
}
