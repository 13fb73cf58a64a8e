import assert from 'node:assert/strict';
import { bulkFlow, type BulkDeps } from '../../../src/core/instances/bulk';
import type { Ask } from '../../../src/core/prompts';
import { scriptedAsk } from '../../support/scriptedAsk';
import { fakeInstances, flowDeps, lostAnswer, make, refusal, stopped } from './fakes';

function bulkDeps(ask: Ask, instances = fakeInstances(), allowed = true) {
  const f = flowDeps(ask, instances, allowed);
  const deps: BulkDeps = f.deps;
  return { ...f, deps };
}

describe('several instances at once, as a flow', () => {
  it('stops two with one confirmation that lists each rate now and after, then says so once', async () => {
    const ask = scriptedAsk([{ confirm: true }]);
    const f = bulkDeps(ask);
    const end = await bulkFlow(f.deps, 'stop', [make(1), make(2)]);
    assert.equal(ask.asked.length, 1, 'one confirmation');
    assert.equal(ask.asked[0]!.text, 'Stop these 2 instances?');
    assert.deepEqual(ask.asked[0]!.options, ['Stop 2']);
    for (const id of [1, 2]) assert.match(ask.asked[0]!.detail, new RegExp(`#${id}\\): \\$0\\.400/h now → \\$0\\.020/h for its disk`));
    assert.match(ask.asked[0]!.detail, /GPU billing ends; disks still bill/);
    assert.deepEqual(f.instances.requested('stop'), [1, 2]);
    assert.deepEqual(f.after.log, ['watch 1', 'watch 2', 'refresh']);
    assert.equal(end.kind, 'acted');
    assert.deepEqual(end.kind === 'acted' && end.notice, {
      severity: 'info',
      text: 'GPU Rental: 2 stopping. Their disks still bill $0.040/h until you destroy them.',
      actions: [],
    });
  });

  it('starts only the stopped ones selected, naming the running one it leaves alone, after the cap allows their total', async () => {
    const ask = scriptedAsk([{ confirm: true }]);
    const f = bulkDeps(ask);
    await bulkFlow(f.deps, 'start', [stopped(1), stopped(2), make(3)]);
    assert.equal(ask.asked[0]!.text, 'Start these 2 instances?');
    assert.match(ask.asked[0]!.detail, /Together they will bill \$0\.800\/h once running/);
    assert.match(ask.asked[0]!.detail, /Left alone .*#3\), running/);
    assert.equal(f.spendAsked.length, 1);
    assert.ok(Math.abs(f.spendAsked[0]!.adds - 0.76) < 1e-9, 'the cap is asked about what starting adds');
    assert.deepEqual(f.instances.requested('start'), [1, 2], 'never the one not stopped');
    assert.deepEqual(f.after.log, ['track 1', 'track 2', 'refresh']);
  });

  it('starts nothing and asks nothing more when the spend cap refuses', async () => {
    const f = bulkDeps(scriptedAsk([]), fakeInstances(), false);
    assert.deepEqual(await bulkFlow(f.deps, 'start', [stopped(1), stopped(2)]), { kind: 'declined' });
    assert.deepEqual(f.instances.calls, []);
  });

  it('destroys three with one confirmation that lists them, notes what a folder holds, then says so once', async () => {
    const ask = scriptedAsk([{ confirm: true }]);
    const f = bulkDeps(ask);
    const measure = async (i: { id: number }) =>
      i.id === 2 ? { folder: '/root', bytes: 5_000_000 } : i.id === 3 ? undefined : { folder: '/root', bytes: undefined };
    const end = await bulkFlow({ ...f.deps, beforeDestroy: { measure } }, 'destroy', [make(1), make(2), make(3)]);
    assert.equal(ask.asked[0]!.text, 'Destroy these 3 instances?');
    assert.deepEqual(ask.asked[0]!.options, ['Destroy 3']);
    for (const id of [1, 2, 3]) assert.match(ask.asked[0]!.detail, new RegExp(`"m${id}" \\(.+, #${id}\\): \\$0\\.400/h now → nothing`));
    assert.match(ask.asked[0]!.detail, /\/root holds 5\.0 MB: to download it first, destroy this one alone/);
    assert.match(ask.asked[0]!.detail, /The files of "m3" \(RTX 4090, #3\) could not be checked over SSH/);
    assert.match(ask.asked[0]!.detail, /These 3 instances and their disks are deleted for good.*\$1\.20\/h stops/);
    assert.deepEqual(f.instances.requested('destroy'), [1, 2, 3]);
    assert.deepEqual(f.after.log, ['forget 1', 'forget 2', 'forget 3', 'refresh']);
    assert.deepEqual(end.kind === 'acted' && end.notice, { severity: 'info', text: 'GPU Rental: 3 destroyed.', actions: [] });
  });

  it('changes nothing when the one confirmation is declined', async () => {
    const f = bulkDeps(scriptedAsk([{ confirm: false }]));
    assert.deepEqual(await bulkFlow(f.deps, 'destroy', [make(1), make(2)]), { kind: 'declined' });
    assert.deepEqual(f.instances.calls, []);
    assert.deepEqual(f.after.log, []);
  });

  it('says nothing applies, and asks nothing, when no selected instance can take the action', async () => {
    const f = bulkDeps(scriptedAsk([]));
    const end = await bulkFlow(f.deps, 'stop', [stopped(1), stopped(2)]);
    assert.equal(end.kind, 'nothingApplies');
    assert.match(
      end.kind === 'nothingApplies' ? end.notice.text : '',
      /^GPU Rental: none of the 2 selected instances can be stopped now\. /,
    );
    assert.deepEqual(f.instances.calls, []);
  });

  it('says which stop is unknown when its answer and a second look are both lost, with Refresh, and stops the other', async () => {
    const instances = fakeInstances();
    instances.fail('stop', 2, lostAnswer);
    instances.fail('show', 2, lostAnswer);
    const f = bulkDeps(scriptedAsk([{ confirm: true }]), instances);
    const end = await bulkFlow(f.deps, 'stop', [make(1, { label: 'many-d' }), make(2, { label: 'many-e' })]);
    assert.equal(end.kind, 'acted');
    if (end.kind !== 'acted') return;
    assert.equal(end.notice.severity, 'warning');
    assert.deepEqual(end.notice.actions, ['refresh']);
    assert.match(
      end.notice.text,
      /^GPU Rental: 1 stopping; 1 unknown \("many-e" \(.+, #2\): neither the answer nor a second look came back, so it may still bill\)\./,
    );
    assert.match(end.notice.text, /Refresh the Instances view to see what really happened/);
    assert.deepEqual(f.after.log, ['watch 1', 'refresh'], 'only the one seen stopping is watched');
    assert.ok(f.logger.lines.some((l) => l.startsWith('warn GPU Rental: 1 stopping; 1 unknown')));
  });

  it('calls a start whose answer was lost unknown (it may bill), and a refused one failed, while the others go on', async () => {
    const instances = fakeInstances();
    instances.fail('start', 1, lostAnswer);
    instances.fail('start', 2, refusal);
    const f = bulkDeps(scriptedAsk([{ confirm: true }]), instances);
    const end = await bulkFlow(f.deps, 'start', [stopped(1), stopped(2), stopped(3)]);
    if (end.kind !== 'acted') return assert.fail(end.kind);
    assert.deepEqual(
      end.outcomes.map((o) => ('refused' in o ? 'refused' : o.result.kind)),
      ['unknown', 'refused', 'done'],
    );
    const first = end.outcomes[0]!;
    assert.match(
      'result' in first ? first.result.message : '',
      /^it is not known whether "m1" .* is starting .*; it may bill, billing \$0\.400\/h once running\.$/,
    );
    assert.match(end.notice.text, /^GPU Rental: 1 starting; 1 failed .*; 1 unknown/);
    assert.deepEqual(f.after.log, ['track 3', 'refresh']);
  });
});
