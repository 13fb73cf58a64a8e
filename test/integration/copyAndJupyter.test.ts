import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as vscode from 'vscode';
import type { RemoteHandoff } from '../../src/ui/host/remote';
import {
  api,
  eventually,
  extensionApi,
  recordNotifications,
  recordQuickPicks,
  rentableOffers,
  rentedAndRunning,
  signIn,
  sim,
} from './support';

const run = promisify(execFile);
const USER_CONFIG = join(process.env.GPU_RENTAL_TEST_HOME!, '.ssh', 'config');
/** This suite's files on the instances: under /workspace, which is each instance's own. */
const DIR = `/workspace/itest-copy-${process.pid}`;

type Shown = { actual_status: string | null; jupyter_token?: string; status_msg?: string | null };
async function show(id: number): Promise<Shown | null> {
  return ((await api('GET', `/api/v0/instances/${id}/?owner=me`, sim.key)) as { instances: Shown | null }).instances;
}

/** Runs a command on the instance through the SSH entry GPU Rental wrote for it. */
async function onInstance(id: number, command: string): Promise<string> {
  const x = await extensionApi();
  const { stdout } = await run('ssh', ['-F', USER_CONFIG, '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=10', x.test.sshAlias(id), command]);
  return stdout;
}

/** A handoff that records what is opened outside VS Code instead of opening it. */
function observedHandoff(): { handoff: RemoteHandoff; opened: string[] } {
  const opened: string[] = [];
  return {
    opened,
    handoff: {
      installedIds: () => new Set(),
      openFolder: async () => undefined,
      openEmptyWindow: async () => undefined,
      installExtension: async () => undefined,
      openExternal: async (uri) => {
        opened.push(uri.toString(true));
        return true;
      },
    },
  };
}

type Opened = { outcome: string; instanceId?: number; localPort?: number; remotePort?: number };

describe('Open Jupyter, Copy Folder to Another Instance, Sync with Cloud Storage', function () {
  this.timeout(180_000);
  let jupyter: number;
  let plain: number;

  before(async () => {
    await signIn();
    jupyter = await rentedAndRunning({ runtype: 'jupyter_proxy ssh_proxy' });
    plain = await rentedAndRunning({ runtype: 'ssh_direc ssh_proxy' });
  });
  beforeEach(async () => {
    const x = await signIn();
    // The first ssh call may offer to make a key: yes.
    x.test.answerPrompts({ confirm: async () => true });
  });
  after(async () => {
    const x = await extensionApi();
    x.test.restoreDefaults();
    await api('DELETE', `/api/v0/instances/${jupyter}/`, sim.key);
    await api('DELETE', `/api/v0/instances/${plain}/`, sim.key);
  });

  it("Open Jupyter forwards the Jupyter launch's server and opens it on localhost with its token", async () => {
    const x = await extensionApi();
    const seen = observedHandoff();
    x.test.observeHandoff(seen.handoff);
    await x.test.refreshInstances();
    const row = (await x.test.instanceItems()).find((r) => r.id === `instance-${jupyter}`);
    assert.match(String(row?.contextValue), /(^|\+)jupyter(\+|$)/, 'the menu offers Open Jupyter on it');
    // The server starts with the instance and may not be listed at once.
    const opened = await eventually(
      async () => {
        const r = (await vscode.commands.executeCommand('gpuRental.openJupyter', jupyter, 'browser')) as Opened | undefined;
        if (r?.outcome === 'opened') return r;
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        return undefined;
      },
      'Open Jupyter to open it',
      60_000,
    );
    assert.ok(
      x.test.forwards().some((f) => f.instanceId === jupyter && f.remotePort === opened.remotePort && f.localPort === opened.localPort),
      'the forward is listed',
    );
    assert.equal(seen.opened.length, 1);
    const url = new URL(seen.opened[0]!);
    assert.equal(url.hostname, 'localhost');
    assert.equal(Number(url.port), opened.localPort);
    const token = (await show(jupyter))?.jupyter_token;
    assert.ok(token);
    assert.equal(url.searchParams.get('token'), token, "the instance's own server, with its token");
    const status = await fetch(`http://127.0.0.1:${opened.localPort}/api/status?token=${encodeURIComponent(token)}`);
    assert.equal(status.status, 200, 'Jupyter answers through the forward');
  });

  it('Use for Notebooks copies the server URL with its token, reuses the forward, and says when the Jupyter extension is missing', async () => {
    const x = await extensionApi();
    const seen = observedHandoff();
    x.test.observeHandoff(seen.handoff);
    const before = x.test.forwards().filter((f) => f.instanceId === jupyter);
    const notes = recordNotifications();
    try {
      const r = (await vscode.commands.executeCommand('gpuRental.openJupyter', jupyter, 'notebooks')) as Opened;
      assert.equal(r.outcome, 'forwarded');
      assert.deepEqual(
        x.test.forwards().filter((f) => f.instanceId === jupyter),
        before,
        'the forward of the first open is used again',
      );
      const url = new URL(await vscode.env.clipboard.readText());
      assert.equal(url.hostname, 'localhost');
      assert.equal(Number(url.port), r.localPort);
      assert.equal(url.searchParams.get('token'), (await show(jupyter))?.jupyter_token);
      assert.ok(
        notes.seen.some((n) => n.level === 'warning' && /Jupyter extension \(ms-toolsai\.jupyter\) is not installed/.test(n.message)),
      );
      assert.ok(!notes.seen.some((n) => n.message.includes(url.searchParams.get('token')!)), 'the token is in no message');
      assert.deepEqual(seen.opened, [], 'no browser');
    } finally {
      notes.dispose();
    }
  });

  it('the rent wizard offers Jupyter with SSH; picked, the instance is a Jupyter launch and the confirmation says so', async () => {
    const x = await extensionApi();
    x.test.answerPrompts({ confirm: async () => true });
    const [offer] = await rentableOffers();
    const { picks, restore } = recordQuickPicks();
    let id: number | undefined;
    try {
      let done = false;
      const renting = vscode.commands.executeCommand<number | undefined>('gpuRental.rentOffer', offer!.id).then((v) => ((done = true), v));
      // Accept what each step proposes, but at the connection step pick Jupyter through the proxy.
      while (!done) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        const current = picks.at(-1);
        const jupyterItem = current?.step === 3 ? current.items.find((i) => i.label === 'Jupyter and SSH through the proxy') : undefined;
        if (jupyterItem && current!.activeItems[0] !== jupyterItem) {
          // The window applies the choice asynchronously: accept it on the next round.
          current!.activeItems = [jupyterItem];
          continue;
        }
        if (!done) await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      }
      id = await renting;
    } finally {
      restore();
    }
    assert.equal(typeof id, 'number', 'rented');
    const connection = picks.find((p) => p.step === 3)!;
    assert.ok(connection.items.some((i) => i.label === 'Jupyter and SSH through the proxy'));
    const confirmation = picks.find((p) => p.step === 6)!;
    assert.ok(
      confirmation.items.some((i) => /Jupyter and SSH via proxy/.test(`${i.label} ${i.description ?? ''}`)),
      `the confirmation names it: ${picks
        .filter((p) => p.step === 6)
        .map((p) => p.items.map((i) => `${i.label} ${i.description ?? ''}`).join(' | '))
        .join(' || ')}`,
    );
    const record = (await api('GET', `/api/v0/instances/${id}/?owner=me`, sim.key)) as { instances: { image_runtype: string } };
    assert.equal(record.instances.image_runtype, 'jupyter_proxy ssh_proxy');
    await api('DELETE', `/api/v0/instances/${id}/`, sim.key);
  });

  it('Open Jupyter on an SSH launch says Jupyter is not running there', async () => {
    const x = await extensionApi();
    const seen = observedHandoff();
    x.test.observeHandoff(seen.handoff);
    const notes = recordNotifications();
    try {
      const r = (await vscode.commands.executeCommand('gpuRental.openJupyter', plain, 'browser')) as Opened;
      assert.equal(r.outcome, 'notRunning');
      assert.ok(
        notes.seen.some(
          (n) => n.level === 'warning' && /Jupyter is not running on .*not launched in a Jupyter launch mode/.test(n.message),
        ),
      );
      assert.deepEqual(seen.opened, [], 'nothing opened');
    } finally {
      notes.dispose();
    }
  });

  it('copies a folder from one instance to another, following the destination until done', async () => {
    // Both SSH entries exist: Open Jupyter wrote them above.
    await onInstance(jupyter, `mkdir -p ${DIR}/data && echo first > ${DIR}/data/a.txt && echo second > ${DIR}/data/b.txt`);
    const notes = recordNotifications();
    try {
      const outcome = await vscode.commands.executeCommand('gpuRental.copyBetweenInstances', jupyter, {
        srcPath: `${DIR}/data/`,
        dstId: plain,
        dstPath: `${DIR}/got/`,
      });
      assert.equal(outcome, 'done');
      assert.ok(notes.seen.some((n) => n.level === 'info' && /copy of .* finished/.test(n.message)));
    } finally {
      notes.dispose();
    }
    assert.equal(await onInstance(plain, `cat ${DIR}/got/a.txt ${DIR}/got/b.txt`), 'first\nsecond\n');
  });

  it('sends a folder to cloud storage and fetches it back onto another instance', async () => {
    const [connection] = (await api('GET', '/api/v0/users/cloud_integrations/', sim.key)) as Array<{ id: number }>;
    assert.ok(connection, 'the account has a cloud connection');
    const folder = `itest-${process.pid}/`;
    const sent = await vscode.commands.executeCommand('gpuRental.cloudSync', plain, {
      direction: 'Instance To Cloud',
      connectionId: connection.id,
      src: `${DIR}/got/`,
      dst: folder,
    });
    assert.equal(sent, 'done');
    const fetched = await vscode.commands.executeCommand('gpuRental.cloudSync', jupyter, {
      direction: 'Cloud To Instance',
      connectionId: connection.id,
      src: folder,
      dst: `${DIR}/back/`,
    });
    assert.equal(fetched, 'done');
    assert.equal(await onInstance(jupyter, `cat ${DIR}/back/b.txt`), 'second\n');
  });
});
