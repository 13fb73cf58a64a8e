import assert from 'node:assert/strict';
import type { Instance } from '../../../src/core/api/instances';
import { followHash, imageFields, joinImage, splitImage, templateFromInstance, withoutWatchdog } from '../../../src/core/account/templates';
import { withWatchdog } from '../../../src/core/idle/watchdog';
import { RESUME_HOOK_BEGIN, resumeHook } from '../../../src/core/jobs/resumeScripts';
import { rentOnstart } from '../../../src/core/rent/flow';
import type { RentPlan } from '../../../src/core/rent/plan';

describe('account: templates from rents', () => {
  it("keeps the user's script and drops the watchdog a rent added", () => {
    const script = withWatchdog('cd /workspace && ./train.sh', { baseUrl: 'https://console.vast.ai', idleMinutes: 30, gpuThreshold: 5 });
    assert.equal(withoutWatchdog(script), 'cd /workspace && ./train.sh');
    assert.equal(withoutWatchdog(withWatchdog('', { baseUrl: 'https://console.vast.ai', idleMinutes: 30, gpuThreshold: 5 })), undefined);
    assert.equal(withoutWatchdog('echo plain'), 'echo plain');
  });

  it("drops the jobs' resume hook a rent added too, so a template made from a rent carries the user's script only", () => {
    const plan = { onstart: 'cd /workspace && ./train.sh' } as RentPlan;
    const rented = rentOnstart(plan, { enabled: true, minutes: 30, gpuThreshold: 5 }, 'https://console.vast.ai');
    assert.ok('onstart' in rented && rented.onstart?.includes(RESUME_HOOK_BEGIN), 'the rent sends the hook');
    assert.equal(withoutWatchdog('onstart' in rented ? rented.onstart : undefined), 'cd /workspace && ./train.sh');
    assert.equal(withoutWatchdog(resumeHook()), undefined);
  });

  it('splits an image reference without mistaking a registry port for a tag', () => {
    assert.deepEqual(splitImage('pytorch/pytorch:2.5'), ['pytorch/pytorch', '2.5']);
    assert.deepEqual(splitImage('registry:5000/team/img'), ['registry:5000/team/img', undefined]);
    assert.deepEqual(splitImage('ubuntu'), ['ubuntu', undefined]);
  });

  it("splits what an edit of a template's image types: the tag follows the last colon after the last slash", () => {
    const digest = `name@sha256:${'ab'.repeat(32)}`;
    assert.deepEqual(imageFields('registry:5000/name:1.0'), { image: 'registry:5000/name', tag: '1.0' }, 'was saved as registry:1.0');
    assert.deepEqual(imageFields('registry:5000/name'), { image: 'registry:5000/name', tag: 'latest' });
    assert.deepEqual(imageFields(digest), { image: digest, tag: 'latest' }, 'a digest stays with the image');
    assert.deepEqual(splitImage(digest), [digest, undefined]);
    assert.deepEqual(imageFields('ubuntu:22.04'), { image: 'ubuntu', tag: '22.04' });
    assert.deepEqual(imageFields('ghcr.io/o/n:tag'), { image: 'ghcr.io/o/n', tag: 'tag' });
    assert.deepEqual(imageFields(' ubuntu:22.04 '), { image: 'ubuntu', tag: '22.04' });
  });

  it('joins image and tag back as the service does, so an edit starts from what the template runs', () => {
    assert.equal(joinImage('registry:5000/name', '1.0'), 'registry:5000/name:1.0');
    assert.equal(joinImage('ubuntu', undefined), 'ubuntu');
    assert.equal(joinImage('name@sha256:abc', 'latest'), 'name@sha256:abc');
    assert.equal(joinImage('ubuntu:22.04', 'latest'), 'ubuntu:22.04', 'a tag already in the image wins');
    for (const ref of ['registry:5000/name:1.0', 'ghcr.io/o/n:tag', 'ubuntu:22.04']) assert.equal(joinImage(...splitImage(ref)), ref);
  });

  it('takes image, script, disk and connection from an instance', () => {
    const t = templateFromInstance(
      {
        id: 1,
        image_uuid: 'vllm/vllm-openai:latest',
        image_runtype: 'ssh_direc ssh_proxy',
        onstart: 'echo hi',
        disk_space: 40,
      } as unknown as Instance,
      'mine',
    );
    assert.deepEqual(
      {
        image: t.image,
        tag: t.tag,
        onstart: t.onstart,
        runtype: t.runtype,
        ssh_direct: t.ssh_direct,
        disk: t.recommended_disk_space,
        private: t.private,
      },
      { image: 'vllm/vllm-openai', tag: 'latest', onstart: 'echo hi', runtype: 'ssh', ssh_direct: true, disk: 40, private: true },
    );
  });

  it('references follow an edit', () => {
    assert.deepEqual(followHash(['a', 'b', 'a'], 'a', 'c'), ['c', 'b', 'c']);
  });
});
