import assert from 'node:assert/strict';
import { destroyFlow, labelFlow, rebootFlow, sshCommandToCopy, startFlow, stopFlow } from '../../../src/core/instances/flows';
import { targetChoice } from '../../../src/core/instances/target';
import { scriptedAsk } from '../../support/scriptedAsk';
import { fakeInstances, flowDeps, lostAnswer, make, stopped } from './fakes';

describe('the actions on one instance', () => {
  it('reboots only after the user confirms, naming the instance and saying files are kept', async () => {
    const ask = scriptedAsk([{ confirm: false }]);
    const f = flowDeps(ask);
    assert.equal(await rebootFlow(f.deps, make(1)), false);
    assert.match(ask.asked[0]!.text, /^Reboot "m1" \(RTX 4090, #1\)\?$/);
    assert.match(ask.asked[0]!.detail, /Files on its disk are kept\./);
    assert.deepEqual(f.instances.calls, [], 'declined: nothing asked of the service');

    const yes = flowDeps(scriptedAsk([{ confirm: true }]));
    assert.equal(await rebootFlow(yes.deps, make(1)), true);
    assert.deepEqual(yes.instances.requested('reboot'), [1]);
    assert.deepEqual(yes.after.log, ['track 1', 'refresh'], 'followed while it boots again');
  });

  it('destroys only after the confirmation, which names the instance, says the data is deleted and what stops billing', async () => {
    const ask = scriptedAsk([{ confirm: false }]);
    const f = flowDeps(ask);
    assert.deepEqual(await destroyFlow(f.deps, make(1, { label: 'training run' })), { kind: 'declined' });
    assert.match(ask.asked[0]!.text, /^Destroy "training run" \(RTX 4090, #1\)\?$/);
    assert.match(ask.asked[0]!.detail, /Its disk and every file on it are deleted for good\./);
    assert.match(ask.asked[0]!.detail, /Billing \(\$0\.400\/h now\) stops\. This cannot be undone\.$/);
    assert.deepEqual(ask.asked[0]!.options, ['Destroy']);
    assert.deepEqual(f.instances.calls, [], 'declined: still there');

    const yes = flowDeps(scriptedAsk([{ confirm: true }]));
    const end = await destroyFlow(yes.deps, make(1));
    assert.deepEqual(yes.instances.requested('destroy'), [1]);
    assert.deepEqual(yes.after.log, ['forget 1', 'refresh'], "this machine's SSH entry and forwards go with it");
    assert.equal(end.kind === 'acted' && end.destroyed, true);
    assert.deepEqual(end.kind === 'acted' && end.notice, {
      severity: 'info',
      text: 'GPU Rental: destroyed "m1" (RTX 4090, #1).',
      actions: [],
    });
  });

  it('says this window loses its connection when it is on the instance being destroyed', async () => {
    const ask = scriptedAsk([{ confirm: false }]);
    const f = flowDeps(ask);
    await destroyFlow({ ...f.deps, windowInstance: () => 1 }, make(1));
    assert.match(ask.asked[0]!.detail, /This window is connected to it and loses its connection\. This cannot be undone\./);
    const other = scriptedAsk([{ confirm: false }]);
    await destroyFlow({ ...flowDeps(other).deps, windowInstance: () => 2 }, make(1));
    assert.doesNotMatch(other.asked[0]!.detail, /loses its connection/);
  });

  it('offers Download First when the folder holds files, asks again after it, and destroys nothing when dismissed', async () => {
    const downloads: string[] = [];
    const beforeDestroy = {
      measure: async () => ({ folder: '/root', bytes: 3_200_000_000 }),
      download: async (_i: unknown, folder: string) => (downloads.push(folder), false),
    };
    const ask = scriptedAsk([{ choose: 'Download First' }, { choose: undefined }]);
    const f = flowDeps(ask);
    assert.deepEqual(await destroyFlow({ ...f.deps, beforeDestroy }, make(1)), { kind: 'declined' });
    assert.deepEqual(downloads, ['/root']);
    assert.equal(ask.asked.length, 2, 'a failed download never leads to a destroy: asked again');
    assert.deepEqual(ask.asked[0]!.options, ['Download First', 'Destroy']);
    assert.match(ask.asked[0]!.detail, /^\/root holds 3\.2 GB that goes with the instance\./);
    assert.deepEqual(f.instances.requested('destroy'), []);
  });

  it('says why the files could not be checked: a stopped instance has no address, a silent one did not answer', async () => {
    const measure = async () => undefined;
    const beforeDestroy = { measure, download: async () => true };
    const ask = scriptedAsk([{ confirm: false }, { confirm: false }]);
    const f = flowDeps(ask);
    await destroyFlow({ ...f.deps, beforeDestroy }, stopped(1));
    await destroyFlow({ ...f.deps, beforeDestroy }, make(2));
    assert.match(ask.asked[0]!.detail, /^Its files could not be checked: the instance is stopped, so it has no address to ask\./);
    assert.match(ask.asked[1]!.detail, /^Its files could not be checked over SSH \(no answer within 5 seconds/);
  });

  it('says a destroy whose answer and second look were lost is unknown, with Refresh, and forgets nothing', async () => {
    const instances = fakeInstances();
    instances.fail('destroy', 1, lostAnswer);
    instances.fail('show', 1, lostAnswer);
    const f = flowDeps(scriptedAsk([{ confirm: true }]), instances);
    const end = await destroyFlow(f.deps, make(1));
    assert.equal(end.kind, 'acted');
    if (end.kind !== 'acted') return;
    assert.equal(end.destroyed, false);
    assert.equal(end.notice.severity, 'warning');
    assert.deepEqual(end.notice.actions, ['refresh']);
    assert.match(end.notice.text, /^GPU Rental: it is not known whether GPU Rental destroyed "m1"/);
    assert.match(end.notice.text, /It may still bill, billing \$0\.400\/h\./);
    assert.deepEqual(f.after.log, ['refresh'], 'an instance that may still exist keeps its SSH entry');
  });

  it('stops, watches the instance and says its disk still bills', async () => {
    const f = flowDeps(scriptedAsk([]));
    const notice = await stopFlow(f.deps, make(1));
    assert.deepEqual(f.instances.requested('stop'), [1]);
    assert.deepEqual(f.after.log, ['watch 1', 'refresh']);
    assert.equal(notice.text, 'GPU Rental: stopping "m1" (RTX 4090, #1). Its disk still bills ($0.020/h) until you destroy it.');
  });

  it('starts only within the spend cap, asking the cap about what starting adds beyond the disk', async () => {
    const refused = flowDeps(scriptedAsk([]), fakeInstances(), false);
    assert.equal(await startFlow(refused.deps, stopped(1)), undefined);
    assert.deepEqual(refused.instances.calls, [], 'over the cap: not started');
    assert.equal(refused.spendAsked[0]!.what, 'started: "m1" (RTX 4090, #1) adds $0.380/h');

    const f = flowDeps(scriptedAsk([]));
    const notice = await startFlow(f.deps, stopped(1));
    assert.deepEqual(f.instances.requested('start'), [1]);
    assert.deepEqual(f.after.log, ['track 1', 'refresh']);
    assert.equal(notice?.text, 'GPU Rental: starting "m1" (RTX 4090, #1). It bills $0.400/h once running.');
  });

  it('labels with the text given, or asks with the current label filled in and refuses one too long', async () => {
    const f = flowDeps(scriptedAsk([]));
    assert.equal(await labelFlow(f.deps, make(1), '  training run '), true);
    assert.deepEqual(f.instances.calls, [['setLabel', 1, 'training run']]);

    const ask = scriptedAsk([{ input: 'x'.repeat(1025) }]);
    await assert.rejects(labelFlow(flowDeps(ask).deps, make(1), undefined), /At most 1024 characters/);
    const dismissed = flowDeps(scriptedAsk([{ input: undefined }]));
    assert.equal(await labelFlow(dismissed.deps, make(1), undefined), false);
    assert.deepEqual(dismissed.instances.calls, []);
  });

  it('copies a checked, quoted SSH command; names a bad address instead of copying it', () => {
    const good = sshCommandToCopy(make(1, { ssh_host: 'ssh4.example.com', ssh_port: 2222, public_ipaddr: '203.0.113.9', ports: {} }));
    assert.match(good.command ?? '', /^ssh -p \d+ root@\S+$/);
    assert.match(good.notice.text, /^GPU Rental: copied "ssh -p/);
    const bad = sshCommandToCopy(make(2, { ssh_host: 'evil; rm -rf ~', ssh_port: 22, public_ipaddr: null }));
    assert.equal(bad.command, undefined);
    assert.equal(bad.notice.severity, 'error');
    assert.match(bad.notice.text, /^GPU Rental: nothing was copied for "m2"/);
    const none = sshCommandToCopy(stopped(3, { ssh_host: null, ssh_port: null, public_ipaddr: null }));
    assert.equal(none.notice.text, 'GPU Rental: "m3" (RTX 4090, #3) has no SSH address yet. Wait until it is running.');
  });

  it('offers from the palette only instances in a phase the command applies to, or says none is', () => {
    const pick = targetChoice([make(1), stopped(2)], 'Start which instance?', ['stopped'], 0);
    assert.equal(pick.kind, 'pick');
    if (pick.kind === 'pick') {
      assert.deepEqual(
        pick.items.map((i) => i.instance.id),
        [2],
      );
      assert.equal(pick.title, 'GPU Rental: Start which instance?');
      assert.match(pick.items[0]!.label, /^\$\([a-z-]+\) /);
    }
    assert.deepEqual(targetChoice([make(1)], 'Start which instance?', ['stopped'], 0), {
      kind: 'none',
      message: 'GPU Rental: no instance to act on (it must be stopped).',
    });
    assert.deepEqual(targetChoice([], 'x', ['running', 'stopped'], 0), {
      kind: 'none',
      message: 'GPU Rental: no instance to act on (it must be one of: running, stopped).',
    });
  });
});
