import assert from 'node:assert/strict';
import type { GpuRentalClient } from '../../../src/core/api/client';
import type { Instance } from '../../../src/core/api/instances';
import { changeInstanceBid, isOutbid, outbidKey, outbidNoticeText, outbidsToNotify } from '../../../src/core/instances/outbid';
import { instancePhase } from '../../../src/core/instances/phase';
import { presentInstance } from '../../../src/core/instances/present';
import { clientFor, DEMO_KEY, simulatorForSuite } from '../../support';

const stoppedBid = (over: Partial<Instance> = {}): Instance => ({
  id: 42,
  label: 'train',
  gpu_name: 'RTX 4090',
  num_gpus: 1,
  actual_status: 'stopped',
  intended_status: 'running',
  is_bid: true,
  dph_base: 0.3,
  dph_total: 0.32,
  storage_total_cost: 0.02,
  min_bid: 0.4,
  ...over,
});

describe('outbid: which instance the service stopped for a higher bid', () => {
  it('is an interruptible instance stopped while its renter wants it running', () => {
    assert.equal(isOutbid(stoppedBid()), true);
    assert.equal(isOutbid(stoppedBid({ intended_status: 'stopped' })), false, 'the user stopped it');
    assert.equal(isOutbid(stoppedBid({ is_bid: false })), false, 'on demand is never outbid');
    assert.equal(isOutbid(stoppedBid({ actual_status: 'running' })), false);
    assert.equal(isOutbid(stoppedBid({ actual_status: 'exited' })), false, 'a failure is not an outbid');
  });

  it('needs the bid under the minimum: otherwise stopped and wanting to run is a start waiting for its GPU', () => {
    assert.equal(isOutbid(stoppedBid({ intended_status: undefined })), true);
    assert.equal(isOutbid(stoppedBid({ min_bid: 0.2 })), false);
    assert.equal(isOutbid(stoppedBid({ min_bid: undefined })), false);
    assert.equal(instancePhase(stoppedBid()), 'stopped', 'an outbid instance is stopped, billing its disk, not starting');
    assert.equal(instancePhase(stoppedBid({ min_bid: 0.2 })), 'starting');
  });

  it('says so on the row and the tooltip, with the disk rate and what to do, and tags it for the menus', () => {
    const row = presentInstance(stoppedBid(), { nowMs: 0 });
    assert.match(row.description, /^outbid · \$0\.020\/h disk/);
    assert.match(
      row.tooltip,
      /outbid: the service stopped it because someone bid more for this machine than your \$0\.300\/h \(the minimum is now \$0\.400\/h\)/,
    );
    assert.match(row.tooltip, /disk still bills \$0\.020\/h/);
    assert.match(row.tooltip, /Change Bid…/);
    assert.ok(row.contextValue.split('+').includes('interruptible'));
    assert.ok(row.contextValue.split('+').includes('outbid'));
    const running = presentInstance(stoppedBid({ actual_status: 'running', min_bid: 0.2 }), { nowMs: 0 });
    assert.ok(running.contextValue.split('+').includes('interruptible'));
    assert.ok(!running.contextValue.split('+').includes('outbid'));
    assert.match(running.tooltip, /\| Bid \| \$0\.300\/h, interruptible \(minimum now \$0\.200\/h\)/);
    const onDemand = presentInstance(stoppedBid({ is_bid: false, actual_status: 'running' }), { nowMs: 0 });
    assert.ok(!onDemand.contextValue.includes('interruptible'));
  });

  it('words the notification with the label, the GPU and the disk rate', () => {
    assert.equal(outbidNoticeText(stoppedBid()), 'GPU Rental: "train" (RTX 4090) was outbid and stopped. Its disk still bills $0.020/h.');
    assert.equal(
      outbidNoticeText(stoppedBid({ label: undefined, num_gpus: 2, storage_total_cost: undefined })),
      'GPU Rental: RTX 4090 ×2 #42 was outbid and stopped. Its disk still bills until you destroy it.',
    );
  });
});

describe('outbid: one notification per outbid, across windows', () => {
  const account = { baseUrl: 'https://a.example', profileId: 'default' };
  const other = { baseUrl: 'https://a.example', profileId: 'work' };

  it('notifies a new outbid once, and again after the instance ran in between', () => {
    const first = outbidsToNotify({}, account, [stoppedBid()], 1000);
    assert.deepEqual(
      first.notify.map((i) => i.id),
      [42],
    );
    const again = outbidsToNotify(first.next, account, [stoppedBid()], 2000);
    assert.deepEqual(again.notify, [], 'a window that polls next (this or another) does not notify it twice');
    assert.equal(again.next[outbidKey(account, 42)], 1000);
    const ran = outbidsToNotify(again.next, account, [stoppedBid({ actual_status: 'running' })], 3000);
    assert.deepEqual(ran.next, {}, 'running again ends the event');
    assert.deepEqual(
      outbidsToNotify(ran.next, account, [stoppedBid()], 4000).notify.map((i) => i.id),
      [42],
      'the next outbid is a new event',
    );
  });

  it("keeps other profiles' events and forgets this account's destroyed instances", () => {
    const notified = { [outbidKey(other, 42)]: 5, [outbidKey(account, 7)]: 6 };
    const { notify, next } = outbidsToNotify(notified, account, [stoppedBid()], 10);
    assert.deepEqual(
      notify.map((i) => i.id),
      [42],
      'the same id under another profile is another instance',
    );
    assert.deepEqual(next, { [outbidKey(other, 42)]: 5, [outbidKey(account, 42)]: 10 });
  });
});

describe('outbid: changing a bid, with faults', function () {
  this.timeout(20_000);
  const sim = simulatorForSuite({ bootSeconds: 0.05 }, { each: true });
  const truth = (): GpuRentalClient => clientFor(sim.url, DEMO_KEY, { maxAttempts: 4 }).client;
  const client = (): GpuRentalClient => clientFor(sim.url, DEMO_KEY, { timeoutMs: 300, maxAttempts: 1 }).client;

  /** An interruptible instance rented at the cheapest offer's minimum bid, outbid. */
  async function outbidInstance(): Promise<{ instance: Instance; min: number }> {
    const [offer] = await truth().offers.search({
      query: { filters: { rentable: { eq: true } }, order: [['dph_total', 'asc']], type: 'bid' },
      limit: 1,
    });
    const { instanceId } = await truth().instances.create(offer!.id, { image: 'ubuntu:22.04', disk: 10, price: offer!.min_bid! });
    const min = sim.control.outbid(instanceId);
    return { instance: await truth().instances.show(instanceId), min };
  }

  it('changes the bid and the instance boots again', async () => {
    const { instance, min } = await outbidInstance();
    assert.equal(isOutbid(instance), true);
    const result = await changeInstanceBid(client().instances, instance, min);
    assert.equal(result.kind, 'done');
    assert.match(result.message, /is now \$\d\.\d{3}\/h: it starts again/);
    const after = await truth().instances.show(instance.id);
    assert.equal(after.dph_base, min);
    assert.notEqual(after.actual_status, 'stopped');
  });

  it('a change that landed but whose answer was lost reads the instance and says it landed', async () => {
    const { instance, min } = await outbidInstance();
    sim.control.addFault({ kind: 'latency', ms: 1000, phase: 'after', path: '/bid_price/', count: 0 });
    const result = await changeInstanceBid(client().instances, instance, min);
    assert.equal(result.kind, 'done');
    assert.match(result.message, /answer was not seen, but the instance shows the new bid/);
  });

  it('a change that did not land says so, and a second look that fails too is unknown, never "nothing happened"', async () => {
    const { instance, min } = await outbidInstance();
    sim.control.addFault({ kind: 'server_error', status: 502, path: '/bid_price/', count: 0 });
    const notDone = await changeInstanceBid(client().instances, instance, min);
    assert.equal(notDone.kind, 'notDone');
    assert.match(
      notDone.message,
      /was not changed: the request failed \(HTTP 502\), and the instance still bids \$\d\.\d{3}\/h\. Try again\./,
    );
    sim.control.clearFaults();
    sim.control.addFault({ kind: 'latency', ms: 1000, phase: 'after', path: '/api/v0/instances/', count: 0 });
    const unknown = await changeInstanceBid(client().instances, instance, min);
    assert.equal(unknown.kind, 'unknown');
    assert.match(unknown.message, /not known whether the bid .* changed .* Refresh the Instances view to check/);
  });

  it('a refused bid is an error for the guard, with nothing sent for one out of bounds', async () => {
    const { instance } = await outbidInstance();
    const before = sim.control.state().requestCount;
    await assert.rejects(changeInstanceBid(client().instances, instance, 40), /between \$0\.001 and \$32/);
    assert.equal(sim.control.state().requestCount, before, 'nothing was sent');
  });
});
