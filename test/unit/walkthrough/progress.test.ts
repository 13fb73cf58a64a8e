import assert from 'node:assert/strict';
import { InstanceSchema, type Instance } from '../../../src/core/api/instances';
import { Emitter } from '../../../src/core/events';
import { WalkthroughProgress, type WalkthroughStep } from '../../../src/core/walkthrough/progress';

const instance = (id: number, actual = 'running', intended = actual): Instance =>
  InstanceSchema.parse({ id, gpu_name: 'RTX 4090', num_gpus: 1, actual_status: actual, intended_status: intended });

/** The sources a window has, driven by hand: a session, the instance poller and the Offers view. */
function window(options: { signedIn?: boolean; offers?: number; instances?: Instance[] } = {}) {
  const sessionChanged = new Emitter<unknown>();
  const polled = new Emitter<{ instances: readonly Instance[] }>();
  const rows = new Emitter<unknown>();
  const session = { onDidChangeState: sessionChanged.event, state: { kind: options.signedIn === false ? 'noKey' : 'ready' } };
  const poller = {
    onDidUpdate: polled.event,
    snapshot: options.instances ? { instances: options.instances } : (undefined as { instances: readonly Instance[] } | undefined),
  };
  const offersView = { onDidChangeTreeData: rows.event, offers: Array.from({ length: options.offers ?? 0 }) as unknown[] };
  const marked: WalkthroughStep[] = [];
  const progress = new WalkthroughProgress({ session, poller, offersView }, (step) => marked.push(step));
  return {
    marked,
    progress,
    session,
    poll: (instances: Instance[]) => polled.fire({ instances }),
    showOffers: (n: number) => {
      offersView.offers = Array.from({ length: n });
      rows.fire(undefined);
    },
    switchAccount: () => sessionChanged.fire(undefined),
  };
}

describe('walkthrough: a step is done when the user does what it asks', () => {
  it('marks nothing for a fresh account with no offers listed and no instances', () => {
    const w = window();
    w.poll([]);
    w.showOffers(0);
    assert.deepEqual(w.marked, []);
  });

  it('marks the search step when offers are listed, once', () => {
    const w = window();
    w.showOffers(3);
    w.showOffers(5);
    assert.deepEqual(w.marked, ['offersListed']);
  });

  it('marks the rent step when the account has an instance, and the stop step only when one stops', () => {
    const w = window();
    w.poll([instance(1, 'loading', 'running')]);
    assert.deepEqual(w.marked, ['rented']);
    w.poll([instance(1)]);
    assert.deepEqual(w.marked, ['rented']);
    w.poll([instance(1, 'running', 'stopped')]);
    assert.deepEqual(w.marked, ['rented', 'stopped']);
  });

  it('marks the stop step when an instance seen before is destroyed', () => {
    const w = window();
    w.poll([instance(1), instance(2)]);
    w.poll([instance(2)]);
    assert.deepEqual(w.marked, ['rented', 'stopped']);
  });

  it('does not take a profile switch for a destroy: the other account simply lacks the instance', () => {
    const w = window();
    w.poll([instance(1)]);
    w.switchAccount();
    w.poll([instance(7)]);
    assert.deepEqual(w.marked, ['rented']);
  });

  it('ignores snapshots while signed out, and reads what was there before it started', () => {
    const out = window({ signedIn: false });
    out.poll([instance(1, 'stopped', 'stopped')]);
    assert.deepEqual(out.marked, []);
    const restored = window({ offers: 2, instances: [instance(4, 'stopped', 'stopped')] });
    assert.deepEqual(restored.marked, ['offersListed', 'rented', 'stopped']);
  });

  it('stops listening when disposed', () => {
    const w = window();
    w.progress.dispose();
    w.showOffers(3);
    w.poll([instance(1)]);
    assert.deepEqual(w.marked, []);
  });
});
