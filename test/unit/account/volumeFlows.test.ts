import assert from 'node:assert/strict';
import type { Volume, VolumeOffer } from '../../../src/core/api/volumes';
import { createVolume, deleteVolume, type VolumeFlowDeps } from '../../../src/core/account/volumeFlows';
import { scriptedAsk, type Answer } from '../../support/scriptedAsk';

const OFFER = { id: 11, storage_cost: 0.1, geolocation: 'NL', machine_id: 5, reliability2: 0.99 } as VolumeOffer;

function account(answers: Answer[], volumes: Volume[] = []) {
  const sent: string[] = [];
  const ask = scriptedAsk(answers);
  const d: VolumeFlowDeps = {
    ask,
    volumes: {
      search: (request) => (sent.push(`search ${request.allocatedStorage}`), Promise.resolve([OFFER])),
      create: (r) => (sent.push(`create ${r.offerId} ${r.sizeGb} ${r.name}`), Promise.resolve({ volumeName: 'V.1' })),
      list: () => Promise.resolve(volumes),
      delete: (id) => (sent.push(`delete ${id}`), Promise.resolve()),
    },
  };
  return { d, ask, sent };
}

describe('volume flows', () => {
  it('asks the size, then shows each offer at its monthly price for that size, then the name', async () => {
    const { d, ask, sent } = account([{ input: '100' }, { pick: '$10.00/month' }, { input: ' data ' }]);
    const outcome = await createVolume(d);
    assert.equal(ask.asked[1]?.text, 'GPU Rental: New Volume (2/3): where (100 GB; it bills until deleted)');
    assert.deepEqual(sent, ['search 100', 'create 11 100 data']);
    assert.deepEqual(
      [outcome.value, outcome.notice?.text],
      ['V.1', 'GPU Rental: created volume V.1 (100 GB). It bills until you delete it.'],
    );
  });

  it('refuses to delete a volume an instance uses, and asks before deleting one that is free', async () => {
    const used = { id: 1, label: 'data', disk_space: 100, instances: [7] } as Volume;
    const free = { id: 2, label: 'spare', disk_space: 50 } as Volume;
    const { d, ask, sent } = account([{ confirm: false }, { pick: 'spare' }, { confirm: true }], [used, free]);
    assert.match((await deleteVolume(d, 1)).notice?.text ?? '', /^GPU Rental: volume "data" is used by instance #7\. Destroy those first/);
    assert.equal(ask.asked.length, 0);
    assert.equal((await deleteVolume(d, free)).value, false);
    assert.match(ask.asked[0]!.detail, /^Its 50 GB and every file on it are deleted for good/);
    assert.equal((await deleteVolume(d)).value, true);
    assert.deepEqual(sent, ['delete 2']);
  });
});
