import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { Offer } from '../../src/core/api/offers';
import type { RentPlan } from '../../src/core/rent/plan';
import type { InputPrompt } from '../../src/ui/pickers/prompts';
import type { InstanceItem } from '../../src/ui/views/instancesView';
import { api, control, eventually, extensionApi, recordNotifications, signIn, sim } from './support';

interface Listed extends Offer {
  min_bid: number;
}

/** The n-th cheapest rentable offer as a bid search lists it (at its minimum bid). */
async function bidOffer(n: number): Promise<Listed> {
  const body = { rentable: { eq: true }, verified: { eq: true }, order: [['dph_total', 'asc']], limit: 60, type: 'bid' };
  const res = (await api('POST', '/api/v0/bundles/', sim.key, body)) as { offers: Listed[] };
  const offer = res.offers[n];
  assert.ok(offer, 'a bid offer to rent');
  return offer;
}

describe('interruptible rents', () => {
  const rented: number[] = [];
  const asked: InputPrompt[] = [];
  const confirmed: string[] = [];

  beforeEach(async () => {
    const x = await signIn();
    asked.length = 0;
    confirmed.length = 0;
    x.test.answerPrompts({
      confirm: (title, detail) => {
        confirmed.push(`${title} ${detail}`);
        return Promise.resolve(true);
      },
      // Takes what the box suggests: Raise Bid suggests just over the new minimum.
      input: (options) => {
        asked.push(options);
        return Promise.resolve(options.value);
      },
    });
  });

  after(async () => {
    for (const id of rented) await api('DELETE', `/api/v0/instances/${id}/`, sim.key).catch(() => undefined);
  });

  it('rents a bid, is told once when it is outbid, and Raise Bid runs it again', async () => {
    const x = await extensionApi();
    const offer = await bidOffer(7);
    const bid = Math.round((offer.min_bid + 0.01) * 1000) / 1000;
    const label = `it-bid-${Date.now().toString(36)}`;
    const plan: RentPlan = { image: 'ubuntu:22.04', disk: 10, runtype: 'ssh_proxy', label, bid };
    const id = await vscode.commands.executeCommand<number | undefined>('gpuRental.rentOffer', offer.id, plan);
    assert.ok(typeof id === 'number', 'rented');
    rented.push(id);
    assert.match(confirmed.join('\n'), /Interruptible: stopped if someone bids more; the disk still bills\. GPU bid \$/);
    await eventually(() => x.test.instances().find((i) => i.id === id && i.actual_status === 'running'), 'running', 20_000);
    const running = x.test.instances().find((i) => i.id === id)!;
    assert.equal(running.is_bid, true);
    assert.ok(Math.abs((running.dph_base ?? 0) - bid) < 1e-6, 'the GPU bills at the bid');

    // Raise Bid is what this user clicks on the outbid notification.
    const w = vscode.window;
    const original = w.showWarningMessage;
    w.showWarningMessage = ((message: string, ...rest: unknown[]) =>
      /was outbid and stopped/.test(message)
        ? Promise.resolve('Raise Bid')
        : (original as (...a: unknown[]) => Thenable<unknown>).call(w, message, ...rest)) as typeof w.showWarningMessage;
    const notices = x.test.outbidNotices().length;
    const notes = recordNotifications();
    try {
      const { min_bid: min } = (await control('POST', `instances/${id}/outbid`, {})) as { min_bid: number };
      assert.ok(min > bid);
      await x.test.refreshInstances();
      const notice = await eventually(() => x.test.outbidNotices().find((n) => n.instanceId === id), 'the outbid notification');
      assert.match(
        notice.text,
        new RegExp(`^GPU Rental: "${label}" \\(.+\\) was outbid and stopped\\. Its disk still bills \\$0\\.\\d{3}/h\\.$`),
      );
      assert.deepEqual(notice.buttons, ['Raise Bid', 'Move to On-Demand']);

      // The bid box, opened by Raise Bid: the minimum and the on-demand price beside the bid, just over the minimum.
      const box = await eventually(() => asked.find((a) => /Change the bid/.test(a.title)), 'the bid box');
      assert.match(box.prompt, /minimum now \$\d+\.\d{3}\/h · on demand \$\d+\.\d+\/h\)\. A bid of at least the minimum runs it again\./);
      const suggested = Number(box.value);
      assert.ok(suggested > min && suggested < min * 1.1, `suggests just over ${min}: ${box.value}`);
      assert.ok(box.validate?.(String(min - 0.001)), 'a bid under the minimum is refused');

      await eventually(() => x.test.instances().find((i) => i.id === id && i.actual_status === 'running'), 'running again', 20_000);
      // The boot status bar followed it back up, as after a start: it says when it runs.
      await eventually(() => notes.seen.find((n) => n.message.includes(label) && / is running\.$/.test(n.message)), 'told it runs again');
      const after = x.test.instances().find((i) => i.id === id)!;
      assert.ok(Math.abs((after.dph_base ?? 0) - suggested) < 1e-6, 'billing at the new bid');
      await x.test.refreshInstances();
      assert.equal(x.test.outbidNotices().length, notices + 1, 'one notification for one outbid');
    } finally {
      notes.dispose();
      w.showWarningMessage = original;
    }
  });

  it('shows an outbid row with its disk rate, moves to the same GPUs on demand, and sends nothing for another profile', async () => {
    const x = await extensionApi();
    const offer = await bidOffer(9);
    const label = `it-bid-row-${Date.now().toString(36)}`;
    const plan: RentPlan = { image: 'ubuntu:22.04', disk: 10, runtype: 'ssh_proxy', label, bid: offer.min_bid };
    const id = await vscode.commands.executeCommand<number | undefined>('gpuRental.rentOffer', offer.id, plan);
    assert.ok(typeof id === 'number');
    rented.push(id);
    await eventually(() => x.test.instances().find((i) => i.id === id && i.actual_status === 'running'), 'running', 20_000);
    await control('POST', `instances/${id}/outbid`, {});
    await x.test.refreshInstances();
    const row = await eventually(
      async () =>
        (await x.test.instanceItems()).find(
          (i): i is InstanceItem => 'instance' in i && i.instance.id === id && /^outbid/.test(String(i.description)),
        ),
      'the outbid row',
    );
    assert.match(String(row.description), /^outbid · \$0\.\d{3}\/h disk/);
    assert.match(String(row.contextValue), /\+interruptible\+outbid/);
    assert.match(row.markdownTooltip, /outbid: the service stopped it because someone bid more/);

    // Move to On-Demand: on-demand offers of the same GPUs, and what happens to the outbid instance.
    const outbid = x.test.instances().find((i) => i.id === id)!;
    const w = vscode.window;
    const original = w.showQuickPick;
    const shown: Array<{ items: Array<{ offer: Offer }>; placeHolder: string }> = [];
    w.showQuickPick = ((items: Array<{ offer: Offer }>, options: vscode.QuickPickOptions) => {
      shown.push({ items, placeHolder: options.placeHolder ?? '' });
      return Promise.resolve(undefined);
    }) as unknown as typeof w.showQuickPick;
    try {
      await vscode.commands.executeCommand('gpuRental.moveToOnDemand', id);
    } finally {
      w.showQuickPick = original;
    }
    assert.equal(shown.length, 1, 'a pick of on-demand offers');
    assert.ok(shown[0]!.items.length > 0);
    assert.ok(
      shown[0]!.items.every((i) => i.offer.gpu_name === outbid.gpu_name && i.offer.num_gpus === outbid.num_gpus),
      'the same GPU model and count',
    );
    assert.match(
      shown[0]!.placeHolder,
      /^The outbid instance is kept, billing its disk \$0\.\d{3}\/h, until you destroy it\. Copy Folder to Another Instance moves its data\.$/,
    );

    const notifications = recordNotifications();
    try {
      const before = (await api('GET', `/api/v0/instances/${id}/`, sim.key)) as { instances: { dph_base: number } };
      await vscode.commands.executeCommand('gpuRental.changeBid', id, undefined, {
        baseUrl: 'https://elsewhere.example',
        profileId: 'work',
      });
      const said = notifications.seen.find((n) => /Nothing was sent/.test(n.message));
      assert.ok(said, 'it says the instance is in another profile');
      assert.match(said.message, /Switch to that profile/);
      assert.equal(asked.length, 0, 'no bid was asked');
      const after = (await api('GET', `/api/v0/instances/${id}/`, sim.key)) as { instances: { dph_base: number } };
      assert.equal(after.instances.dph_base, before.instances.dph_base, 'the bid is unchanged');
    } finally {
      notifications.dispose();
    }
  });
});
