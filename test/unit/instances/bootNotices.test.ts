import assert from 'node:assert/strict';
import type { Instance } from '../../../src/core/api/instances';
import { bootButtonLabel, bootSpoken, failedNotice, runningNotice } from '../../../src/core/instances/bootNotices';

const inst = (over: Partial<Instance> = {}) =>
  ({ id: 5, label: 'train', gpu_name: 'RTX 4090', num_gpus: 1, actual_status: 'running', ...over }) as unknown as Instance;

describe('instances: what the boot watcher says', () => {
  it('reads the booting item aloud as a sentence, one instance or several', () => {
    const one = [{ instance: inst(), phase: 'loading', since: 0 }];
    assert.equal(bootSpoken(one as never, 80_000), 'GPU Rental: booting: train loading for 1 minute 20 seconds. Opens the Instances view.');
    const two = [...one, { instance: inst({ id: 6, label: '' }), phase: 'creating', since: 79_000 }];
    assert.match(
      bootSpoken(two as never, 80_000),
      /^GPU Rental: 2 instances booting: train loading for .*; .*RTX 4090 creating for 1 second\./,
    );
  });

  it('a running instance offers the ways in; a failed one says it bills for disk and offers Destroy', () => {
    assert.deepEqual(runningNotice(inst()), {
      severity: 'info',
      text: 'GPU Rental: train is running.',
      actions: ['connect', 'openSshTerminal', 'copySshCommand'],
    });
    const failed = failedNotice(inst({ actual_status: 'exited' }));
    assert.equal(failed.severity, 'error');
    assert.equal(failed.text, 'GPU Rental: train failed (exited). It will not recover, and its disk is billed until it is destroyed.');
    assert.deepEqual(failed.actions.map(bootButtonLabel), ['Destroy', 'Show Instance Logs']);
  });
});
