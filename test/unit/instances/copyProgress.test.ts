import assert from 'node:assert/strict';
import type { Instance } from '../../../src/core/api/instances';
import { followTransfer, readTransferStatus, type TransferEnd, type TransferReading } from '../../../src/core/instances/copyProgress';
import { listPoller } from '../../support';

const BEFORE = 'success, running ubuntu/ssh';
const running = (id: number, status_msg: string | null) =>
  ({ id, actual_status: 'running', intended_status: 'running', status_msg }) as Instance;

function track(wait: Promise<TransferEnd>): () => TransferEnd | 'pending' {
  let result: TransferEnd | 'pending' = 'pending';
  void wait.then((r) => (result = r));
  return () => result;
}

describe('reading a transfer from the status message', () => {
  it('the message from before, or none, says nothing yet', () => {
    assert.equal(readTransferStatus(BEFORE, BEFORE), undefined);
    assert.equal(readTransferStatus(`  ${BEFORE} `, BEFORE), undefined);
    assert.equal(readTransferStatus(null, BEFORE), undefined);
    assert.equal(readTransferStatus('', undefined), undefined);
  });

  it('progress, with a percentage when one is given', () => {
    assert.deepEqual(readTransferStatus('Copying /workspace: 42% (1.2 GB)', BEFORE), {
      kind: 'progress',
      message: 'Copying /workspace: 42% (1.2 GB)',
      percent: 42,
    });
    assert.deepEqual(readTransferStatus('Remote copy started', BEFORE), { kind: 'progress', message: 'Remote copy started' });
    assert.equal((readTransferStatus('Remote to Remote copy: 3/12 files, 4096 bytes', BEFORE) as { percent?: number }).percent, 25);
    assert.equal((readTransferStatus('Cloud copy: 0/0 files', BEFORE) as { percent?: number }).percent, undefined);
    assert.equal((readTransferStatus('bogus 250% done?', BEFORE) as TransferReading).kind, 'done');
  });

  it('words of completion and of failure end it; failure wins when both are there', () => {
    for (const text of [
      'Copy done',
      'rclone sync complete',
      'Transfer completed',
      'copy finished: 3 files',
      'Cloud copy: done, 2 files, 10 bytes',
    ])
      assert.equal(readTransferStatus(text, BEFORE)?.kind, 'done', text);
    for (const text of [
      'Copy failed: no space left',
      'rsync error: some files',
      'copy cancelled',
      'Copy aborted',
      'src path not found',
      'Remote to Remote copy: canceled',
    ])
      assert.equal(readTransferStatus(text, BEFORE)?.kind, 'failed', text);
    assert.equal(readTransferStatus('copy completed with errors', BEFORE)?.kind, 'failed');
  });

  it("a stale 'done' left from an earlier copy is not taken for this one's", () => {
    assert.equal(readTransferStatus('Copy done', 'Copy done'), undefined);
  });
});

describe('following a transfer through the poller', () => {
  it('reports each new message, then ends when one says done; keeps polling meanwhile and stops after', async () => {
    const t = listPoller([running(4, BEFORE)]);
    const seen: TransferReading[] = [];
    const result = track(followTransfer(t.poller, 4, { before: BEFORE, onProgress: (r) => seen.push(r) }));
    await t.clock.advance(1);
    assert.equal(t.poller.active, true, 'a running instance alone would not keep the poller going');
    t.set([running(4, 'Copying: 10%')]);
    await t.clock.advance(10_000);
    await t.clock.advance(10_000); // the same message again: told once
    t.set([running(4, 'Copying: 80%')]);
    await t.clock.advance(10_000);
    assert.equal(result(), 'pending');
    t.set([running(4, 'Copy done')]);
    await t.clock.advance(10_000);
    assert.deepEqual(result(), { outcome: 'done', message: 'Copy done' });
    assert.deepEqual(
      seen.map((r) => (r.kind === 'progress' ? r.percent : undefined)),
      [10, 80],
    );
    assert.equal(t.poller.active, false, 'the transfer no longer keeps the poller polling');
  });

  it('a copy made twice: its end, worded as the first one ended, is seen once the message has changed', async () => {
    const first = 'Remote to Remote copy: done, 2 files, 6 bytes';
    const t = listPoller([running(4, first)]);
    const result = track(followTransfer(t.poller, 4, { before: first }));
    await t.clock.advance(1);
    t.set([running(4, 'Remote to Remote copy: starting')]);
    await t.clock.advance(10_000);
    assert.equal(result(), 'pending');
    t.set([running(4, first)]);
    await t.clock.advance(10_000);
    assert.deepEqual(result(), { outcome: 'done', message: first });
  });

  it('ends as failed on a failure message', async () => {
    const t = listPoller([running(4, BEFORE)]);
    const result = track(followTransfer(t.poller, 4, { before: BEFORE }));
    await t.clock.advance(1);
    t.set([running(4, 'Copy failed: src_path does not exist')]);
    await t.clock.advance(10_000);
    assert.deepEqual(result(), { outcome: 'failed', message: 'Copy failed: src_path does not exist' });
  });

  it('ends as interrupted when the destination stops or is destroyed first', async () => {
    const t = listPoller([running(4, BEFORE)]);
    const result = track(followTransfer(t.poller, 4, { before: BEFORE }));
    await t.clock.advance(1);
    t.set([]);
    await t.clock.advance(10_000);
    assert.deepEqual(result(), { outcome: 'interrupted', phase: 'gone' });
  });

  it('ends as quiet when no new word comes for quietMs, each new message restarting the count', async () => {
    const t = listPoller([running(4, BEFORE)]);
    const result = track(followTransfer(t.poller, 4, { before: BEFORE, quietMs: 60_000, timers: t.clock }));
    await t.clock.advance(45_000);
    t.set([running(4, 'Copying: 5%')]);
    await t.clock.advance(10_000);
    assert.equal(result(), 'pending', 'the new message (seen at 50 s) restarted the count');
    await t.clock.advance(50_000);
    assert.equal(result(), 'pending');
    await t.clock.advance(6_000);
    assert.deepEqual(result(), { outcome: 'quiet', lastMessage: 'Copying: 5%' });
  });

  it('ends as cancelled when the signal aborts, and leaves the poller as it was', async () => {
    const t = listPoller([running(4, BEFORE)]);
    const abort = new AbortController();
    const result = track(followTransfer(t.poller, 4, { before: BEFORE, signal: abort.signal }));
    await t.clock.advance(1);
    abort.abort();
    await t.clock.advance(1);
    assert.deepEqual(result(), { outcome: 'cancelled' });
    assert.equal(t.poller.active, false);
  });
});
