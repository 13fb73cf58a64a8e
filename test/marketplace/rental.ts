/**
 * Opening a rental: the contract that bills it and the instance that runs it, made from an offer
 * the route has checked. The instance starts provisioning (or stopped, when asked); the account's
 * SSH keys are copied in; an instance API key is made; boot faults (faults.ts) are taken here.
 */
import { randomBytes } from 'node:crypto';
import type { Offer } from './catalogue';
import { addLog, extraPorts } from './lifecycle';
import type { Account, ApiKeyRecord, Contract, InstanceState, Ms, TemplateRecord, VolumeRecord } from './model';
import { rentalRates } from './pricing';
import type { Sim } from './router';

/** A checked rent request: what the instance runs, as its record keeps it, and what it rents. */
export interface Rental extends Pick<InstanceState, 'image' | 'onstart' | 'env' | 'args' | 'runtype' | 'label' | 'diskGb' | 'clientId'> {
  account: Account;
  offer: Offer;
  now: Ms;
  /** The bid price in $/hour; undefined rents on demand. */
  bid: number | undefined;
  template: TemplateRecord | undefined;
  /** A volume to mount, already checked to be on the offer's machine. */
  volume: { volume: VolumeRecord; mount: string } | undefined;
  /** Created stopped (`target_state: stopped`) instead of booting. */
  stopped: boolean;
}

/** Records the rental in the store and returns the new instance and its instance API key. */
export function openRental(sim: Sim, r: Rental): { inst: InstanceState; apiKey: ApiKeyRecord } {
  const { store } = sim;
  const { account, offer, now, template, volume } = r;
  const id = store.nextId('contract');
  const boot = sim.faults.takeBoot();
  const apiKey = store.addKey({ accountId: account.id, name: `instance ${id}`, permissions: null, instanceId: id, now });
  const { gpuRate, diskRate } = rentalRates(offer, { diskGb: r.diskGb, bid: r.bid });
  const contract: Contract = {
    id,
    accountId: account.id,
    type: 'instance',
    start: now,
    end: null,
    label: r.label,
    templateId: template?.id ?? null,
    segments: [{ kind: 'disk', rate: diskRate, start: now, end: null }],
  };
  const inst: InstanceState = {
    id,
    accountId: account.id,
    offerId: offer.id,
    phase: 'provisioning',
    phaseSince: now,
    stopReason: null,
    failure: null,
    doom: boot.doom ?? null,
    bootMs: boot.bootMs ?? store.data.bootSeconds * 1000,
    bootCount: 1,
    createdAt: now,
    runningSince: null,
    image: r.image,
    onstart: r.onstart,
    // The service adds the account's variables (/api/v0/secrets/) to every new instance; the rent's own env wins on a name.
    env: [
      ...(store.data.secrets ?? [])
        .filter((s) => s.accountId === account.id && !r.env.some(([k]) => k === s.key))
        .map((s): [string, string] => [s.key, s.value]),
      ...r.env,
    ],
    args: r.args,
    runtype: r.runtype,
    label: r.label,
    templateId: template?.id ?? null,
    templateHashId: template?.hash_id ?? null,
    templateName: template?.name ?? null,
    diskGb: r.diskGb,
    isBid: r.bid !== undefined,
    gpuRate,
    diskRate,
    apiKeyId: apiKey.id,
    clientId: r.clientId,
    sshKeys: store.data.sshKeys
      .filter((k) => k.accountId === account.id && k.deletedAt === null)
      .map((k) => ({ id: k.id, name: k.publicKey.split(/\s+/).slice(2).join(' ') || `key-${k.id}`, publicKey: k.publicKey })),
    endpoint: sim.network.assign({ instanceId: id, bootCount: 1, runtype: r.runtype, extraPorts: extraPorts(r.env), offer }),
    volumeIds: volume ? [volume.volume.id] : [],
    jupyterToken: randomBytes(16).toString('hex'),
    log: [],
  };
  if (volume) volume.volume.instanceIds.push(id);
  addLog(inst, now, `Creating container for ${r.image} on machine ${offer.machine_id}`);
  if (volume) addLog(inst, now, `Mounting volume V.${volume.volume.id} at ${volume.mount}`);
  if (r.stopped) {
    inst.phase = 'stopped';
    inst.stopReason = 'created stopped (target_state)';
  }
  if (template) template.count_created += 1;
  store.data.contracts.push(contract);
  store.data.instances.push(inst);
  store.changed();
  return { inst, apiKey };
}
