import assert from 'node:assert/strict';
import type { Instance } from '../../../src/core/api/instances';
import { changeBidFlow, moveToOnDemandQuestion, type ChangeBidDeps } from '../../../src/core/rent/changeBid';
import { priceableOffer } from '../../support';
import { scriptedAsk, type Answer } from '../../support/scriptedAsk';

const outbid = (over: Partial<Instance> = {}): Instance => ({
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

function kit(answers: readonly Answer[], over: Partial<ChangeBidDeps> = {}) {
  const ask = scriptedAsk(answers);
  const sent: number[] = [];
  const spend: number[] = [];
  const deps: ChangeBidDeps = {
    ask,
    onDemandPrice: () => Promise.resolve(0.9),
    allowsSpend: (perHour) => (spend.push(perHour), Promise.resolve(true)),
    instances: {
      changeBid: (_id: number, price: number) => (sent.push(price), Promise.resolve({ success: true })),
      show: () => Promise.reject(new Error('not read')),
    } as unknown as ChangeBidDeps['instances'],
    ...over,
  };
  return { deps, ask, sent, spend };
}

describe('change bid (core flow)', () => {
  it('asks the bid of an outbid instance beside its minimum and the on-demand price, checks the spend cap, sends it and follows the boot', async () => {
    const { deps, ask, sent, spend } = kit([{ input: '0.5' }]);
    const end = await changeBidFlow(deps, outbid(), undefined);
    assert.equal(ask.asked[0]!.kind, 'input');
    assert.match(
      ask.asked[0]!.text,
      /\(now \$0\.300\/h · minimum now \$0\.400\/h · on demand \$0\.900\/h\)\. A bid of at least the minimum runs it again\.$/,
    );
    assert.deepEqual(spend, [0.5], 'an outbid instance bills the whole new bid again');
    assert.deepEqual(sent, [0.5]);
    assert.equal(end?.notice.severity, 'info');
    assert.deepEqual(end?.sent, { kind: 'done', follow: 'boot' });
  });

  it('tells an on-demand instance it has no bid, and asks nothing', async () => {
    const { deps, ask, sent } = kit([]);
    const end = await changeBidFlow(deps, outbid({ is_bid: false, actual_status: 'running' }), undefined);
    assert.match(end!.notice.text, /rents on demand; only an interruptible instance has a bid to change\.$/);
    assert.deepEqual(ask.asked, []);
    assert.deepEqual(sent, []);
  });

  it('a refused spend cap or a dismissed box sends nothing', async () => {
    const refused = kit([{ input: '0.5' }], { allowsSpend: () => Promise.resolve(false) });
    assert.equal(await changeBidFlow(refused.deps, outbid(), undefined), undefined);
    assert.deepEqual(refused.sent, []);
    const dismissed = kit([{ input: undefined }]);
    assert.equal(await changeBidFlow(dismissed.deps, outbid(), undefined), undefined);
    assert.deepEqual(dismissed.sent, []);
  });

  it('Move to On-Demand says what the outbid instance still bills, or what to do when nothing is listed', () => {
    const none = moveToOnDemandQuestion(outbid(), []);
    assert.ok('notice' in none && /no on-demand .* offer is listed now/.test(none.notice.text));
    const some = moveToOnDemandQuestion(outbid(), [priceableOffer()]);
    assert.ok('placeholder' in some);
    assert.match(some.placeholder, /billing its disk \$0\.020\/h, until you destroy it/);
  });
});
