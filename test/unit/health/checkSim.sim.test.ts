// Check Machine Health end to end: the script over real ssh into the simulator's instances, whose
// nvidia-smi answers from the rented offer (test/marketplace/nvidiaSmi.ts). An honest machine is
// "as offered"; one the control route makes lie is flagged, with Destroy Instance offered, and the
// destroy happens only after the modal's yes. Slow (sshd, containers, a 256 MiB write): left out
// of test:fast.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { GpuRentalClient } from '../../../src/core/api/client';
import type { Offer } from '../../../src/core/api/offers';
import { checkHealth, destroyAfterCheck, type HealthDeps } from '../../../src/core/health/check';
import { silentLogger } from '../../../src/core/log';
import { silentProgress } from '../../../src/core/progress';
import { generateKey } from '../../../src/core/ssh/localKeys';
import { runRemote, type SshTarget } from '../../../src/core/ssh/remote';
import { sshdAvailable } from '../../marketplace/sshd';
import { clientFor, DEMO_KEY, reachableInstance, simulatorForSuite, tempDirForSuite } from '../../support';
import { scriptedAsk, type Answer } from '../../support/scriptedAsk';

(sshdAvailable() ? describe : describe.skip)('health: Check Machine Health over ssh (simulator)', function () {
  this.timeout(120_000);
  const sim = simulatorForSuite({ ssh: true, bootSeconds: 0.2, seed: 61 });
  const home = tempDirForSuite('gpu-rental-health-');
  let client: GpuRentalClient;
  let keyPath: string;
  let offers: Offer[];

  before(async () => {
    ({ client } = clientFor(sim.url, DEMO_KEY));
    const key = await generateKey(join(home(), 'key'), 'health');
    keyPath = key.privateKeyPath;
    await client.sshKeys.create(key.publicKey);
    offers = await client.offers.search({
      query: { filters: { rentable: { eq: true }, num_gpus: { gte: 2 } }, order: [], type: 'on-demand' },
      limit: 2,
    });
    assert.equal(offers.length, 2, 'two multi-GPU offers to rent');
  });

  const deps = (target: SshTarget, answers: Answer[] = []): HealthDeps & { ask: ReturnType<typeof scriptedAsk> } => ({
    ask: scriptedAsk(answers),
    instances: client.instances,
    sshTarget: () => Promise.resolve(target),
    run: (t, script, timeoutMs, signal) => runRemote(t, script, { timeoutMs, signal }),
    progress: silentProgress(),
    now: () => Date.now(),
    logger: silentLogger,
  });

  it('an honest machine is as offered; one whose nvidia-smi lies is flagged and destroyed only after the confirmation', async () => {
    const honest = (await client.instances.create(offers[0]!.id, { image: 'ubuntu:22.04', disk: 8 })).instanceId;
    const liar = (await client.instances.create(offers[1]!.id, { image: 'ubuntu:22.04', disk: 8 })).instanceId;
    try {
      const honestTarget = await reachableInstance(client, honest, keyPath);
      const first = await checkHealth(deps(honestTarget), await client.instances.show(honest));
      assert.equal(first.kind, 'checked');
      if (first.kind !== 'checked') return;
      assert.equal(first.verdict.matches, true, first.verdict.text);
      assert.equal(first.notice.severity, 'info', first.notice.text);
      assert.deepEqual(first.notice.actions ?? [], [], 'nothing to destroy');
      assert.match(first.notice.text, new RegExp(`${offers[0]!.num_gpus}× ${offers[0]!.gpu_name} as offered`));
      assert.match(first.notice.text, /It writes .+\/s to its disk/, 'the write test ran in the container');

      const liarTarget = await reachableInstance(client, liar, keyPath);
      sim.control.setGpuLie(liar, { name: 'NVIDIA GeForce GTX 1080', missing: 1, ecc: 2, p2pOff: true });
      const flagged = await checkHealth(deps(liarTarget), await client.instances.show(liar));
      assert.equal(flagged.kind, 'checked');
      if (flagged.kind !== 'checked') return;
      assert.equal(flagged.verdict.matches, false);
      const codes = flagged.verdict.findings.filter((f) => f.level === 'mismatch').map((f) => f.code);
      assert.deepEqual([...new Set(codes)].sort(), ['count', 'ecc', 'model']);
      assert.match(flagged.notice.text, /Not what was offered/);
      assert.match(flagged.notice.text, /GTX 1080/);
      assert.match(flagged.notice.text, /It has cost about \$[\d.]+ so far/);
      assert.deepEqual(flagged.notice.actions, ['destroy']);

      // No at the modal: the instance stays.
      const declined = deps(liarTarget, [{ confirm: false }]);
      assert.equal((await destroyAfterCheck(declined, flagged.instance, flagged.verdict)).kind, 'declined');
      assert.equal((await client.instances.show(liar)).actual_status, 'running');
      // Yes: destroyed through the destroy action.
      const confirmed = deps(liarTarget, [{ confirm: true }]);
      const end = await destroyAfterCheck(confirmed, flagged.instance, flagged.verdict);
      assert.equal(end.kind === 'acted' && end.destroyed, true);
      assert.match(confirmed.ask.asked[0]!.detail, /GTX 1080/, 'the modal says why');
      assert.ok(!(await client.instances.list()).some((i) => i.id === liar), 'the lying instance is gone');

      // The honest one tells the truth again after a lie is taken back.
      sim.control.setGpuLie(honest, { p2pOff: true });
      const slow = await checkHealth(deps(honestTarget), await client.instances.show(honest));
      assert.ok(slow.kind === 'checked' && slow.verdict.matches && slow.notice.severity === 'warning');
      assert.match(slow.kind === 'checked' ? slow.notice.text : '', /P2P is off between its GPUs/);
      sim.control.setGpuLie(honest, {});
      const again = await checkHealth(deps(honestTarget), await client.instances.show(honest));
      assert.ok(again.kind === 'checked' && again.notice.severity === 'info', again.kind === 'checked' ? again.notice.text : again.kind);
    } finally {
      await client.instances.destroy(honest).catch(() => undefined);
      await client.instances.destroy(liar).catch(() => undefined);
    }
  });
});
