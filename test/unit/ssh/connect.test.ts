import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import type { Instance } from '../../../src/core/api/instances';
import { handoffFor, readyHost, type ReadyDeps } from '../../../src/core/ssh/connect';
import { SshConfigError } from '../../../src/core/ssh/config';
import { NoSshKey, type PreparedHost } from '../../../src/core/ssh/connector';
import { REMOTE_SSH_EXTENSIONS } from '../../../src/core/ssh/remoteSsh';
import type { Ask } from '../../../src/core/prompts';
import { eventually, listPoller, MemoryLogger } from '../../support';
import { scriptedAsk } from '../../support/scriptedAsk';
import { scriptedProgress, type CancelWhen } from '../../support/scriptedProgress';
import { fakeInstances, make, stopped } from '../instances/fakes';

const host = (over: Partial<PreparedHost> = {}): PreparedHost => ({
  alias: 'gpu-rental-1',
  endpoint: { host: '203.0.113.9', port: 2222, via: 'direct' },
  key: { privateKeyPath: '/home/me/.ssh/id_ed25519', publicKey: 'ssh-ed25519 AAAA me' },
  hostFile: '/home/me/.ssh/gpu-rental/gpu-rental-1.conf',
  userConfig: '/home/me/.ssh/config',
  includeInPlace: true,
  ...over,
});

/** Connect's deps over fakes: the poller lists `list` (changed with `set`); the banner answers unless told otherwise. */
function connectDeps(
  ask: Ask,
  list: Instance[],
  options: {
    cancel?: CancelWhen;
    banner?: ReadyDeps['waitForBanner'] | 'real';
    prepare?: () => Promise<PreparedHost>;
  } = {},
) {
  const p = listPoller(list);
  const instances = fakeInstances(list);
  const tracked: number[] = [];
  const spendAsked: string[] = [];
  const prepared: number[] = [];
  const progress = scriptedProgress(options.cancel);
  // The poller's listeners the flow holds now: a wait that ended holds none.
  let listening = 0;
  const poller: ReadyDeps['poller'] = {
    refresh: () => p.poller.refresh(),
    watch: (id) => p.poller.watch(id),
    onDidUpdate: (listener) => {
      listening++;
      const subscription = p.poller.onDidUpdate(listener);
      return { dispose: () => (listening--, subscription.dispose()) };
    },
  };
  const deps: ReadyDeps = {
    ask,
    instances: instances.client,
    poller,
    spend: async (_adds, what) => (spendAsked.push(what), true),
    boots: { track: (id) => void tracked.push(id) },
    connector: {
      prepare: (instance) => (prepared.push(instance.id), options.prepare ? options.prepare() : Promise.resolve(host())),
    },
    connectVia: 'auto',
    sshReadyTimeoutSeconds: 7,
    progress,
    logger: new MemoryLogger(),
    ...(options.banner !== 'real' ? { waitForBanner: options.banner ?? (async () => 'SSH-2.0-OpenSSH_9.6') } : {}),
  };
  const titles = () => progress.shown.map((s) => s.title);
  return { deps, instances, titles, tracked, spendAsked, prepared, progress, listening: () => listening, set: p.set, clock: p.clock };
}

describe('connect, as a flow', () => {
  it('asks before starting a stopped instance, naming its price, and starts nothing when declined', async () => {
    const ask = scriptedAsk([{ confirm: false }]);
    const c = connectDeps(ask, [stopped(1)]);
    assert.deepEqual(await readyHost(c.deps, stopped(1)), { kind: 'cancelled' });
    assert.match(ask.asked[0]!.text, /^Start "m1" \(RTX 4090, #1\) to connect\?$/);
    assert.equal(ask.asked[0]!.detail, 'It is stopped. Starting it bills $0.400/h while it runs.');
    assert.deepEqual(ask.asked[0]!.options, ['Start and Connect']);
    assert.deepEqual(c.instances.calls, [], 'declined: not started');
    assert.deepEqual(c.spendAsked, []);
  });

  it('starts a stopped instance when the user agrees and the cap allows, waits for it to run, then for its sshd', async () => {
    const ask = scriptedAsk([{ confirm: true }]);
    const c = connectDeps(ask, [make(1)]);
    const ready = await readyHost(c.deps, stopped(1));
    assert.equal(ready.kind, 'ready');
    assert.deepEqual(c.instances.requested('start'), [1]);
    assert.deepEqual(c.tracked, [1], 'the status bar follows its boot');
    assert.deepEqual(c.spendAsked, ['started: "m1" (RTX 4090, #1) adds $0.380/h']);
    assert.deepEqual(c.titles(), [
      'waiting for "m1" (RTX 4090, #1) to run, then connecting',
      'waiting for SSH on "m1" (RTX 4090, #1) (203.0.113.9:2222)',
    ]);
  });

  it('starts nothing when the spend cap refuses', async () => {
    const c = connectDeps(scriptedAsk([{ confirm: true }]), [stopped(1)]);
    const refused = { ...c.deps, spend: async () => false };
    assert.deepEqual(await readyHost(refused, stopped(1)), { kind: 'cancelled' });
    assert.deepEqual(c.instances.calls, []);
  });

  it('waits for a booting instance without asking anything (what Open When Ready does after a rent)', async () => {
    const booting = make(1, { actual_status: 'loading' });
    const c = connectDeps(scriptedAsk([]), [make(1)]);
    const ready = await readyHost(c.deps, booting);
    assert.equal(ready.kind, 'ready');
    assert.deepEqual(c.instances.calls, [], 'it was meant to run: nothing started');
  });

  it('Cancel while it boots: the wait ends and stops listening, nothing more is prepared or asked, and it says the instance keeps booting (and billing)', async () => {
    const ask = scriptedAsk([]);
    // Cancel on the first phase the wait reports: it has seen a poll and is still waiting.
    const c = connectDeps(ask, [make(1, { actual_status: 'loading' })], { cancel: { title: /to run/ } });
    const ready = await readyHost(c.deps, make(1, { actual_status: 'loading' }));
    assert.ok(c.progress.cancelled(), 'the scripted user pressed Cancel');
    assert.equal(c.progress.shown[0]!.updates.length, 1, 'cancelled while waiting, after one poll');
    assert.equal(c.listening(), 0, 'the wait no longer listens to the poller');
    c.set([make(1)]);
    await c.clock.advance(60_000);
    assert.deepEqual(c.prepared, [], 'nothing written for ssh, even once it runs');
    assert.deepEqual(c.titles(), ['waiting for "m1" (RTX 4090, #1) to run, then connecting'], 'no wait for SSH begins');
    assert.deepEqual(ask.asked, []);
    assert.equal(ready.kind, 'notice');
    if (ready.kind !== 'notice') return;
    assert.equal(ready.notice.severity, 'info');
    assert.match(ready.notice.text, /^GPU Rental: stopped waiting\. "m1" .* keeps booting \(and billing\); connect again when it runs\.$/);
  });

  it('offers the logs when the instance fails instead of running', async () => {
    const c = connectDeps(scriptedAsk([]), [make(1, { actual_status: 'exited', intended_status: 'running' })]);
    const ready = await readyHost(c.deps, make(1, { actual_status: 'loading' }));
    if (ready.kind !== 'notice') return assert.fail(ready.kind);
    assert.equal(ready.notice.severity, 'error');
    assert.match(ready.notice.text, /did not reach running \(it is failed\)\.$/);
    assert.deepEqual(ready.notice.actions, ['showLogs']);
  });

  it('refuses an instance in a phase it cannot be connected in, asking nothing', async () => {
    const c = connectDeps(scriptedAsk([]), []);
    const ready = await readyHost(c.deps, make(1, { actual_status: 'exited', intended_status: 'running' }));
    if (ready.kind !== 'notice') return assert.fail(ready.kind);
    assert.equal(ready.notice.text, 'GPU Rental: "m1" (RTX 4090, #1) is failed; it cannot be connected to.');
    assert.deepEqual(c.titles(), []);
  });

  it('says what to check when sshd does not answer in time, offering the logs and a retry', async () => {
    const c = connectDeps(scriptedAsk([]), [make(1)], {
      banner: () => Promise.reject(new Error('SSH at 203.0.113.9:2222 did not answer')),
    });
    const ready = await readyHost(c.deps, make(1));
    if (ready.kind !== 'notice') return assert.fail(ready.kind);
    assert.match(ready.notice.text, /^GPU Rental: "m1" .* is running, but SSH did not answer at 203\.0\.113\.9:2222 within 7 s\. /);
    assert.deepEqual(ready.notice.actions, ['showLogs', 'retry']);
  });

  it('says nothing more when the user cancels the wait for sshd', async () => {
    const c = connectDeps(scriptedAsk([]), [make(1)], {
      cancel: { atStart: true },
      banner: () => Promise.reject(new Error('Die Wartezeit wurde abgebrochen.')),
    });
    assert.deepEqual(await readyHost(c.deps, make(1)), { kind: 'cancelled' }, 'told by the signal, not by the English text of the error');
  });

  it('Cancel while sshd is silent: the probe hangs up its connection, the flow ends cancelled, and nothing more is said or asked', async () => {
    // An sshd that accepts and never sends its banner.
    const sockets: Socket[] = [];
    const closed: boolean[] = [];
    let connected!: () => void;
    const reached = new Promise<void>((resolve) => (connected = resolve));
    const server = createServer((socket) => {
      const at = sockets.push(socket) - 1;
      closed[at] = false;
      socket.on('close', () => (closed[at] = true));
      socket.on('error', () => undefined);
      connected();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const ask = scriptedAsk([]);
      const c = connectDeps(ask, [make(1)], {
        cancel: { title: /SSH/, once: reached },
        banner: 'real',
        prepare: () => Promise.resolve(host({ endpoint: { host: '127.0.0.1', port, via: 'direct' } })),
      });
      let pressedAt = 0;
      void reached.then(() => (pressedAt = Date.now()));
      const ready = await readyHost(c.deps, make(1));
      assert.ok(Date.now() - pressedAt < 1_000, `ended ${Date.now() - pressedAt} ms after the Cancel, not at the attempt's timeout`);
      assert.deepEqual(ready, { kind: 'cancelled' }, 'no notice: the user knows they cancelled');
      assert.ok(c.progress.cancelled());
      assert.deepEqual(c.titles(), [`waiting for SSH on "m1" (RTX 4090, #1) (127.0.0.1:${port})`]);
      assert.equal(c.progress.shown[0]!.ended, 'rejected');
      await eventually(() => closed.length > 0 && closed.every(Boolean), 'the probe to close its connection to sshd', 5_000);
      assert.deepEqual(ask.asked, []);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('offers the settings when there is no key, and the SSH config at its line when it cannot be read', async () => {
    const noKey = connectDeps(scriptedAsk([]), [make(1)], { prepare: () => Promise.reject(new NoSshKey()) });
    const a = await readyHost(noKey.deps, make(1));
    if (a.kind !== 'notice') return assert.fail(a.kind);
    assert.match(
      a.notice.text,
      /^GPU Rental: No SSH key to connect with: .* Connect again to create one, or set gpuRental\.ssh\.identityFile\.$/,
    );
    assert.deepEqual(a.notice.actions, ['openSettings']);

    const broken = connectDeps(scriptedAsk([]), [make(1)], {
      prepare: () => Promise.reject(new SshConfigError('2 start and 1 end markers', 12)),
    });
    const b = await readyHost(broken.deps, make(1));
    if (b.kind !== 'notice') return assert.fail(b.kind);
    assert.deepEqual(b.notice, {
      severity: 'error',
      text: 'GPU Rental: 2 start and 1 end markers',
      actions: ['openSshConfig'],
      configLine: 12,
    });

    const other = connectDeps(scriptedAsk([]), [make(1)], { prepare: () => Promise.reject(new Error('boom')) });
    const c = await readyHost(other.deps, make(1));
    assert.equal(c.kind === 'error' && (c.error as Error).message, 'boom', 'anything else goes to the command guard');
  });

  describe('the handoff', () => {
    const microsoft = REMOTE_SSH_EXTENSIONS[0]!;
    it('opens the remote folder, or an empty window when none is set', () => {
      const open = handoffFor(make(1), host(), { installed: microsoft, wanted: microsoft, folder: '/root' });
      assert.deepEqual(open.kind === 'open' && [open.folderUri, open.authority], [
        'vscode-remote://ssh-remote+gpu-rental-1/root',
        'ssh-remote+gpu-rental-1',
      ]);
      const empty = handoffFor(make(1), host(), { installed: microsoft, wanted: microsoft, folder: '' });
      assert.equal(empty.kind === 'open' && empty.folderUri, undefined);
    });

    it('offers Open in Browser first, then the editor’s Remote-SSH and the SSH terminal, when none is installed', () => {
      const h = handoffFor(make(1), host(), { installed: undefined, wanted: microsoft, folder: '/root' });
      if (h.kind !== 'terminalOffered') return assert.fail(h.kind);
      assert.deepEqual(h.notice.actions, ['openInBrowser', 'install', 'openTerminal']);
      assert.equal(h.notice.install, microsoft);
      assert.match(
        h.notice.text,
        /no Remote-SSH extension is installed .* Open it in a browser \(a VS Code served by the instance\), install Remote - SSH \(Microsoft\), or open an SSH terminal\.$/,
      );
    });

    it('shows the lines to add when the SSH config cannot be edited, and opens nothing', () => {
      const h = handoffFor(make(1), host({ includeInPlace: false, includeLines: 'Include /x/*.conf' }), {
        installed: microsoft,
        wanted: microsoft,
        folder: '/root',
      });
      if (h.kind !== 'failed') return assert.fail(h.kind);
      assert.deepEqual(h.notice.actions, ['copyLines', 'openTerminal']);
      assert.match(
        h.notice.text,
        /^GPU Rental: \/home\/me\/\.ssh\/config cannot be edited, so Remote-SSH will not find gpu-rental-1\. .*\nInclude \/x\/\*\.conf$/,
      );
    });
  });
});
