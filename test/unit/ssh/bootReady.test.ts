import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Instance } from '../../../src/core/api/instances';
import { probeTarget, SshReadyProbe } from '../../../src/core/ssh/bootReady';
import { BootWatch, type BootChange } from '../../../src/core/ssh/bootWatch';
import { FakeClock, listPoller, settle } from '../../support';

const inst = (over: Partial<Instance> = {}) =>
  ({
    id: 7,
    label: 'train',
    gpu_name: 'RTX 4090',
    num_gpus: 1,
    actual_status: 'loading',
    intended_status: 'running',
    ssh_host: 'ssh4.example.net',
    ssh_port: 40022,
    image_runtype: 'ssh_proxy',
    ...over,
  }) as unknown as Instance;

/** A fake sshd: refuses until `acceptAt` (clock time), then answers; every attempt is recorded with its signal. */
function fakeSshd(clock: FakeClock, acceptAt = Number.POSITIVE_INFINITY) {
  const attempts: Array<{ at: number; host: string; port: number; signal: AbortSignal; pending: boolean }> = [];
  let hang = false;
  const sshd = {
    attempts,
    acceptAt,
    /** How long an answer takes (a far address); 0: at once. */
    refusalMs: 0,
    /** Attempts from now on neither answer nor fail until aborted. */
    hang: (on: boolean) => (hang = on),
    /** Attempts neither answered nor aborted yet. */
    inFlight: () => attempts.filter((a) => a.pending).length,
    readBanner: (host: string, port: number, { signal }: { timeoutMs: number; signal: AbortSignal }) => {
      const attempt = { at: clock.now(), host, port, signal, pending: true };
      attempts.push(attempt);
      return new Promise<string>((resolve, reject) => {
        const finish = (f: () => void) => {
          attempt.pending = false;
          f();
        };
        signal.addEventListener('abort', () => finish(() => reject(new Error('aborted'))));
        if (hang) return;
        const answer = () => {
          if (clock.now() >= sshd.acceptAt) finish(() => resolve('SSH-2.0-OpenSSH_9.6'));
          else finish(() => reject(new Error('ECONNREFUSED')));
        };
        if (sshd.refusalMs > 0) clock.setTimeout(answer, sshd.refusalMs);
        else answer();
      });
    },
  };
  return sshd;
}

describe('ssh: ready the moment sshd answers', () => {
  describe('SshReadyProbe', () => {
    it('knocks at once on the address the record gives, then 100 ms and 150 ms apart, and reports the banner once', async () => {
      const clock = new FakeClock(0);
      const sshd = fakeSshd(clock, 1_050);
      const ready: Array<{ id: number; at: number; banner: string }> = [];
      const probe = new SshReadyProbe({
        readBanner: sshd.readBanner,
        timers: clock,
        onReady: (i, banner) => ready.push({ id: i.id, at: clock.now(), banner }),
      });
      probe.follow([inst()]);
      await clock.advance(2_000);
      assert.deepEqual(
        sshd.attempts.map((a) => a.at),
        [0, 100, 250, 400, 550, 700, 850, 1_000, 1_150],
      );
      assert.ok(sshd.attempts.every((a) => a.host === 'ssh4.example.net' && a.port === 40022));
      assert.deepEqual(ready, [{ id: 7, at: 1_150, banner: 'SSH-2.0-OpenSSH_9.6' }]);
      assert.deepEqual(probe.probing, [], 'no knocking after the answer');
      await clock.advance(1_000);
      assert.equal(sshd.attempts.length, 9);
    });

    it('knocks every 2 s only once a boot has not answered for two minutes (a large image), and still finds it', async () => {
      const clock = new FakeClock(0);
      const sshd = fakeSshd(clock, 150_500);
      const ready: number[] = [];
      const probe = new SshReadyProbe({ readBanner: sshd.readBanner, timers: clock, onReady: () => ready.push(clock.now()) });
      probe.follow([inst()]);
      await clock.advance(119_000);
      const fast = sshd.attempts.length;
      assert.ok(fast > 700, `seven a second while it may answer any moment (${fast})`);
      await clock.advance(1_000);
      const atTwoMinutes = sshd.attempts.length;
      await clock.advance(30_000);
      const slow = sshd.attempts.length - atTwoMinutes;
      assert.ok(slow >= 14 && slow <= 16, `one every 2 s after two minutes (${slow} in 30 s)`);
      await clock.advance(5_000);
      assert.equal(ready.length, 1);
      assert.ok(ready[0]! - 150_500 <= 2_000, 'found within one slow knock');
      probe.dispose();
    });

    it('paces attempts from their start, so a slow refusal from a far address does not stretch the pace', async () => {
      const clock = new FakeClock(0);
      const sshd = fakeSshd(clock);
      sshd.refusalMs = 120;
      const probe = new SshReadyProbe({ readBanner: sshd.readBanner, timers: clock, onReady: () => {} });
      probe.follow([inst()]);
      await clock.advance(1_000);
      assert.deepEqual(
        sshd.attempts.map((a) => a.at),
        [0, 120, 270, 420, 570, 720, 870],
        'the second waits for the first to end: never two in flight',
      );
      probe.dispose();
    });

    it('keeps at most one attempt in flight per instance, and a new snapshot does not add one', async () => {
      const clock = new FakeClock(0);
      const sshd = fakeSshd(clock);
      sshd.hang(true);
      const probe = new SshReadyProbe({ readBanner: sshd.readBanner, timers: clock, onReady: () => assert.fail('no banner') });
      probe.follow([inst(), inst({ id: 8, ssh_port: 40030 })]);
      for (let i = 0; i < 5; i++) {
        probe.follow([inst({ actual_status: null }), inst({ id: 8, ssh_port: 40030 })]);
        await clock.advance(500);
      }
      assert.equal(sshd.attempts.length, 2, 'one per instance while each hangs');
      assert.equal(sshd.inFlight(), 2);
      probe.dispose();
      assert.equal(sshd.inFlight(), 0, 'dispose aborts the attempts in flight');
      assert.equal(clock.scheduled, 0, 'and leaves no timer');
    });

    it('stops when the instance leaves the booting list, is forgotten, or goes unlisted for long; an answer after that is ignored', async () => {
      const clock = new FakeClock(0);
      const sshd = fakeSshd(clock);
      const ready: number[] = [];
      const probe = new SshReadyProbe({
        readBanner: sshd.readBanner,
        timers: clock,
        onReady: (i) => ready.push(i.id),
        timing: { staleAfterMs: 5_000 },
      });
      probe.follow([inst({ id: 1 }), inst({ id: 2, ssh_port: 40031 }), inst({ id: 3, ssh_port: 40032 })]);
      await clock.advance(150);
      probe.follow([inst({ id: 1, actual_status: 'stopped', intended_status: 'stopped' }), inst({ id: 2, ssh_port: 40031 })]);
      assert.deepEqual(probe.probing, [2], 'stopped (1) and destroyed (3) are no longer probed');
      sshd.hang(true);
      await clock.advance(200);
      const hanging = sshd.attempts.at(-1)!;
      probe.forget(2);
      assert.ok(hanging.signal.aborted, 'forget aborts the attempt in flight');
      sshd.hang(false);
      probe.follow([inst({ id: 4, ssh_port: 40033 })]);
      await clock.advance(6_000);
      assert.deepEqual(probe.probing, [], 'unlisted for more than staleAfterMs');
      const knocks = sshd.attempts.length;
      await clock.advance(10_000);
      assert.equal(sshd.attempts.length, knocks);
      assert.deepEqual(ready, []);
    });

    it('starts over at a new address when the record changes it, dropping the old attempt', async () => {
      const clock = new FakeClock(0);
      const sshd = fakeSshd(clock);
      sshd.hang(true);
      const ready: string[] = [];
      const probe = new SshReadyProbe({ readBanner: sshd.readBanner, timers: clock, onReady: (_i, b) => ready.push(b) });
      probe.follow([inst({ actual_status: 'stopped', intended_status: 'running', ssh_port: 40022 })]);
      const old = sshd.attempts[0]!;
      sshd.hang(false);
      sshd.acceptAt = 0;
      probe.follow([inst({ ssh_port: 41000 })]);
      await settle();
      assert.ok(old.signal.aborted);
      assert.equal(sshd.attempts[1]!.port, 41000);
      assert.equal(ready.length, 1);
    });

    it('knocks only where a new sshd is coming: a booting record with a usable address and an SSH launch', () => {
      assert.deepEqual(probeTarget(inst()), { host: 'ssh4.example.net', port: 40022, via: 'proxy' });
      assert.deepEqual(probeTarget(inst({ actual_status: null })), { host: 'ssh4.example.net', port: 40022, via: 'proxy' }, 'provisioning');
      assert.equal(probeTarget(inst({ actual_status: 'rebooting' })), undefined, 'the old sshd may still answer during a reboot');
      assert.equal(probeTarget(inst({ actual_status: 'running' })), undefined, 'the service already said so');
      assert.equal(probeTarget(inst({ ssh_host: null, ssh_port: null } as never)), undefined, 'no address yet');
      assert.equal(probeTarget(inst({ ssh_host: '-oProxyCommand=x' })), undefined, 'an unusable address');
      assert.equal(probeTarget(inst({ image_runtype: 'args' })), undefined, 'no sshd is started in an args launch');
      assert.equal(probeTarget(inst({ image_runtype: 'jupyter_proxy ssh_proxy' }))?.port, 40023, 'a Jupyter launch: one above');
      const direct = inst({ public_ipaddr: '203.0.113.9', ports: { '22/tcp': [{ HostIp: '0.0.0.0', HostPort: '20544' }] } } as never);
      assert.deepEqual(probeTarget(direct), { host: '203.0.113.9', port: 20544, via: 'direct' });
    });
  });

  describe('BootWatch', () => {
    /** A watch over a list poller (10 s interval, fake clock); `changes` holds what it said, `calls` the API requests. */
    async function watched(withProbe: boolean) {
      const list = listPoller([inst({ actual_status: null })]);
      const sshd = fakeSshd(list.clock);
      const watch = new BootWatch({ poller: list.poller, timers: list.clock, readBanner: withProbe ? sshd.readBanner : undefined });
      const changes: Array<BootChange & { at: number }> = [];
      watch.onDidChange((c) => changes.push({ ...c, at: list.clock.now() }));
      watch.track(7);
      await list.poller.refresh();
      return { ...list, sshd, watch, changes, readyAt: () => changes.find((c) => c.booted.length > 0) };
    }

    it('says ready when sshd answers, though the list still says loading; asks for one refresh; announces once', async () => {
      const w = await watched(true);
      const bootAt = w.clock.now();
      w.sshd.acceptAt = bootAt + 3_300;
      w.set([inst()]);
      await w.clock.advance(3_000);
      assert.equal(w.calls(), 1, 'the probe makes no request');
      assert.equal(w.watch.current.length, 1);
      await w.clock.advance(1_000);
      const ready = w.readyAt()!;
      assert.ok(ready.at - bootAt >= 3_300 && ready.at - bootAt <= 3_500, `ready at ${ready.at - bootAt} ms`);
      assert.deepEqual(
        ready.booted.map((b) => [b.instance.id, b.by]),
        [[7, 'sshd']],
      );
      assert.deepEqual(ready.booting, [], 'the status bar stops saying booting');
      assert.equal(w.calls(), 2, 'one refresh, so the record catches up');
      assert.deepEqual(w.watch.probing, [], 'the refreshed list still says loading: no second probe');
      await w.clock.advance(10_000);
      w.set([inst({ actual_status: 'running' })]);
      await w.clock.advance(30_000);
      assert.equal(w.changes.filter((c) => c.booted.length > 0).length, 1, 'announced once, not again when the list says running');
      assert.deepEqual(w.watch.entries(), [], 'nothing left to save');
    });

    it('without a probe, ready waits for the poll that says running (the old behaviour)', async () => {
      const w = await watched(false);
      w.set([inst({ actual_status: 'running' })]);
      await w.clock.advance(9_999);
      assert.equal(w.readyAt(), undefined);
      await w.clock.advance(1);
      assert.deepEqual(
        w.readyAt()!.booted.map((b) => b.by),
        ['running'],
      );
    });

    it('is ready within 150 ms of sshd accepting (the target is 250), whatever the poll interval and the moment sshd starts', async () => {
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 0, max: 60_000 }), fc.integer({ min: 1_000, max: 120_000 }), async (acceptAfter, intervalMs) => {
          const clock = new FakeClock(0);
          const sshd = fakeSshd(clock, acceptAfter);
          const poller = {
            watch() {},
            refresh: () => Promise.resolve(),
            onDidUpdate: (l: (s: { instances: Instance[] }) => void) => ((push = l), { dispose() {} }),
          };
          let push: (s: { instances: Instance[] }) => void = () => {};
          const watch = new BootWatch({ poller: poller as never, timers: clock, readBanner: sshd.readBanner });
          let readyAt: number | undefined;
          watch.onDidChange((c) => {
            if (c.booted.length > 0) readyAt ??= clock.now();
          });
          for (let t = 0; readyAt === undefined && t < acceptAfter + intervalMs; t += intervalMs) {
            push({ instances: [inst({ actual_status: t > 0 && t >= acceptAfter ? 'running' : 'loading' })] });
            await clock.advance(intervalMs);
          }
          watch.dispose();
          assert.ok(readyAt !== undefined && readyAt - acceptAfter <= 150, `ready ${readyAt! - acceptAfter} ms after sshd accepted`);
        }),
        { numRuns: 40 },
      );
    });
  });
});
