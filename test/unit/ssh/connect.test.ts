import assert from 'node:assert/strict';
import type { Instance } from '../../../src/core/api/instances';
import { handoffFor, readyHost, type ReadyDeps, type ShowProgress } from '../../../src/core/ssh/connect';
import { SshConfigError } from '../../../src/core/ssh/config';
import { NoSshKey, type PreparedHost } from '../../../src/core/ssh/connector';
import { REMOTE_SSH_EXTENSIONS } from '../../../src/core/ssh/remoteSsh';
import type { Ask } from '../../../src/core/prompts';
import { listPoller, MemoryLogger } from '../../support';
import { scriptedAsk } from '../../support/scriptedAsk';
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
  options: { cancel?: boolean; banner?: () => Promise<string>; prepare?: () => Promise<PreparedHost> } = {},
) {
  const p = listPoller(list);
  const instances = fakeInstances(list);
  const titles: string[] = [];
  const tracked: number[] = [];
  const spendAsked: string[] = [];
  const progress: ShowProgress = (title, work) => {
    titles.push(title);
    const abort = new AbortController();
    if (options.cancel) abort.abort();
    return work(abort.signal, () => undefined);
  };
  const deps: ReadyDeps = {
    ask,
    instances: instances.client,
    poller: p.poller,
    spend: async (_adds, what) => (spendAsked.push(what), true),
    boots: { track: (id) => void tracked.push(id) },
    connector: { prepare: options.prepare ?? (async () => host()) },
    connectVia: 'auto',
    sshReadyTimeoutSeconds: 7,
    progress,
    logger: new MemoryLogger(),
    waitForBanner: options.banner ?? (async () => 'SSH-2.0-OpenSSH_9.6'),
  };
  return { deps, instances, titles, tracked, spendAsked, set: p.set, poller: p.poller };
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
    assert.deepEqual(c.titles, [
      'GPU Rental: waiting for "m1" (RTX 4090, #1) to run, then connecting',
      'GPU Rental: waiting for SSH on "m1" (RTX 4090, #1) (203.0.113.9:2222)',
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

  it('says the instance keeps booting (and billing) when the user stops waiting', async () => {
    const c = connectDeps(scriptedAsk([]), [make(1, { actual_status: 'loading' })], { cancel: true });
    const ready = await readyHost(c.deps, make(1, { actual_status: 'loading' }));
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
    assert.deepEqual(c.titles, []);
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
      cancel: true,
      banner: () => Promise.reject(new Error('Die Wartezeit wurde abgebrochen.')),
    });
    assert.deepEqual(await readyHost(c.deps, make(1)), { kind: 'cancelled' }, 'told by the signal, not by the English text of the error');
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

    it('offers the SSH terminal and the editor’s Remote-SSH when none is installed', () => {
      const h = handoffFor(make(1), host(), { installed: undefined, wanted: microsoft, folder: '/root' });
      if (h.kind !== 'terminalOffered') return assert.fail(h.kind);
      assert.deepEqual(h.notice.actions, ['openTerminal', 'install']);
      assert.equal(h.notice.install, microsoft);
      assert.match(
        h.notice.text,
        /no Remote-SSH extension is installed .* Install Remote - SSH \(Microsoft\), or open an SSH terminal now\.$/,
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
