import * as assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import * as vscode from 'vscode';
import type { RemoteHandoff } from '../../src/ui/host/remote';
import {
  EXTENSION_ID,
  api,
  control,
  eventually,
  extensionApi,
  instanceStatus,
  recordNotifications,
  rentedAndRunning,
  signIn,
  sim,
} from './support';

type MenuItem = { command: string; when?: string; group?: string };

/** Sees the Remote-SSH handoff instead of opening a window. */
function observedHandoff(): { handoff: RemoteHandoff; opened: string[] } {
  const opened: string[] = [];
  return {
    opened,
    handoff: {
      installedIds: () => new Set(vscode.extensions.all.map((e) => e.id.toLowerCase())),
      openFolder: async (uri) => void opened.push(uri.toString(true)),
      openEmptyWindow: async (authority) => void opened.push(authority),
      installExtension: async () => undefined,
    },
  };
}

// code-server has no Remote-SSH and cannot show the remote indicator's menu, so these tests read
// its contribution from the manifest and run each of its commands in a window taken to be on an
// instance (testApi.pretendRemoteInstance), the state a real Remote-SSH window derives from its
// remote authority (src/ui/host/remote.ts windowAlias, unit-tested in test/unit/ssh/remoteWindow.test.ts).
describe('in a Remote-SSH window on an instance: the remote indicator menu', function () {
  this.timeout(120_000);
  let id: number;
  let undo: (() => void) | undefined;
  const asked: Array<{ message: string; detail: string }> = [];
  let answer = false;

  before(async () => {
    const x = await signIn();
    id = await rentedAndRunning({ runtype: 'ssh_direct' });
    x.test.answerPrompts({ confirm: async (message, detail) => (asked.push({ message, detail }), answer) });
  });
  beforeEach(() => {
    asked.length = 0;
    answer = false;
  });
  after(async () => {
    undo?.();
    await api('DELETE', `/api/v0/instances/${id}/`, sim.key).catch(() => undefined);
  });

  it('contributes Show Cost, Forward a Port, Open Jupyter, Stop and Destroy, only in such a window, grouped together', () => {
    const manifest = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as {
      contributes: { menus: { [menu: string]: MenuItem[] }; commands: Array<{ command: string; title: string }> };
    };
    const items = manifest.contributes.menus['statusBar/remoteIndicator']!;
    assert.deepEqual(
      items.map((i) => i.command),
      [
        'gpuRental.showThisInstanceCost',
        'gpuRental.forwardPortOnThisInstance',
        'gpuRental.openJupyterOnThisInstance',
        'gpuRental.stopThisInstance',
        'gpuRental.destroyThisInstance',
      ],
    );
    for (const item of items) {
      assert.match(item.when ?? '', /gpuRental\.state == ready && gpuRental\.remoteInstance/, item.command);
      assert.match(item.group ?? '', /^remote_\d\d_gpuRental_/, item.command);
    }
    const when = new Map(items.map((i) => [i.command, i.when]));
    assert.match(when.get('gpuRental.openJupyterOnThisInstance')!, /gpuRental\.remoteInstanceJupyter/);
    assert.match(when.get('gpuRental.stopThisInstance')!, /gpuRental\.remoteInstance == running/);
  });

  it('knows no instance in a window that is not on one, and says so when a command runs there', async () => {
    const x = await extensionApi();
    assert.equal(x.test.remoteWindow().instanceId, undefined);
    assert.equal(x.test.remoteWindow().phase, undefined);
    const notes = recordNotifications();
    try {
      assert.equal(await vscode.commands.executeCommand('gpuRental.stopThisInstance'), undefined);
      assert.match(notes.seen.at(-1)?.message ?? '', /^GPU Rental: this window is not a Remote-SSH window on a GPU Rental instance/);
    } finally {
      notes.dispose();
    }
    assert.equal(await instanceStatus(id), 'running');
  });

  it("follows the instance's phase and Jupyter launch into the menu's context keys", async () => {
    const x = await extensionApi();
    undo = x.test.pretendRemoteInstance(id);
    await x.test.refreshInstances();
    assert.deepEqual(x.test.remoteWindow(), { instanceId: id, phase: 'running', jupyter: false });
  });

  it("shows this instance's rate, how long it has been rented and what it cost so far", async () => {
    const text = await vscode.commands.executeCommand<string>('gpuRental.showThisInstanceCost');
    assert.match(text, /bills \$\d+\.\d+\/h while it runs; rented .+ ago; (\$\d+\.\d+ so far|what it cost so far is not known)/);
    assert.match(text, new RegExp(`#${id}\\b`));
  });

  it('forwards a port of this instance', async () => {
    const x = await extensionApi();
    // Forwarding may first offer to create an SSH key for this machine.
    answer = true;
    const server: Server = createServer((_req, res) => res.end('hello from this instance'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const remotePort = (server.address() as { port: number }).port;
    try {
      const forward = await vscode.commands.executeCommand<{ url: string; stop(): void }>(
        'gpuRental.forwardPortOnThisInstance',
        remotePort,
      );
      assert.ok(forward, 'forwarded');
      assert.ok(x.test.forwards().some((f) => f.instanceId === id && f.remotePort === remotePort));
      assert.equal(await (await fetch(forward.url)).text(), 'hello from this instance');
      forward.stop();
    } finally {
      server.close();
    }
  });

  it('runs Open Jupyter on this instance, which says Jupyter is not running on a launch without it', async () => {
    const notes = recordNotifications();
    try {
      const r = await vscode.commands.executeCommand<{ outcome: string }>('gpuRental.openJupyterOnThisInstance', 'browser');
      assert.equal(r.outcome, 'notRunning');
      assert.ok(notes.seen.some((n) => n.level === 'warning' && new RegExp(`Jupyter is not running on .*#${id}`).test(n.message)));
    } finally {
      notes.dispose();
    }
  });

  it('destroys only after the usual confirmation, which says this window loses its connection', async () => {
    await vscode.commands.executeCommand('gpuRental.destroyThisInstance');
    assert.equal(asked.length, 1);
    assert.match(asked[0]!.message, new RegExp(`^Destroy .*#${id}`));
    assert.match(asked[0]!.detail, /This window is connected to it and loses its connection\./);
    assert.match(asked[0]!.detail, /This cannot be undone\./);
    assert.equal(await instanceStatus(id), 'running', 'declined: nothing happened');
  });

  it('stops this instance, and the menu then offers no Stop', async () => {
    const x = await extensionApi();
    await vscode.commands.executeCommand('gpuRental.stopThisInstance');
    await eventually(async () => (await instanceStatus(id)) === 'stopped', 'the instance to stop', 20_000);
    await x.test.refreshInstances();
    assert.equal(x.test.remoteWindow().phase, 'stopped');
  });

  it('says when the account does not list the instance the window is on', async () => {
    const x = await extensionApi();
    const restore = x.test.pretendRemoteInstance(987_654_321);
    const notes = recordNotifications();
    try {
      assert.equal(await vscode.commands.executeCommand('gpuRental.showThisInstanceCost'), undefined);
      assert.match(notes.seen.at(-1)?.message ?? '', /this window is on instance #987654321, which the signed-in account does not list/);
      assert.equal(x.test.remoteWindow().phase, undefined);
    } finally {
      notes.dispose();
      restore();
    }
  });
});

describe('links: vscode://<publisher>.<name>/connect?instance=ID opens an instance', function () {
  this.timeout(120_000);
  let running: number;
  let stopped: number;
  const asked: string[] = [];
  let answer = false;

  before(async () => {
    const x = await signIn();
    // One after the other: both rent the cheapest offer.
    running = await rentedAndRunning({ runtype: 'ssh_direct' });
    stopped = await rentedAndRunning({ runtype: 'ssh_direct' });
    await api('PUT', `/api/v0/instances/${stopped}/`, sim.key, { state: 'stopped' });
    await eventually(async () => (await instanceStatus(stopped)) === 'stopped', 'the second instance to stop', 20_000);
    x.test.answerPrompts({ confirm: async (message) => (asked.push(message), answer) });
  });
  beforeEach(() => {
    asked.length = 0;
    answer = false;
  });
  after(async () => {
    for (const i of [running, stopped]) await api('DELETE', `/api/v0/instances/${i}/`, sim.key).catch(() => undefined);
  });

  it("names this extension's id as it runs, and the editor's scheme", async () => {
    const x = await extensionApi();
    assert.equal(x.test.linkTo(12, 'default'), `${vscode.env.uriScheme}://${EXTENSION_ID}/connect?instance=12&profile=default`);
  });

  it('refuses a bad link with a clear message, and acts on nothing', async () => {
    const x = await extensionApi();
    const base = `${vscode.env.uriScheme}://${EXTENSION_ID}`;
    const bad: Array<[string, RegExp]> = [
      [`${base}/connect?instance=abc`, /"abc" is not an instance id/],
      [`${base}/connect?instance=-1`, /"-1" is not an instance id/],
      [`${base}/connect`, /names no instance/],
      [`${base}/connect?instance=${running}&profile=nobody`, /profile "nobody", which does not exist here/],
      [`${base}/rent?offer=1`, /asks for "rent"/],
    ];
    for (const [link, reason] of bad) {
      const result = await x.test.openLink(link);
      assert.equal(result.outcome, 'refused', link);
      assert.match(result.detail, reason);
      assert.match(result.detail, /A link looks like .*\/connect\?instance=123/);
    }
    assert.deepEqual(asked, []);
  });

  it('says an instance the account does not have was not found, and in which account it looked', async () => {
    const x = await extensionApi();
    const result = await x.test.openLink(x.test.linkTo(987_654_321));
    assert.equal(result.outcome, 'notFound');
    assert.match(result.detail, /instance #987654321 was not found in the account .*@/);
  });

  it('connects to a running instance, ignoring parameters it does not know', async () => {
    const x = await extensionApi();
    const { handoff, opened } = observedHandoff();
    const restore = x.test.observeHandoff(handoff);
    // Connect may first offer to create an SSH key for this machine; it bills nothing.
    answer = true;
    try {
      const result = await x.test.openLink(`${x.test.linkTo(running, 'default')}&utm_source=chat`);
      assert.deepEqual(result, { outcome: 'connect', detail: 'opened' });
      assert.ok(!asked.some((m) => /^Start/.test(m)), asked.join(' | '));
      assert.equal(opened.length, 1);
      assert.ok(opened[0]!.includes(x.test.sshAlias(running)), opened[0]);
    } finally {
      restore();
    }
  });

  it('asks before switching to the profile a link names, and looks in that account once switched', async () => {
    const x = await extensionApi();
    const other = (await control('POST', 'accounts', { email: 'linked@example.com', credit: 5 })) as { key: string };
    answer = true;
    await vscode.commands.executeCommand('gpuRental.addProfile', { name: 'Linked', baseUrl: sim.url, apiKey: other.key });
    await x.test.switchProfile('default');
    asked.length = 0;
    answer = false;
    const declined = await x.test.openLink(x.test.linkTo(running, 'linked'));
    assert.deepEqual(declined, { outcome: 'declined', detail: 'the profile switch was declined' });
    assert.deepEqual(asked, ['Switch to the profile "Linked"?']);
    assert.equal(x.test.session().profileId, 'default');

    answer = true;
    // The default account's instance is not the linked account's: found nowhere, and the message says where it looked.
    const switched = await x.test.openLink(x.test.linkTo(running, 'linked'));
    assert.equal(x.test.session().profileId, 'linked');
    assert.equal(switched.outcome, 'notFound');
    assert.match(switched.detail, /not found in the account linked@example\.com/);

    // A link that starts the editor arrives while the key is still being checked: it waits for the check.
    await control('POST', 'faults', { kind: 'latency', ms: 1500, method: 'GET', path: '/users/current' });
    const switching = x.test.switchProfile('default');
    try {
      await eventually(() => x.test.session().state === 'checking', 'the session to check the key');
      const whileChecking = await x.test.openLink(x.test.linkTo(987_654_321));
      assert.equal(whileChecking.outcome, 'notFound', whileChecking.detail);
    } finally {
      await switching;
      await control('DELETE', 'faults');
    }
  });

  it('asks before starting a stopped instance, and starts nothing when declined', async () => {
    const x = await extensionApi();
    const result = await x.test.openLink(x.test.linkTo(stopped));
    assert.deepEqual(result, { outcome: 'connect', detail: 'cancelled' });
    assert.equal(asked.length, 1);
    assert.match(asked[0]!, /^Start .* to connect\?/);
    assert.equal(await instanceStatus(stopped), 'stopped');
  });
});

describe('Follow Instance Logs: new lines as they come', function () {
  this.timeout(120_000);
  let id: number;

  before(async () => {
    await signIn();
    // One numbered line a second: each tick must appear once, in order, whatever the reads overlap.
    id = await rentedAndRunning({ runtype: 'ssh_direct', onstart: 'i=0; while true; do i=$((i+1)); echo "tick $i"; sleep 1; done' });
  });
  after(() => api('DELETE', `/api/v0/instances/${id}/`, sim.key).catch(() => undefined));

  const ticks = (lines: readonly string[]) => lines.flatMap((l) => /onstart stdout: tick (\d+)$/.exec(l)?.[1] ?? []).map(Number);

  it('appends each new line once, in order, and stops when run again', async () => {
    const x = await extensionApi();
    assert.equal(await vscode.commands.executeCommand('gpuRental.followInstanceLogs', id), 'following');
    // Two reads at least 5 s apart.
    await eventually(() => ticks(x.test.followedLog(id)?.lines ?? []).length >= 8, 'several ticks to be followed', 40_000).catch(
      (error: unknown) => {
        throw new Error(`${String(error)}; followed: ${JSON.stringify(x.test.followedLog(id))}`);
      },
    );
    const seen = ticks(x.test.followedLog(id)!.lines);
    assert.deepEqual(
      seen,
      seen.map((_, i) => seen[0]! + i),
      'consecutive, no line twice, none missed',
    );
    assert.equal(x.test.followedLog(id)!.following, true);
    assert.equal(await vscode.commands.executeCommand('gpuRental.followInstanceLogs', id), 'stopped');
    await eventually(() => x.test.followedLog(id)?.end === 'cancelled', 'following to end');
    assert.match(x.test.followedLog(id)!.lines.at(-1)!, /^\[GPU Rental\] stopped following: you stopped it\./);
  });

  it('ends, and says so, when the instance stops', async () => {
    const x = await extensionApi();
    assert.equal(await vscode.commands.executeCommand('gpuRental.followInstanceLogs', id), 'following');
    await eventually(() => ticks(x.test.followedLog(id)?.lines ?? []).length > 0, 'the first read', 20_000);
    await api('PUT', `/api/v0/instances/${id}/`, sim.key, { state: 'stopped' });
    await eventually(async () => (await instanceStatus(id)) === 'stopped', 'the instance to stop', 20_000);
    await x.test.refreshInstances();
    await eventually(() => x.test.followedLog(id)?.end === 'stopped', 'following to end with the instance', 20_000);
    assert.equal(x.test.followedLog(id)!.following, false);
    assert.match(x.test.followedLog(id)!.lines.at(-1)!, /stopped following: .* is no longer running/);
  });
});
