import * as assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import {
  api,
  eventually,
  extensionApi,
  instanceStatus,
  recordNotifications,
  rentedAndReachable,
  rentedAndRunning,
  signIn,
  sim,
} from './support';

/** What the destroy confirmation asked: its text and its buttons. */
interface Asked {
  message: string;
  detail: string;
  actions: readonly string[];
}

describe('transfer: Upload Folder, Download from Instance, and what Destroy says first', function () {
  this.timeout(120_000);
  let id: number;
  let local: string;
  const workspace = () => vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const project = () => join(workspace(), 'itest-transfer');

  before(async () => {
    const x = await signIn();
    id = await rentedAndReachable();
    await x.test.refreshInstances();
    local = await mkdtemp(join(tmpdir(), 'gpu-rental-itest-transfer-'));
  });
  beforeEach(async () => {
    const x = await signIn();
    // The first ssh call may offer to make a key: yes.
    x.test.answerPrompts({ confirm: async () => true });
  });
  after(async () => {
    if ((await instanceStatus(id)) !== undefined) await api('DELETE', `/api/v0/instances/${id}/`, sim.key).catch(() => undefined);
    await rm(local, { recursive: true, force: true });
    await rm(project(), { recursive: true, force: true });
  });

  it('uploads the workspace folder (excludes and .gitignore honoured) and downloads a folder of it back under its own name', async () => {
    await mkdir(join(project(), 'data'), { recursive: true });
    await mkdir(join(project(), 'node_modules', 'dep'), { recursive: true });
    await writeFile(join(project(), '.gitignore'), '*.log\n');
    await writeFile(join(project(), 'train.py'), 'print("epoch 1")\n');
    await writeFile(join(project(), 'data', 'weights.bin'), Buffer.alloc(200_000, 7));
    await writeFile(join(project(), 'run.log'), 'left out by .gitignore\n');
    await writeFile(join(project(), 'node_modules', 'dep', 'index.js'), 'left out by gpuRental.sync.exclude\n');
    const notes = recordNotifications();
    try {
      const remoteDir = (await vscode.commands.executeCommand('gpuRental.uploadFolder', id, { remoteDir: '/root/itest-upload' })) as string;
      // On failure, say what the user was told (the transfer's error), not only that nothing came back.
      assert.equal(remoteDir, '/root/itest-upload', `the upload did not finish; told: ${notes.seen.map((n) => n.message).join(' | ')}`);
      const told = await eventually(() => notes.seen.find((n) => /^GPU Rental: uploaded /.test(n.message)), 'the upload told');
      assert.match(told.message, /^GPU Rental: uploaded workspace to \/root\/itest-upload on .*: \d+ files, .* (kB|MB)\.$/);

      const got = (await vscode.commands.executeCommand('gpuRental.downloadFromInstance', id, {
        remotePath: '/root/itest-upload/itest-transfer',
        localDir: local,
      })) as string;
      assert.equal(got, join(local, 'itest-transfer'));
      assert.deepEqual(await readdir(local), ['itest-transfer'], 'no partial folder left beside it');
      assert.equal(await readFile(join(got, 'train.py'), 'utf8'), 'print("epoch 1")\n');
      assert.equal((await stat(join(got, 'data', 'weights.bin'))).size, 200_000);
      assert.deepEqual((await readdir(got)).sort(), ['.gitignore', 'data', 'train.py'], 'run.log and node_modules stayed home');
      await eventually(
        () => notes.seen.find((n) => /^GPU Rental: downloaded \/root\/itest-upload\/itest-transfer from /.test(n.message)),
        'the download told',
      );
    } finally {
      notes.dispose();
    }
  });

  it('a remote path that does not exist is said, and nothing is made locally', async () => {
    const notes = recordNotifications();
    try {
      const into = join(local, 'missing');
      await mkdir(into);
      const got = await vscode.commands.executeCommand('gpuRental.downloadFromInstance', id, {
        remotePath: '/root/no-such-folder',
        localDir: into,
      });
      assert.equal(got, undefined);
      const error = await eventually(() => notes.seen.find((n) => n.level === 'error'), 'the error shown');
      assert.equal(
        error.message,
        'GPU Rental: /root/no-such-folder does not exist on the instance. Browse to the folder or check the path, then try again.',
      );
      assert.deepEqual(await readdir(into), []);
    } finally {
      notes.dispose();
    }
  });

  it('Destroy first says how much /root holds and offers Download First', async () => {
    const x = await extensionApi();
    const asked: Asked[] = [];
    const prompts = {
      confirm: async () => true,
      choose: async (message: string, detail: string, actions: readonly string[]) => {
        asked.push({ message, detail, actions });
        return 'Destroy';
      },
    };
    x.test.answerPrompts(prompts);
    await vscode.commands.executeCommand('gpuRental.destroyInstance', id);
    assert.equal(asked.length, 1, 'one question, with two buttons');
    assert.match(asked[0]!.message, /^Destroy .*\?$/);
    assert.match(
      asked[0]!.detail,
      /^\/root holds \d+(\.\d)? kB that goes with the instance\. Its disk and every file on it are deleted for good\./,
    );
    assert.deepEqual(asked[0]!.actions, ['Download First', 'Destroy']);
    await eventually(
      async () =>
        (await instanceStatus(id)) === undefined || (await instanceStatus(id)) === null || (await instanceStatus(id)) === 'exited',
      'the destroy',
      20_000,
    );
  });

  it('a stopped instance: Upload says so and Destroy says its files cannot be checked; nothing starts it', async () => {
    const x = await extensionApi();
    const stopped = await rentedAndRunning();
    await api('PUT', `/api/v0/instances/${stopped}/`, sim.key, { state: 'stopped' });
    await eventually(
      async () => (await instanceStatus(stopped)) === 'exited' || (await instanceStatus(stopped)) === 'stopped',
      'the stop',
      20_000,
    );
    await x.test.refreshInstances();
    const details: string[] = [];
    x.test.answerPrompts({
      confirm: async (_message: string, detail: string) => {
        details.push(detail);
        return false;
      },
    });
    const notes = recordNotifications();
    try {
      assert.equal(await vscode.commands.executeCommand('gpuRental.uploadFolder', stopped, { remoteDir: '/root/x' }), undefined);
      const warned = await eventually(() => notes.seen.find((n) => n.level === 'warning'), 'the warning');
      assert.match(
        warned.message,
        /^GPU Rental: .* is stopped, so files cannot move to or from it now\. Start it yourself when you want it running/,
      );
    } finally {
      notes.dispose();
    }
    await vscode.commands.executeCommand('gpuRental.destroyInstance', stopped);
    assert.equal(details.length, 1);
    assert.match(details[0]!, /^Its files could not be checked: the instance is stopped, so it has no address to ask\./);
    assert.notEqual(await instanceStatus(stopped), 'running', 'nothing started it');
    await api('DELETE', `/api/v0/instances/${stopped}/`, sim.key);
  });
});
