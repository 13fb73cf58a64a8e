import assert from 'node:assert/strict';
import type { Instance } from '../../../src/core/api/instances';
import { InstanceCleanup } from '../../../src/core/ssh/instanceCleanup';
import { MemoryLogger } from '../../support';

const running = (id: number) => ({ id, actual_status: 'running', intended_status: 'running' }) as Instance;
/** Lets the fire-and-forget removals (fakes that answer at once) finish. */
const settled = () => new Promise((resolve) => setImmediate(resolve));
const stopped = (id: number) => ({ id, actual_status: 'stopped', intended_status: 'stopped' }) as Instance;

function setup(failures: { ssh?: boolean; platform?: boolean } = {}) {
  const forwardsStopped: number[] = [];
  const entriesForgotten: number[] = [];
  const platformsForgotten: string[] = [];
  const logger = new MemoryLogger();
  const cleanup = new InstanceCleanup({
    forwards: { stopInstance: (id) => void forwardsStopped.push(id) },
    connector: {
      alias: (id) => `gpu-rental-${id}`,
      forget: async (id) => {
        if (failures.ssh) throw new Error('the config is read-only');
        entriesForgotten.push(id);
      },
    },
    forgetRemotePlatform: async (alias) => {
      if (failures.platform) throw new Error('settings are read-only');
      platformsForgotten.push(alias);
    },
    logger,
  });
  return { cleanup, forwardsStopped, entriesForgotten, platformsForgotten, logger };
}

describe('instance cleanup', () => {
  it('a destroyed instance loses its forwards, its SSH entry and its Remote-SSH platform entry', async () => {
    const { cleanup, forwardsStopped, entriesForgotten, platformsForgotten } = setup();
    await cleanup.forgetInstance(7);
    assert.deepEqual(forwardsStopped, [7]);
    assert.deepEqual(entriesForgotten, [7]);
    assert.deepEqual(platformsForgotten, ['gpu-rental-7']);
  });

  it('a failure to remove either entry is logged, and the other is still removed', async () => {
    const { cleanup, platformsForgotten, logger } = setup({ ssh: true });
    await cleanup.forgetInstance(7);
    assert.deepEqual(platformsForgotten, ['gpu-rental-7']);
    assert.ok(logger.lines.some((l) => l.startsWith('warn Could not remove the SSH entry gpu-rental-7')));
    const other = setup({ platform: true });
    await other.cleanup.forgetInstance(8);
    assert.deepEqual(other.entriesForgotten, [8]);
    assert.ok(other.logger.lines.some((l) => l.startsWith('warn Could not remove gpu-rental-8 from remotePlatform')));
  });

  it('an instance seen in one list and gone from the next is forgotten; one never seen is not', async () => {
    const { cleanup, entriesForgotten } = setup();
    cleanup.followInstances([running(1), running(2)]);
    cleanup.followInstances([running(2), running(3)]);
    await settled();
    assert.deepEqual(entriesForgotten, [1]);
    cleanup.followInstances([running(3)]);
    await settled();
    assert.deepEqual(entriesForgotten, [1, 2]);
  });

  it('an instance that is not running loses its forwards, and keeps its SSH entry', async () => {
    const { cleanup, forwardsStopped, entriesForgotten } = setup();
    cleanup.followInstances([running(1), stopped(2)]);
    assert.deepEqual(forwardsStopped, [2]);
    assert.deepEqual(entriesForgotten, []);
  });

  it('after another key (forgetSeen), ids of the last account do not count as destroyed', async () => {
    const { cleanup, entriesForgotten } = setup();
    cleanup.followInstances([running(1)]);
    cleanup.forgetSeen();
    cleanup.followInstances([running(5)]);
    await settled();
    assert.deepEqual(entriesForgotten, []);
  });
});
