import assert from 'node:assert/strict';
import { silentProgress } from '../../../src/core/progress';
import type { PortForward } from '../../../src/core/ssh/forward';
import { forwardNotice, forwardPortFlow, remotePortOf, type ForwardDeps, type PortPick } from '../../../src/core/ssh/forwardFlow';
import { listPoller, MemoryLogger } from '../../support';
import { scriptedAsk } from '../../support/scriptedAsk';
import { make } from '../instances/fakes';

const forwardOf = (remotePort: number, localPort = remotePort + 1): PortForward => ({
  instanceId: 1,
  remotePort,
  localPort,
  url: `http://localhost:${localPort}`,
  stop: () => undefined,
  ended: new Promise(() => undefined),
});

function forwardDeps(typed: string | undefined, running: PortForward[] = []) {
  const picks: PortPick[] = [];
  const started: Array<{ remotePort: number; sshArgs: readonly string[] }> = [];
  const added: PortForward[] = [];
  const deps: ForwardDeps = {
    ask: scriptedAsk([]),
    instances: { start: () => Promise.reject(new Error('never started here')) },
    poller: listPoller([make(1)]).poller,
    spend: async () => true,
    boots: { track: () => undefined },
    connector: {
      prepare: async () => ({
        alias: 'gpu-rental-1',
        endpoint: { host: '203.0.113.9', port: 2222, via: 'direct' },
        key: { privateKeyPath: '/k', publicKey: 'ssh-ed25519 AAAA' },
        hostFile: '/h.conf',
        userConfig: '/c',
        includeInPlace: true,
      }),
    },
    connectVia: 'auto',
    sshReadyTimeoutSeconds: 5,
    progress: silentProgress(),
    logger: new MemoryLogger(),
    waitForBanner: async () => 'SSH-2.0-x',
    pickPort: async (p) => (picks.push(p), typed),
    forwards: { find: (id, port) => running.find((f) => f.instanceId === id && f.remotePort === port), add: (f) => void added.push(f) },
    sshArgs: () => ['-F', '/h.conf'],
    start: async (o) => (started.push(o), forwardOf(o.remotePort, o.localPort)),
  };
  return { deps, picks, started, added };
}

describe('forward a port, as a flow', () => {
  it('takes a port number from 1 to 65535, given or typed, and names what was typed otherwise', () => {
    assert.deepEqual(remotePortOf(8888, undefined), { port: 8888 });
    assert.deepEqual(remotePortOf(undefined, ' 6006 '), { port: 6006 });
    assert.deepEqual(remotePortOf(70000, undefined), { problem: 'GPU Rental: "70000" is not a port number (1 to 65535).' });
    assert.deepEqual(remotePortOf(undefined, 'jupyter'), { problem: 'GPU Rental: "jupyter" is not a port number (1 to 65535).' });
    assert.deepEqual(remotePortOf(undefined, `80${'8'.repeat(60)}`), {
      problem: `GPU Rental: "${`80${'8'.repeat(60)}`.slice(0, 40)}" is not a port number (1 to 65535).`,
    });
  });

  it('offers the common ports, then forwards the one picked through the prepared alias and adds it to the forwards', async () => {
    const f = forwardDeps('8888');
    const end = await forwardPortFlow(f.deps, make(1), undefined);
    assert.deepEqual(
      f.picks[0]!.items.map((i) => i.label),
      ['8888', '6006', '7860', '8080'],
    );
    assert.equal(f.picks[0]!.title, 'GPU Rental: forward a port of "m1" (RTX 4090, #1) to this machine');
    assert.equal(end.kind, 'forwarded');
    assert.deepEqual(
      f.started.map((s) => [s.remotePort, s.sshArgs]),
      [[8888, ['-F', '/h.conf']]],
    );
    assert.equal(f.added.length, 1);
  });

  it('announces a forward already running again instead of starting another, and asks nothing when given the port', async () => {
    const running = forwardOf(8888, 9999);
    const f = forwardDeps(undefined, [running]);
    const end = await forwardPortFlow(f.deps, make(1), 8888);
    assert.deepEqual(end.kind === 'forwarded' && [end.forward, end.existing], [running, true]);
    assert.deepEqual(f.picks, []);
    assert.deepEqual(f.started, []);
  });

  it('forwards nothing when the pick is dismissed, or the port is refused', async () => {
    const dismissed = forwardDeps(undefined);
    assert.deepEqual(await forwardPortFlow(dismissed.deps, make(1), undefined), { kind: 'cancelled' });
    const bad = forwardDeps('0');
    assert.equal((await forwardPortFlow(bad.deps, make(1), undefined)).kind, 'refused');
    assert.deepEqual([...dismissed.started, ...bad.started], []);
  });

  it('says where the port is, with Open in Browser, Copy URL and Stop Forwarding', () => {
    assert.deepEqual(forwardNotice(make(1), forwardOf(8888, 9999)), {
      severity: 'info',
      text: 'GPU Rental: port 8888 of "m1" (RTX 4090, #1) is at http://localhost:9999',
      actions: ['openBrowser', 'copyUrl', 'stopForwarding'],
    });
  });
});
