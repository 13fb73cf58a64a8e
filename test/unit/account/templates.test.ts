import assert from 'node:assert/strict';
import type { Instance } from '../../../src/core/api/instances';
import { followHash, splitImage, templateFromInstance, withoutWatchdog } from '../../../src/core/account/templates';
import { withWatchdog } from '../../../src/core/idle/watchdog';

describe('account: templates from rents', () => {
  it("keeps the user's script and drops the watchdog a rent added", () => {
    const script = withWatchdog('cd /workspace && ./train.sh', { baseUrl: 'https://console.vast.ai', idleMinutes: 30, gpuThreshold: 5 });
    assert.equal(withoutWatchdog(script), 'cd /workspace && ./train.sh');
    assert.equal(withoutWatchdog(withWatchdog('', { baseUrl: 'https://console.vast.ai', idleMinutes: 30, gpuThreshold: 5 })), undefined);
    assert.equal(withoutWatchdog('echo plain'), 'echo plain');
  });

  it('splits an image reference without mistaking a registry port for a tag', () => {
    assert.deepEqual(splitImage('pytorch/pytorch:2.5'), ['pytorch/pytorch', '2.5']);
    assert.deepEqual(splitImage('registry:5000/team/img'), ['registry:5000/team/img', undefined]);
    assert.deepEqual(splitImage('ubuntu'), ['ubuntu', undefined]);
  });

  it("takes image, script, disk and connection from an instance", () => {
    const t = templateFromInstance({ id: 1, image_uuid: 'vllm/vllm-openai:latest', image_runtype: 'ssh_direc ssh_proxy', onstart: 'echo hi', disk_space: 40 } as unknown as Instance, 'mine');
    assert.deepEqual({ image: t.image, tag: t.tag, onstart: t.onstart, runtype: t.runtype, ssh_direct: t.ssh_direct, disk: t.recommended_disk_space, private: t.private }, { image: 'vllm/vllm-openai', tag: 'latest', onstart: 'echo hi', runtype: 'ssh', ssh_direct: true, disk: 40, private: true });
  });

  it('references follow an edit', () => {
    assert.deepEqual(followHash(['a', 'b', 'a'], 'a', 'c'), ['c', 'b', 'c']);
  });
});
