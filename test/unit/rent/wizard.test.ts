import assert from 'node:assert/strict';
import { ONSTART_MAX_CHARS } from '../../../src/core/api/limits';
import { presentOffer } from '../../../src/core/offers/present';
import type { RentNotice } from '../../../src/core/rent/flow';
import { runtypeLaunchMode } from '../../../src/core/rent/launchMode';
import { rentConfirmation } from '../../../src/core/rent/confirmation';
import { rentWizard, type WizardInput } from '../../../src/core/rent/wizard/wizard';
import { priceableOffer } from '../../support';
import { scriptedSteps, type StepAnswer } from './scriptedSteps';

const offer = priceableOffer({ id: 5, disk_space: 100, direct_port_count: 2 });
const base: WizardInput = { offer, credit: 100, recentImages: [], defaultLabel: 'gpu-rental-1', idleStopMinutes: 30 };

async function run(answers: readonly StepAnswer[], extra: Partial<WizardInput> = {}) {
  const steps = scriptedSteps(answers);
  const notices: RentNotice[] = [];
  const plan = await rentWizard({ ...base, ...extra }, { steps, notify: (n) => notices.push(n) });
  assert.equal(steps.left(), 0, 'every scripted answer was asked for');
  return { plan, steps, notices };
}

/** The answers that go straight through: an image, 40 GB, SSH through the proxy, a label, no script, Rent. */
const forward: StepAnswer[] = [
  { pick: 'ubuntu:22.04' },
  { input: '40' },
  { pick: 'SSH through the proxy' },
  { input: 'train' },
  { pick: 'No start-up script' },
  { pick: 'Rent for' },
];

const rowsOf = (asked: { rows?: Array<{ label: string; description?: string }> }) =>
  (asked.rows ?? []).map((r) => ({ label: r.label, description: r.description }));

describe('rent wizard (core flow)', () => {
  it('asks the six steps in order and rents what was answered, with the price on the confirmation', async () => {
    const { plan, steps } = await run(forward);
    assert.deepEqual(
      steps.asked.map((a) => [a.step, a.kind]),
      [
        [1, 'pick'],
        [2, 'input'],
        [3, 'pick'],
        [4, 'input'],
        [5, 'pick'],
        [6, 'pick'],
      ],
    );
    assert.equal(steps.asked[0]!.title, `Rent ${presentOffer(offer).label} (offer 5)`);
    assert.deepEqual(
      {
        image: plan?.image,
        template: plan?.template,
        disk: plan?.disk,
        runtype: plan?.runtype,
        label: plan?.label,
        onstart: plan?.onstart,
      },
      { image: 'ubuntu:22.04', template: undefined, disk: 40, runtype: 'ssh_proxy', label: 'train', onstart: undefined },
    );
    const rows = rowsOf(steps.asked[5]!);
    assert.deepEqual(rows[0], { label: '$(rocket) Rent for $0.410/h', description: 'about $9.84 per day' });
    assert.ok(rows.some((r) => r.label === 'GPU $0.400/h'));
    assert.ok(rows.some((r) => r.label === 'Disk $0.010/h' && r.description === '40 GB, billed until destroyed'));
    assert.ok(rows.some((r) => r.label === 'Credit after a day: $90.16' && r.description === 'now $100.00'));
    assert.match(steps.asked[1]!.text, /^Disk size in GB \(up to 100\)\. Disk: \$[\d.]+\/h; total \$[\d.]+\/h\.$/);
  });

  it('Back returns to the step before, showing what was answered there', async () => {
    const { plan, steps } = await run([
      { pick: 'ubuntu:22.04' },
      { input: '40' },
      'back', // from the connection step to the disk
      'accept', // the disk step shows 40 again
      { pick: 'SSH through the proxy' },
      'back', // from the label to the connection
      'accept', // proposed: the proxy chosen before, not the direct SSH a direct offer starts with
      { input: 'train' },
      { pick: 'No start-up script' },
      { pick: 'Rent for' },
    ]);
    assert.deepEqual(
      steps.asked.map((a) => a.step),
      [1, 2, 3, 2, 3, 4, 3, 4, 5, 6],
    );
    assert.equal(steps.asked[3]!.value, '40');
    assert.equal(steps.asked[5]!.value, 'gpu-rental-1', 'the label step proposes the default label');
    assert.equal(plan?.runtype, 'ssh_proxy');
    assert.equal(plan?.disk, 40);
  });

  it('Cancel at any step rents nothing', async () => {
    for (let at = 0; at < forward.length; at++) {
      const { plan, steps } = await run([...forward.slice(0, at), 'cancel']);
      assert.equal(plan, undefined, `cancelled at step ${at + 1}`);
      assert.equal(steps.asked.at(-1)!.step, at + 1);
    }
  });

  it('offers a bid on an offer with a minimum bid, and the confirmation then shows the bid and its price', async () => {
    const biddable = priceableOffer({ id: 6, disk_space: 100, min_bid: 0.2 });
    const { plan, steps } = await run([...forward.slice(0, 5), { pick: 'Rental: on-demand' }, { input: '0.25' }, { pick: 'Rent for' }], {
      offer: biddable,
    });
    const before = rowsOf(steps.asked[5]!);
    assert.ok(
      before.some(
        (r) => r.label === '$(tag) Rental: on-demand $0.400/h' && r.description === 'select to bid instead (minimum now $0.200/h)',
      ),
    );
    assert.match(steps.asked[6]!.text, /^Bid in \$\/h for the GPU part \(minimum now \$0\.200\/h, on demand \$0\.400\/h\)/);
    const after = rowsOf(steps.asked[7]!);
    assert.equal(after[0]!.label, '$(rocket) Rent for $0.260/h');
    assert.ok(after.some((r) => r.label === '$(tag) Interruptible: bid $0.250/h (on-demand $0.400/h)'));
    assert.equal(plan?.bid, 0.25);
  });

  it("shows the confirmation's builder's rows: the same rows automation's modal is built beside", async () => {
    const { plan, steps } = await run(forward);
    const built = rentConfirmation({ offer, plan: plan!, credit: 100, templateMode: undefined });
    assert.deepEqual(
      steps.asked[5]!.rows!.map((r) => ({ label: r.label, description: r.description })),
      built.rows.map((r) => ({ label: r.label, description: r.description })),
    );
    assert.equal(steps.asked[5]!.text, built.placeholder);
    assert.equal(built.title, `Rent ${presentOffer(offer).label} for $0.410/h?`);
  });

  it("Rent With Template starts at the disk, offers the template's own mode first, and keeps it (no runtype)", async () => {
    const jupyter = runtypeLaunchMode('jupyter_proxy ssh_proxy');
    const { plan, steps } = await run(['accept', 'accept', 'accept', { pick: 'No start-up script' }, { pick: 'Rent for' }], {
      template: 'abc123',
      templateMode: () => Promise.resolve(jupyter),
    });
    assert.equal(steps.asked[0]!.step, 2);
    assert.equal(steps.asked[1]!.rows![0]!.label, `The template's mode: ${jupyter.text}`);
    assert.equal(plan?.template, 'abc123');
    assert.equal(plan?.runtype, undefined);
    const row = steps.asked[4]!.rows!.find((r) => r.label === 'template abc123');
    assert.match(row?.description ?? '', new RegExp(`^${jupyter.text}, as the template says · "gpu-rental-1"$`));
  });

  it('refuses a start-up script longer than the service takes, says so, and asks again', async () => {
    const text = 'x'.repeat(ONSTART_MAX_CHARS + 1);
    const { plan, steps, notices } = await run(
      [...forward.slice(0, 4), { pick: 'Use train.sh' }, { pick: 'No start-up script' }, { pick: 'Rent for' }],
      { activeEditor: { name: 'train.sh', text } },
    );
    assert.deepEqual(
      steps.asked.map((a) => a.step),
      [1, 2, 3, 4, 5, 5, 6],
    );
    assert.equal(notices.length, 1);
    assert.equal(notices[0]!.severity, 'error');
    assert.match(notices[0]!.text, /^GPU Rental: the start-up script has \d+ characters; the service accepts at most \d+\.$/);
    assert.equal(plan?.onstart, undefined);
  });

  it('Back from a typed start-up command returns to the choice of script', async () => {
    const { steps } = await run([
      ...forward.slice(0, 4),
      { pick: 'Type a command' },
      'back',
      { pick: 'No start-up script' },
      { pick: 'Rent for' },
    ]);
    assert.deepEqual(
      steps.asked.map((a) => [a.step, a.kind]),
      [
        [1, 'pick'],
        [2, 'input'],
        [3, 'pick'],
        [4, 'input'],
        [5, 'pick'],
        [5, 'input'],
        [5, 'pick'],
        [6, 'pick'],
      ],
    );
  });

  it('turns the idle stop off and on from the confirmation', async () => {
    const { plan, steps } = await run([
      ...forward.slice(0, 5),
      { pick: 'Idle stop after 30 min' },
      { pick: 'No idle stop' },
      { pick: 'Idle stop after' },
      { pick: 'Rent for' },
    ]);
    assert.equal(steps.asked.length, 9);
    assert.equal(plan?.idleStopMinutes, 0);
  });
});
